import FoundationEssentials

/// Any JSON value, decoded only to prove that text is JSON (`AlarmRequest.metadata`).
package struct JSONText: Decodable {
    /// Whether `text` is one JSON value of any kind, scalars included.
    package static func isValid(_ text: String) -> Bool {
        (try? JSONDecoder().decode(JSONText.self, from: Data(text.utf8))) != nil
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    package init(from decoder: Decoder) throws {
        if let object = try? decoder.container(keyedBy: AnyKey.self) {
            for key in object.allKeys { _ = try object.decode(JSONText.self, forKey: key) }
        } else if var array = try? decoder.unkeyedContainer() {
            while !array.isAtEnd { _ = try array.decode(JSONText.self) }
        } else {
            let value = try decoder.singleValueContainer()
            guard value.decodeNil() || (try? value.decode(Bool.self)) != nil || (try? value.decode(Double.self)) != nil
                    || (try? value.decode(String.self)) != nil else {
                throw DecodingError.dataCorruptedError(in: value, debugDescription: "not a JSON value")
            }
        }
    }
}
