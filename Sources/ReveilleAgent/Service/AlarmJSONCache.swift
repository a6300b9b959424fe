import FoundationEssentials
import ReveilleAgentRuntime
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleModel
import ReveilleRules

/// Each alarm's JSON, kept until the alarm changes: listing 10,000 alarms is then a
/// concatenation rather than 10,000 encodings. One alarm per line (`JSONLines`), each as
/// `JSONCoding.compactEncoder` writes it.
@GLibActor
final class AlarmJSONCache {
    private var encoded: [UUID: String] = [:]
    /// Every alarm's id as text, sorted: `ListPage`'s order, built once after a change rather
    /// than for each page (a 10,000-alarm list is ten pages).
    private var sortedIDs: [(key: String, id: UUID)]?
    private let encoder = JSONCoding.compactEncoder

    /// Forgets the alarms that changed or ended.
    func forget(_ changes: [AlarmChange]) {
        for change in changes { encoded[change.id] = nil }
        if !changes.isEmpty { sortedIDs = nil }
    }

    /// The JSON array of `records`.
    func array(_ records: [AlarmRecord]) throws -> String {
        JSONLines.array(try records.map(encode))
    }

    /// `records` as JSON arrays of at most `maximumBytes` each (one alarm over it still makes a
    /// page of its own: a stored alarm is bounded by `WireLimits.configurationBytes`).
    func pages(_ records: [AlarmRecord], maximumBytes: Int) throws -> [(json: String, count: Int)] {
        var pages: [(json: String, count: Int)] = []
        var rest = records[...]
        while !rest.isEmpty {
            let (json, count) = try page(of: rest, limit: rest.count, maximumBytes: maximumBytes)
            pages.append((json, count))
            rest = rest.dropFirst(count)
        }
        return pages
    }

    /// `ListPage`: the records (`owner`'s when given) whose id sorts after `after` (any case), in id order,
    /// at most `limit` and `maximumBytes`; `next` is the last id given, or "" when none is left.
    func page(of alarms: AlarmTable, owner: String?, after: String, limit: Int,
              maximumBytes: Int) throws -> (json: String, next: String) {
        if sortedIDs == nil || sortedIDs?.count != alarms.records.count {
            sortedIDs = alarms.records.map { (key: $0.id.uuidString, id: $0.id) }.sorted { $0.key < $1.key }
        }
        let keys = sortedIDs ?? []
        // The keys are `UUID.uuidString`s, upper case; a client may hand back any case (the CLI
        // shows ids in lower case, and every other call reads them so).
        let after = after.uppercased()
        // The first id after `after`, found by halving.
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle].key <= after { low = middle + 1 } else { high = middle }
        }
        let candidates = keys[low...].lazy.compactMap { entry -> AlarmRecord? in
            alarms[entry.id].flatMap { owner == nil || $0.appID == owner ? $0 : nil }
        }
        let selected = Array(candidates.prefix(max(1, limit) + 1))
        let (json, count) = try page(of: selected.prefix(max(1, limit))[...], limit: limit, maximumBytes: maximumBytes)
        return (json, count < selected.count ? selected[count - 1].id.uuidString : "")
    }

    private func page(of records: ArraySlice<AlarmRecord>, limit: Int, maximumBytes: Int) throws -> (json: String, count: Int) {
        var parts: [String] = []
        var bytes = 2
        for record in records.prefix(max(1, limit)) {
            let json = try encode(record)
            guard parts.isEmpty || bytes + json.utf8.count + 2 <= maximumBytes else { break }
            bytes += json.utf8.count + 2
            parts.append(json)
        }
        return (JSONLines.array(parts), parts.count)
    }

    private func encode(_ record: AlarmRecord) throws -> String {
        if let cached = encoded[record.id] { return cached }
        let json = String(decoding: try encoder.encode(record), as: UTF8.self)
        encoded[record.id] = json
        return json
    }
}

extension Collection {
    /// The collection in consecutive slices of `size` elements (the last may be shorter).
    func chunks(of size: Int) -> [SubSequence] {
        stride(from: 0, to: count, by: size).map { offset in
            let start = index(startIndex, offsetBy: offset)
            return self[start..<(index(start, offsetBy: size, limitedBy: endIndex) ?? endIndex)]
        }
    }
}
