import FoundationEssentials

/// App data carried with an alarm; may be an empty struct.
public protocol AlarmMetadata: Codable, Hashable, Sendable {}

/// Metadata for alarms that carry none.
public struct EmptyAlarmMetadata: AlarmMetadata {
    public init() {}
}

/// What an alarm shows, the app's data, and its tint.
public struct AlarmAttributes<Metadata: AlarmMetadata>: Codable, Hashable, Sendable {
    /// What a live presentation of the alarm shows (ActivityKit's name, as in AlarmKit).
    public typealias ContentState = AlarmPresentationState

    public var presentation: AlarmPresentation
    public var metadata: Metadata?
    public var tintColor: Color

    public init(presentation: AlarmPresentation, metadata: Metadata? = nil, tintColor: Color) {
        self.presentation = presentation
        self.metadata = metadata
        self.tintColor = tintColor
    }
}

/// The alert sound of an alarm configuration.
public enum AlertConfiguration {
    public enum AlertSound: Hashable, Sendable {
        /// Reveille's default alarm sound.
        case `default`
        /// A sound looked up by name in the sound folders (see `reveille sounds`).
        case named(String)
    }
}

// Stored as "default" or {"named": "bell"}.
extension AlertConfiguration.AlertSound: Codable {
    private enum CodingKeys: String, CodingKey { case named }

    public init(from decoder: Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let text = try? single.decode(String.self) {
            guard text == "default" else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                    debugDescription: "a sound is \"default\" or {\"named\": NAME}"))
            }
            self = .default
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self = .named(try container.decode(String.self, forKey: .named))
    }

    public func encode(to encoder: Encoder) throws {
        switch self {
        case .default:
            var single = encoder.singleValueContainer()
            try single.encode("default")
        case .named(let name):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .named)
        }
    }
}
