import FoundationEssentials

/// A string to show, with the key it is translated under: AlarmKit's titles and button texts
/// are `LocalizedStringResource`s, and so are ReveilleKit's. Written as a literal
/// (`"Wake up"`), with interpolation (`"Boil \(minutes) min"`, key `"Boil %@ min"`), or with an
/// explicit key and default value.
///
/// Only the text shown (`defaultValue`, its interpolations filled in) travels to the agent and
/// is stored: it encodes as that plain JSON string, the shape titles and button texts have
/// always had, so old stores and clients read it and new ones read theirs. The key and table
/// stay with the app that made the resource; one read back from the agent has its text as key.
/// For the same reason two resources are equal when they show the same text: a presentation
/// equals itself after a trip through the agent.
public struct LocalizedStringResource: Hashable, Sendable, Codable, ExpressibleByStringInterpolation,
    CustomStringConvertible {
    /// The key a translation catalog looks the text up under.
    public var key: String
    /// The text shown when no translation applies.
    public var defaultValue: String
    /// The catalog (table) the key belongs to; `nil` for the default one.
    public var table: String?

    /// A resource whose key is `key`, shown as `defaultValue` (the key itself when `nil`).
    public init(_ key: String, defaultValue: String? = nil, table: String? = nil, comment: String? = nil) {
        self.key = key
        self.defaultValue = defaultValue ?? key
        self.table = table
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    public init(stringInterpolation: StringInterpolation) {
        key = stringInterpolation.key
        defaultValue = stringInterpolation.value
        table = nil
    }

    public var description: String { defaultValue }

    /// Reads the plain string every title and button text has been, or the object
    /// ReveilleKit's resource encoded as before it was one (`key`, `defaultValue`, `table`),
    /// which an app's own metadata may hold.
    public init(from decoder: Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            self.init(text)
            return
        }
        guard let fields = try? decoder.container(keyedBy: Fields.self),
              let defaultValue = try? fields.decode(String.self, forKey: .defaultValue) else {
            throw DecodingError.typeMismatch(String.self, .init(codingPath: decoder.codingPath,
                debugDescription: "a text is a JSON string, such as \"Wake up\""))
        }
        self.init((try? fields.decode(String.self, forKey: .key)) ?? defaultValue, defaultValue: defaultValue,
                  table: try? fields.decode(String.self, forKey: .table))
    }

    private enum Fields: String, CodingKey { case key, defaultValue, table }

    /// Writes the text shown as a plain string (see the type's comment).
    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(defaultValue)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.defaultValue == rhs.defaultValue
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(defaultValue)
    }

    /// Builds the key (each interpolation as `%@`) and the text together.
    public struct StringInterpolation: StringInterpolationProtocol {
        var key = ""
        var value = ""

        public init(literalCapacity: Int, interpolationCount: Int) {
            key.reserveCapacity(literalCapacity + 2 * interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) {
            key += literal.replacing("%", with: "%%")
            value += literal
        }

        public mutating func appendInterpolation<Value>(_ value: Value) {
            key += "%@"
            self.value += String(describing: value)
        }
    }
}

extension String {
    /// The text of `resource` as shown (AlarmKit apps write `String(localized:)`).
    public init(localized resource: LocalizedStringResource) {
        self = resource.defaultValue
    }
}
