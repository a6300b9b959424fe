import FoundationEssentials

/// One alarm's new value, or its end (`record == nil`): what the store journals and what
/// the agent's parts are told after each change.
public struct AlarmChange: Sendable {
    public var id: UUID
    public var record: AlarmRecord?

    public init(id: UUID, record: AlarmRecord?) {
        self.id = id
        self.record = record
    }
}
