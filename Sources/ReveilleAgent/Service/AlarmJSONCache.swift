import FoundationEssentials
import ReveilleBus
import ReveilleCore

/// Each alarm's JSON, kept until the alarm changes: listing 10,000 alarms is then a
/// concatenation rather than 10,000 encodings. One alarm per line (`JSONLines`), each as
/// `JSONCoding.compactEncoder` writes it.
@GLibActor
final class AlarmJSONCache {
    private var encoded: [UUID: String] = [:]
    private let encoder = JSONCoding.compactEncoder

    /// Forgets the alarms that changed or ended.
    func forget(_ changes: [AlarmChange]) {
        for change in changes { encoded[change.id] = nil }
    }

    /// The JSON array of `records`.
    func array(_ records: [AlarmRecord]) throws -> String {
        var parts: [String] = []
        parts.reserveCapacity(records.count)
        for record in records {
            if let cached = encoded[record.id] {
                parts.append(cached)
            } else {
                let json = String(decoding: try encoder.encode(record), as: UTF8.self)
                encoded[record.id] = json
                parts.append(json)
            }
        }
        return JSONLines.array(parts)
    }
}
