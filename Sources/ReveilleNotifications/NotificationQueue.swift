/// The notification thread's work waiting its turn, as a value. The thread does one operation
/// at a time (each may block for as long as a frozen server takes), so what waits is bounded:
/// a newer update of a notification takes the place of one still waiting (the latest wins),
/// and past `maximumShows` the oldest waiting show is dropped, answered as not shown.
package struct NotificationQueue: Equatable {
    package enum Operation: Equatable {
        /// Ask the server for its name and capabilities.
        case probe
        /// Show ticket's request, in place of notification `replacing` when not 0.
        case show(ticket: Int, replacing: UInt32)
        case close(UInt32)
        /// Let go of every notification: the server that showed them left.
        case forgetAll
    }

    package enum Admission: Equatable {
        case queued
        /// A show waiting to replace the same notification now carries this one's request;
        /// both are answered together.
        case merged(into: Int)
        /// Queued, and the oldest waiting show was dropped to make room.
        case queuedDropping(Int)
    }

    /// Shows that may wait at once: an alert, a countdown or a prompt each, more than any
    /// desktop shows at a time, and at 25 s per call to a frozen server already minutes of work.
    package static let maximumShows = 32

    package private(set) var waiting: [Operation] = []

    /// Whether nothing waits.
    package var isEmpty: Bool { waiting.isEmpty }

    package mutating func show(ticket: Int, replacing: UInt32) -> Admission {
        if replacing != 0, let older = waiting.firstIndex(where: { $0.replaces(replacing) }),
           case .show(let olderTicket, _) = waiting[older] {
            return .merged(into: olderTicket)
        }
        waiting.append(.show(ticket: ticket, replacing: replacing))
        guard waiting.count(where: \.isShow) > Self.maximumShows, let oldest = waiting.firstIndex(where: \.isShow),
              case .show(let dropped, _) = waiting.remove(at: oldest) else { return .queued }
        return .queuedDropping(dropped)
    }

    package mutating func close(_ id: UInt32) {
        guard id != 0, !waiting.contains(.close(id)) else { return }
        waiting.append(.close(id))
    }

    package mutating func probe() {
        guard !waiting.contains(.probe) else { return }
        waiting.append(.probe)
    }

    /// The server left: its ids mean nothing now. Closes waiting for them go, shows that were
    /// to replace one show a new notification, and letting go comes first.
    package mutating func forgetAll() {
        waiting = [.forgetAll] + waiting.compactMap { operation in
            switch operation {
            case .close, .forgetAll: nil
            case .show(let ticket, _): .show(ticket: ticket, replacing: 0)
            case .probe: .probe
            }
        }
    }

    /// Takes the next operation that can run: a show only once the server's profile is known.
    package mutating func next(serverKnown: Bool) -> Operation? {
        guard let index = waiting.firstIndex(where: { serverKnown || !$0.isShow }) else { return nil }
        return waiting.remove(at: index)
    }

    /// Takes every waiting show out (the agent is stopping: nothing new should appear).
    package mutating func removeShows() -> [Int] {
        let tickets = waiting.compactMap { operation -> Int? in
            if case .show(let ticket, _) = operation { ticket } else { nil }
        }
        waiting.removeAll(where: \.isShow)
        return tickets
    }
}

private extension NotificationQueue.Operation {
    var isShow: Bool {
        if case .show = self { true } else { false }
    }

    func replaces(_ id: UInt32) -> Bool {
        if case .show(_, let replacing) = self { replacing == id } else { false }
    }
}
