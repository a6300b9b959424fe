import FoundationEssentials
import ReveilleModel

/// A client's copy of the alarms it may see, kept current from the agent: the list
/// `Subscribe` returns, then each `AlarmsUpdated`. Updates that arrive before the list (the
/// reply and the signals travel on different paths through the client's loop) wait for it;
/// applying one twice changes nothing, since each carries whole records.
package struct AlarmListMirror: Sendable {
    private var alarms: [UUID: AlarmRecord]?
    private var pending: [(changed: [AlarmRecord], removed: [UUID])] = []
    /// Updates kept while waiting for a list; past this, the oldest are dropped (the list,
    /// when it comes, holds their effect anyway).
    static let maximumPending = 256

    package init() {}

    /// Whether the mirror holds a list (and so shows every update at once).
    package var isSynchronized: Bool { alarms != nil }

    /// Forgets the list: the agent that sent it is gone, and its successor's list is awaited.
    package mutating func awaitList() {
        alarms = nil
        pending = []
    }

    /// The agent's list (from `Subscribe`), with any updates that overtook it applied: the
    /// alarms in display order.
    package mutating func received(list: [AlarmRecord]) -> [AlarmRecord] {
        var byID = Dictionary(list.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        for update in pending { Self.apply(update.changed, update.removed, to: &byID) }
        pending = []
        alarms = byID
        return byID.values.sortedForDisplay()
    }

    /// One `AlarmsUpdated`: the alarms now, in display order, or `nil` while the list is awaited.
    package mutating func received(changed: [AlarmRecord], removed: [UUID]) -> [AlarmRecord]? {
        guard var current = alarms else {
            if pending.count == Self.maximumPending { pending.removeFirst() }
            pending.append((changed, removed))
            return nil
        }
        alarms = nil  // so `current` is the only reference and is changed in place
        Self.apply(changed, removed, to: &current)
        alarms = current
        return current.values.sortedForDisplay()
    }

    private static func apply(_ changed: [AlarmRecord], _ removed: [UUID], to alarms: inout [UUID: AlarmRecord]) {
        for record in changed { alarms[record.id] = record }
        for id in removed { alarms[id] = nil }
    }
}
