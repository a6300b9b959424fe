import FoundationEssentials
import ReveilleModel

/// The order in which alarms are listed: alerting first, then counting down, scheduled and
/// paused, each by the instant it next acts, then by id. The agent's `List` and a client
/// that keeps its own copy up to date from `AlarmsUpdated` sort the same way.
package struct AlarmDisplayOrder: Comparable, Sendable {
    var rank: Int
    var date: Date
    var id: UUID

    package init(_ record: some DisplayOrdered) {
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

/// What the display order reads of an alarm: a whole record, or a listing of one.
package protocol DisplayOrdered {
    var state: Alarm.State { get }
    var fireDate: Date? { get }
    var id: UUID { get }
}

extension AlarmRecord: DisplayOrdered {}

extension AlarmListing: DisplayOrdered {
    package var state: Alarm.State { alarm.state }
}

extension AlarmDisplayOrder {
    /// The positions of `keys` in display order (sorting small keys, not whole records).
    package static func order(_ keys: [AlarmDisplayOrder]) -> [Int] {
        keys.indices.sorted { keys[$0] < keys[$1] }
    }
}

// Concrete for each kind, so the sort is specialized here rather than run generically in the
// CLI (unspecialized, its metadata lookups were a tenth of `reveille list`'s time).
extension Sequence<AlarmRecord> {
    /// The records in `AlarmDisplayOrder`.
    package func sortedForDisplay() -> [AlarmRecord] {
        let records = Array(self)
        return AlarmDisplayOrder.order(records.map(AlarmDisplayOrder.init)).map { records[$0] }
    }
}

extension Sequence<AlarmListing> {
    /// The listings in `AlarmDisplayOrder`.
    package func sortedForDisplay() -> [AlarmListing] {
        let listings = Array(self)
        return AlarmDisplayOrder.order(listings.map(AlarmDisplayOrder.init)).map { listings[$0] }
    }
}
