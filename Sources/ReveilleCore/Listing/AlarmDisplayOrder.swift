import FoundationEssentials

/// The order in which alarms are listed: alerting first, then counting down, scheduled and
/// paused, each by the instant it next acts, then by id. The agent's `List` and a client
/// that keeps its own copy up to date from `AlarmsUpdated` sort the same way.
package struct AlarmDisplayOrder: Comparable, Sendable {
    var rank: Int
    var date: Date
    var id: UUID

    package init(_ record: AlarmRecord) {
        rank = switch record.state {
        case .alerting: 0
        case .countdown: 1
        case .scheduled: 2
        case .paused: 3
        }
        date = record.fireDate ?? .distantFuture
        id = record.id
    }

    package static func < (lhs: Self, rhs: Self) -> Bool {
        if lhs.rank != rhs.rank { return lhs.rank < rhs.rank }
        if lhs.date != rhs.date { return lhs.date < rhs.date }
        // The ids' bytes sort as their text does, without making strings.
        return withUnsafeBytes(of: lhs.id.uuid) { left in
            withUnsafeBytes(of: rhs.id.uuid) { right in left.lexicographicallyPrecedes(right) }
        }
    }
}

extension Sequence<AlarmRecord> {
    /// The records in `AlarmDisplayOrder` (sorting small keys, not whole records).
    package func sortedForDisplay() -> [AlarmRecord] {
        let records = Array(self)
        let keys = records.map(AlarmDisplayOrder.init)
        return keys.indices.sorted { keys[$0] < keys[$1] }.map { records[$0] }
    }
}
