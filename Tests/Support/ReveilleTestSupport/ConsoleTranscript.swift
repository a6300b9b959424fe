import Foundation

/// A terminal session written in Markdown, as a reader sees it: a fenced block of kind
/// `console` whose lines `$ COMMAND` are followed by what the command prints. The
/// documentation's examples are these blocks, read from the files and run (DocExamplesTests),
/// so an example that no longer holds fails the tests.
///
/// In the expected output, as in trycmd and cram:
/// - `[..]` stands for anything within a line (a date relative to now, a path);
/// - a line `...` stands for any number of lines, none included;
/// - an alarm id (8 hexadecimal digits, at least one a digit) stands for whatever id the agent
///   gave, the same one wherever the example names it; a command's argument that starts one
///   of those ids (`reveille edit 67ca`, 3 digits or more) is given the same start of the real id.
public struct ConsoleTranscript: Sendable {
    /// One command and what it should print.
    public struct Step: Sendable, Equatable {
        /// `NAME=value` words before the program, as a shell reads them.
        public var assignments: [String: String]
        /// The program and its arguments, split as a shell splits them.
        public var words: [String]
        /// The command as written, for messages.
        public var line: String
        /// The expected output, one element per line.
        public var expected: [String]
    }

    /// Where the block starts: the file (relative to the repository) and its line (from 1).
    public var file: String
    public var line: Int
    public var steps: [Step]

    /// `FILE:LINE`, how a failure names the example.
    public var testDescription: String { "\(file):\(line)" }

    /// Every `console` block of `markdown`, or the reason one cannot be read.
    public static func blocks(in markdown: String, file: String) throws -> [ConsoleTranscript] {
        var blocks: [ConsoleTranscript] = []
        let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var index = 0
        while index < lines.count {
            let opening = lines[index]
            let indent = opening.prefix { $0 == " " }.count
            guard opening.dropFirst(indent) == "```console" else { index += 1; continue }
            let start = index + 1
            index += 1
            var body: [String] = []
            while index < lines.count, lines[index].dropFirst(indent) != "```" {
                body.append(String(lines[index].dropFirst(min(indent, lines[index].prefix { $0 == " " }.count))))
                index += 1
            }
            guard index < lines.count else { throw ReadError("\(file):\(start): a console block is never closed") }
            index += 1
            blocks.append(ConsoleTranscript(file: file, line: start, steps: try steps(of: body, at: "\(file):\(start)")))
        }
        return blocks
    }

    private static func steps(of body: [String], at place: String) throws -> [Step] {
        var steps: [Step] = []
        for line in body {
            if line.hasPrefix("$ ") {
                let command = String(line.dropFirst(2))
                var words = try shellWords(command, at: place)
                var assignments: [String: String] = [:]
                while let first = words.first, let equals = first.firstIndex(of: "="),
                      first[..<equals].allSatisfy({ $0.isLetter || $0 == "_" }), !first[..<equals].isEmpty {
                    assignments[String(first[..<equals])] = String(first[first.index(after: equals)...])
                    words.removeFirst()
                }
                guard !words.isEmpty else { throw ReadError("\(place): `$ \(command)` runs no program") }
                steps.append(Step(assignments: assignments, words: words, line: command, expected: []))
            } else {
                guard !steps.isEmpty else { throw ReadError("\(place): a console block starts with output, not a `$ ` command: \(line)") }
                steps[steps.count - 1].expected.append(line)
            }
        }
        guard !steps.isEmpty else { throw ReadError("\(place): a console block without a `$ ` command") }
        return steps
    }

    /// `command` split into words as a POSIX shell does for what documentation writes: spaces
    /// separate, `'…'` and `"…"` group, a backslash outside single quotes keeps the next character.
    /// Anything a shell would expand (`$`, a backquote, a glob, a pipe) is refused: an example
    /// must mean what it says without a shell.
    public static func shellWords(_ command: String, at place: String = "") throws -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        for character in command {
            if escaped { word.append(character); escaped = false; continue }
            if let open = quote {
                if character == open { quote = nil } else if character == "\\" && open == "\"" { escaped = true } else {
                    if open == "\"" && (character == "$" || character == "`") {
                        throw ReadError("\(place): `\(command)` needs a shell (\(character)); write it without one")
                    }
                    word.append(character)
                }
                continue
            }
            switch character {
            case " ", "\t":
                if inWord { words.append(word); word = ""; inWord = false }
            case "'", "\"":
                quote = character; inWord = true
            case "\\":
                escaped = true; inWord = true
            case "$", "`", "|", "&", ";", "<", ">", "*", "?", "(", ")":
                throw ReadError("\(place): `\(command)` needs a shell (\(character)); write it without one")
            default:
                word.append(character); inWord = true
            }
        }
        guard quote == nil, !escaped else { throw ReadError("\(place): `\(command)` has an open quote or a trailing backslash") }
        if inWord { words.append(word) }
        return words
    }

    public struct ReadError: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }
}

