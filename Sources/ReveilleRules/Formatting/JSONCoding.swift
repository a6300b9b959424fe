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
            // A time without its zone is a different instant in each: read as UTC, an app's
            // 18:00 rang at 19:00 in Berlin. Every date Reveille writes has one.
            guard hasZone(text) else {
                throw DecodingError.dataCorruptedError(in: container,
                    debugDescription: "'\(text.prefix(40))' has no time zone; give one, like 2026-12-24T17:00:00Z or 2026-12-24T18:00:00+01:00")
            }
            guard let date = ISO8601Local.parse(text, defaultTimeZone: UTCTimeZone()) else {
                throw DecodingError.dataCorruptedError(in: container,
                    debugDescription: "'\(text)' is not an ISO 8601 date like 2026-12-24T17:00:00Z")
            }
            return date
        }
        return decoder
    }

    /// Whether ISO 8601 text names its zone after the time: `Z`, or an offset. By bytes, not
    /// a Regex: it runs for every date of every stored alarm as the agent starts.
    static func hasZone(_ text: String) -> Bool {
        let bytes = text.utf8
        guard let time = bytes.firstIndex(where: { $0 == UInt8(ascii: "T") || $0 == UInt8(ascii: "t") || $0 == UInt8(ascii: " ") }) else {
            return false
        }
        let rest = bytes[time...]
        return rest.last == UInt8(ascii: "Z") || rest.last == UInt8(ascii: "z")
            || rest.contains(UInt8(ascii: "+")) || rest.contains(UInt8(ascii: "-"))
    }
}
