import Synchronization

/// What the messages a connection received and has not finished with may hold in memory, by
/// sender and in all. GDBus reads every message as fast as the bus delivers it and queues it
/// for the loop; a flood from connections that never stop sending grew that queue without
/// bound before any gate saw a call (200 connections of 2,000-event EventGroups: 300 MiB and
/// more, each 64 KiB call read as 1.6 MB of values). Taken on GDBus's own thread when a message arrives, given back when the message is
/// freed, so what it counts is what is alive, wherever it waits (GDBus's queue, the gate's
/// waiting calls, a handler).
package final class IncomingBudget: Sendable {
    package struct Limits: Sendable, Equatable, CustomStringConvertible {
        /// What one sender's live messages may hold.
        package var perSender: Int
        /// What all senders' live messages may hold; past it, a sender that holds nothing may
        /// still send one message of `smallMessage` bytes or fewer (as counted: with
        /// `messageOverhead`), so a crowd that keeps messages waiting cannot shut out the user's
        /// `reveille stop`, which calls one at a time;
        package var inAll: Int
        package var smallMessage: Int
        /// and such messages hold at most this together beyond `inAll`: one a sender, but
        /// senders are as many as connections the bus takes (tens of thousands).
        package var smallReserve: Int
        package init(perSender: Int, inAll: Int, smallMessage: Int, smallReserve: Int) {
            self.perSender = perSender
            self.inAll = inAll
            self.smallMessage = smallMessage
            self.smallReserve = smallReserve
        }
        package var description: String {
            "\(perSender) a sender, \(inAll) in all, one of \(smallMessage) a sender holding none up to \(smallReserve) beyond"
        }
    }

    /// A sender may hold 1 MiB (a burst of 256 small calls, as an app filling its alarms sends; an eighth of all); all together
    /// 8 MiB, and beyond it one small message (a body of 4 KiB: the user's stop names an id) of each sender holding none,
    /// 4 MiB of them at most (512 senders; 200 connections each keeping a small call waiting take 1.6 MiB).
    package static let defaultLimits = Limits(perSender: 1 << 20, inAll: 8 << 20, smallMessage: messageOverhead + (4 << 10),
                                              smallReserve: 4 << 20)

    /// What a message holds beyond its body while it waits: GDBus's message object and its
    /// header fields (1.7 KiB measured for a GetAll, in GSlice's chunks), then its invocation and queued dispatch.
    package static let messageOverhead = 4096
    /// What a message of `bodyBytes` (its body's serialized size) is counted as.
    package static func cost(bodyBytes: Int) -> Int { messageOverhead + bodyBytes }
    /// Messages this large or larger wait as their wire form only (a copy): GDBus's tree of
    /// values is twenty times that size and more for many small items.
    package static let compactFrom = 1024

    package let limits: Limits
    private struct State {
        var held: [String: Int] = [:]
        var total = 0
    }
    private let state = Mutex(State())

    package init(limits: Limits = IncomingBudget.defaultLimits) { self.limits = limits }

    /// Whether `sender` may have one more message of `bytes` alive; if so it is counted until `give`.
    package func take(_ bytes: Int, from sender: String) -> Bool {
        state.withLock { state in
            let own = state.held[sender] ?? 0
            guard own + bytes <= limits.perSender,
                  state.total + bytes <= limits.inAll
                    || (own == 0 && bytes <= limits.smallMessage && state.total + bytes <= limits.inAll + limits.smallReserve)
            else { return false }
            state.held[sender] = own + bytes
            state.total += bytes
            return true
        }
    }

    /// A message of `sender`'s that `take` counted was freed.
    package func give(_ bytes: Int, from sender: String) {
        state.withLock { state in
            let left = (state.held[sender] ?? 0) - bytes
            state.held[sender] = left > 0 ? left : nil
            state.total = max(0, state.total - bytes)
        }
    }

    /// What `sender`'s live messages hold, and all senders' together.
    package func held(by sender: String? = nil) -> Int {
        state.withLock { state in sender.map { state.held[$0] ?? 0 } ?? state.total }
    }
}
