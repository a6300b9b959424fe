/// App Intents' `AppEntity`, as far as Linux has one: something of the app's with a stable
/// `id`, named by an `EntityIdentifier`. Nothing on Linux looks entities up.
public protocol AppEntity: Identifiable, Sendable {}

/// App Intents' `EntityIdentifier`: which of the app's entities (a recipe, a workout) an alarm
/// belongs to, as iOS 27's `AlarmConfiguration(appEntityIdentifier:)` takes it. Linux has no
/// App Intents to hand it to, so `AlarmManager` keeps it in the configuration and sends it nowhere.
public struct EntityIdentifier: Hashable, Sendable, CustomStringConvertible {
    /// The type of entity identified.
    public let entityType: any AppEntity.Type
    /// The entity's `id`, as text.
    public let identifier: String

    /// The entity of type `entityType` whose `id` is `identifier`.
    public init<Entity: AppEntity>(for entityType: Entity.Type, identifier: Entity.ID) {
        self.entityType = entityType
        self.identifier = String(describing: identifier)
    }

    /// The identifier of `entity`.
    public init<Entity: AppEntity>(for entity: Entity) {
        self.init(for: Entity.self, identifier: entity.id)
    }

    public var description: String { "\(entityType)/\(identifier)" }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.entityType == rhs.entityType && lhs.identifier == rhs.identifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(entityType))
        hasher.combine(identifier)
    }
}
