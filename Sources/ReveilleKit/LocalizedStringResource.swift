import FoundationEssentials
public import ReveilleModel

/// A string to show, with the key it is translated under: AlarmKit's titles and button texts
/// are `LocalizedStringResource`s, and so are ReveilleKit's. Written as a literal
/// (`"Wake up"`), with interpolation (`"Boil \(minutes) min"`, key `"Boil %@ min"`), or with an
/// explicit key and default value.
///
/// The agent shows `defaultValue` (the text with its interpolations filled in); the key and
/// table travel with it for translation catalogs.
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
