import ReveilleKit

/// The recipe a timer belongs to: on iOS an App Intents `AppEntity` (with its display
/// representation and query, which Linux has no use for), named to the system with
/// `appEntityIdentifier:`. ReveilleKit keeps that identifier in the configuration and sends it nowhere.
struct RecipeEntity: AppEntity {
    let id: UUID
    let name: String

    static let softBoiledEggs = RecipeEntity(id: UUID(), name: "Soft-boiled eggs")
}
