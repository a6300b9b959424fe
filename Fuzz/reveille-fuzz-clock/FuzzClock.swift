import FoundationEssentials
import ReveilleCore
import ReveilleFuzzSupport
import ReveilleModel
import ReveilleRules

/// `clock.json` as the agent reads it at start (`ClockMemoryFile`: what the clock passed over,
/// the last time seen), then what the engine does with it: a start (`load`, with the alarms
/// the file says replaced what it passed over), the clock set back, set forward and back
/// again. A damaged or hand-written file never traps, and what a set back brings back is an
/// alarm as a set forward leaves one to remember: the same alarm (id, owner, configuration)
/// as the one it replaced, waiting or counting down, due ahead of now, not ringing.
/// Input: the file's bytes.
@main enum FuzzClock {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func main() {
        FuzzTarget.main { bytes in
            guard let memory = ClockMemoryFile.memory(decoding: Data(bytes)) else { return }
            let zone = UTCTimeZone()
            for (id, passed) in memory.passedOver {
                precondition(passed.before.id == id && passed.after.map { $0.id == id } ?? true, "an entry names two alarms")
            }
            var engine = AlarmEngine()
            let present = memory.passedOver.values.compactMap(\.after)
            _ = engine.load(present, now: now, timeZone: zone, remembered: memory)
            var clock = now
            for jump: TimeInterval in [-7200, 3600, -86_400] {
                clock += jump
                let before = Dictionary(engine.list.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                let effects = engine.clockSet(by: jump, now: clock, timeZone: zone)
                for effect in effects {
                    guard case .withdrawMissed(let id) = effect, let back = engine.list.first(where: { $0.id == id }) else { continue }
                    if let was = before[id] {
                        precondition(back.appID == was.appID && back.request == was.request, "\(id) came back as another alarm: \(back), was \(was)")
                    }
                    precondition(back.state == .scheduled || back.state == .countdown, "came back \(back.state): \(back)")
                    if let due = back.dueDate { precondition(due > clock.addingTimeInterval(-1), "came back due long ago: \(back)") }
                }
            }
            _ = engine.clockMemory(now: clock)
        }
    }
}
