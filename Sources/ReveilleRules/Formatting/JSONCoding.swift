import FoundationEssentials

/// The one JSON dialect of Reveille's store and wire: sorted keys, dates as ISO 8601 UTC
/// with milliseconds (so a timer does not lose its fraction of a second on a restart).
package enum JSONCoding {
    package static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ISO8601Local.utcString(from: date))
        }
        return encoder
    }

    /// The same dialect on one line, for D-Bus and `--json` streams.
    package static var compactEncoder: JSONEncoder {
        let encoder = Self.encoder
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    package static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = ISO8601Local.parse(text, defaultTimeZone: UTCTimeZone()) else {
                throw DecodingError.dataCorruptedError(in: container,
                    debugDescription: "'\(text)' is not an ISO 8601 date like 2026-12-24T17:00:00Z")
            }
            return date
        }
        return decoder
    }
}
