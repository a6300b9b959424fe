import ReveilleKit

/// The app's data carried with each alarm (AlarmKit's `AlarmMetadata`).
struct CookingData: AlarmMetadata {
    let createdAt: Date
    let method: Method?

    init(method: Method? = nil) {
        createdAt = Date()
        self.method = method
    }

    enum Method: String, Codable {
        case stove, oven, frying
    }
}
