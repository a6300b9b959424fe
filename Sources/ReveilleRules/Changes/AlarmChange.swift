import FoundationEssentials
import ReveilleModel

/// One alarm's new value, or its end (`record == nil`): what the store journals and what
/// the agent's parts are told after each change.
package struct AlarmChange: Sendable {
    package var id: UUID
    package var record: AlarmRecord?

    package init(id: UUID, record: AlarmRecord?) {
        self.id = id
        self.record = record
    }
}

package extension Set where Element == UUID {
    /// Keeps the ids of the alarms `changes` leave matching `belongs`, and drops the others;
    /// true when a change concerns the set: an alarm that belongs (new or changed) or one
    /// that left (a follower that shows those alarms then redraws).
    mutating func follow(_ changes: [AlarmChange], keeping belongs: (AlarmRecord) -> Bool) -> Bool {
        var touched = false
        for change in changes {
            if let record = change.record, belongs(record) {
                insert(change.id)
                touched = true
            } else if remove(change.id) != nil {
                touched = true
            }
        }
        return touched
    }
}
