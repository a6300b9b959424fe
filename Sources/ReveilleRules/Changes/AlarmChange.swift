import FoundationEssentials

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