/// Matches a command's real output against an example's expected lines, and keeps which real
/// alarm id each id the example shows stands for.
public struct TranscriptMatcher {
    /// The example's id → the real id, and back (one real id per example id, and the reverse).
    public private(set) var ids: [String: String] = [:]
    private var reverse: [String: String] = [:]

    public init() {}

    /// Whether `actual` (the output's lines) is what `expected` describes; on a match the ids it
    /// showed are bound for the next steps.
    public mutating func matches(_ expected: [String], _ actual: [String]) -> Bool {
        guard let bound = Self.match(expected[...], actual[...], ids, reverse) else { return false }
        (ids, reverse) = bound
        return true
    }

    /// `words` with each argument that starts an id the example showed changed to the same
    /// start of the real id.
    public func substituting(_ words: [String]) -> [String] {
        words.map { word in
            guard word.count >= 3, word.count <= 8, word.allSatisfy(\.isHexDigit), word == word.lowercased(),
                  let real = ids.first(where: { $0.key.hasPrefix(word) })?.value
            else { return word }
            return String(real.prefix(word.count))
        }
    }

    private typealias Bindings = (forward: [String: String], reverse: [String: String])

    private static func match(_ expected: ArraySlice<String>, _ actual: ArraySlice<String>,
                              _ forward: [String: String], _ reverse: [String: String]) -> Bindings? {
        guard let first = expected.first else { return actual.isEmpty ? (forward, reverse) : nil }
        if first == "..." {
            var rest = actual
            while true {
                if let found = match(expected.dropFirst(), rest, forward, reverse) { return found }
                guard !rest.isEmpty else { return nil }
                rest = rest.dropFirst()
            }
        }
        guard let line = actual.first, let bound = matchLine(first, line, forward, reverse) else { return nil }
        return match(expected.dropFirst(), actual.dropFirst(), bound.forward, bound.reverse)
    }

    /// An example's id: 8 lowercase hexadecimal digits standing alone, at least one of them a digit.
    private static let idPattern = try! NSRegularExpression(pattern: "(?<![0-9A-Za-z])[0-9a-f]{8}(?![0-9A-Za-z])")

    private static func matchLine(_ expected: String, _ actual: String,
                                  _ forward: [String: String], _ reverse: [String: String]) -> Bindings? {
        var pattern = "^"
        var exampleIDs: [String] = []
        for (index, piece) in expected.components(separatedBy: "[..]").enumerated() {
            if index > 0 { pattern += ".*" }
            var cursor = piece.startIndex
            let whole = NSRange(piece.startIndex..., in: piece)
            for found in idPattern.matches(in: piece, range: whole) {
                guard let range = Range(found.range, in: piece), piece[range].contains(where: \.isNumber) else { continue }
                pattern += NSRegularExpression.escapedPattern(for: String(piece[cursor..<range.lowerBound])) + "([0-9a-f]{8})"
                exampleIDs.append(String(piece[range]))
                cursor = range.upperBound
            }
            pattern += NSRegularExpression.escapedPattern(for: String(piece[cursor...]))
        }
        pattern += "$"
        guard let regex = try? NSRegularExpression(pattern: pattern),
              let found = regex.firstMatch(in: actual, range: NSRange(actual.startIndex..., in: actual)) else { return nil }
        var (forward, reverse) = (forward, reverse)
        for (number, example) in exampleIDs.enumerated() {
            guard let range = Range(found.range(at: number + 1), in: actual) else { return nil }
            let real = String(actual[range])
            if let known = forward[example], known != real { return nil }
            if let known = reverse[real], known != example { return nil }
            forward[example] = real
            reverse[real] = example
        }
        return (forward, reverse)
    }
}
