import ReveilleBus
import ReveilleFuzzSupport

/// The incoming budget's arithmetic (`IncomingBudget`, what every message the agent's
/// connection receives is counted by) under any order of arrivals and departures: each
/// sender's messages never hold more than its own limit, all together never more than the
/// limit in all and the allowance beyond it, a refusal is one the stated rules make, and
/// once every message is freed nothing is held. Input: three bytes of limits (in units
/// that make them meet), then three bytes a step: the first says arrive (even) or leave
/// (odd) and whose (one of 64 senders), the next two the size or which live message leaves.
@main enum FuzzBudget {
    static func main() {
        FuzzTarget.main { bytes in
            guard bytes.count >= 3 else { return }
            let limits = IncomingBudget.Limits(perSender: Int(bytes[0]) * 64, inAll: Int(bytes[1]) * 256,
                                               smallMessage: Int(bytes[2]) * 16, smallReserve: Int(bytes[2] & 0x0f) * 512)
            let budget = IncomingBudget(limits: limits)
            var live: [(sender: String, bytes: Int)] = []
            var steps = bytes.dropFirst(3)[...]
            while steps.count >= 3 {
                let op = steps.removeFirst(), high = Int(steps.removeFirst()), low = Int(steps.removeFirst())
                let sender = ":1.\(op >> 2)"
                if op & 1 == 0 {
                    let size = (high << 8 | low) >> (op & 2 == 0 ? 0 : 6)
                    let own = live.filter { $0.sender == sender }.reduce(0) { $0 + $1.bytes }
                    let total = live.reduce(0) { $0 + $1.bytes }
                    let taken = budget.take(size, from: sender)
                    if taken { live.append((sender, size)) }
                    // What the rules say: within its own limit, and within all, or a small
                    // message of a sender holding nothing while the allowance beyond all lasts.
                    let allowed = own + size <= limits.perSender
                        && (total + size <= limits.inAll
                            || (own == 0 && size <= limits.smallMessage && total + size <= limits.inAll + limits.smallReserve))
                    precondition(taken == allowed, "\(sender) holding \(own) of \(total) in all: \(size) bytes \(taken ? "taken" : "refused") under \(limits)")
                } else if !live.isEmpty {
                    let leaving = live.remove(at: (high << 8 | low) % live.count)
                    budget.give(leaving.bytes, from: leaving.sender)
                }
                let total = live.reduce(0) { $0 + $1.bytes }
                precondition(budget.held() == total, "held \(budget.held()), alive \(total)")
                precondition(total <= limits.inAll + limits.smallReserve, "\(total) held past \(limits)")
                precondition(budget.held(by: sender) == live.filter { $0.sender == sender }.reduce(0) { $0 + $1.bytes })
                precondition(budget.held(by: sender) <= limits.perSender)
            }
            for leaving in live { budget.give(leaving.bytes, from: leaving.sender) }
            precondition(budget.held() == 0, "\(budget.held()) held once every message left")
            for sender in Set(live.map(\.sender)) { precondition(budget.held(by: sender) == 0) }
        }
    }
}
