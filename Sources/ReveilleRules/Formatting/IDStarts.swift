import FoundationEssentials

/// How much of each alarm id to show so that the ids shown tell their alarms apart: 8
/// characters, more where ids share them (an app may choose its ids), never ending on a hyphen.
package enum IDStarts {
    /// The length for `ids` (lower-case UUID text).
    package static func length(for ids: [String]) -> Int {
        let sorted = ids.sorted()
        let shared = zip(sorted, sorted.dropFirst()).map { pair in zip(pair.0, pair.1).prefix { $0 == $1 }.count }.max() ?? 0
        var length = max(8, shared + 1)
        while let first = sorted.first, length < first.count, first[first.index(first.startIndex, offsetBy: length - 1)] == "-" {
            length += 1
        }
        return length
    }

    /// Each of `ids`' starts (lower-case), sorted.
    package static func distinct(_ ids: [UUID]) -> [String] {
        let texts = ids.map { $0.uuidString.lowercased() }.sorted()
        let length = length(for: texts)
        return texts.map { String($0.prefix(length)) }
    }
}
