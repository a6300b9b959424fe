import FoundationEssentials

/// A JSON value as a client sent it: objects keep their keys in order, numbers their text.
package indirect enum JSONValue: Equatable, Sendable {
    case object([Member])
    case array([JSONValue])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    package struct Member: Equatable, Sendable {
        package var key: String
        package var value: JSONValue
    }

    /// This value with the one at `steps` replaced by `replacement` (only the values on the
    /// way there are copied); itself where `steps` lead nowhere.
    package func replacing(at steps: ArraySlice<StrictJSON.Step>, with replacement: JSONValue) -> JSONValue {
        guard let step = steps.first else { return replacement }
        switch (self, step) {
        case (.object(var members), .key(let key)):
            guard let index = members.firstIndex(where: { $0.key == key }) else { return self }
            members[index].value = members[index].value.replacing(at: steps.dropFirst(), with: replacement)
            return .object(members)
        case (.array(var values), .index(let index)) where values.indices.contains(index):
            values[index] = values[index].replacing(at: steps.dropFirst(), with: replacement)
            return .array(values)
        default:
            return self
        }
    }

    /// The value at `steps`, if they lead somewhere.
    package func value(at steps: ArraySlice<StrictJSON.Step>) -> JSONValue? {
        guard let step = steps.first else { return self }
        switch (self, step) {
        case (.object(let members), .key(let key)): return members.first { $0.key == key }?.value.value(at: steps.dropFirst())
        case (.array(let values), .index(let index)) where values.indices.contains(index): return values[index].value(at: steps.dropFirst())
        default: return nil
        }
    }

    /// The JSON text of this value, on one line.
    package var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .object(let members):
            out += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { out += "," }
                Self.quote(member.key, to: &out)
                out += ":"
                member.value.write(to: &out)
            }
            out += "}"
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(to: &out)
            }
            out += "]"
        case .string(let text): Self.quote(text, to: &out)
        case .number(let text): out += text
        case .bool(let value): out += value ? "true" : "false"
        case .null: out += "null"
        }
    }

    private static func quote(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}

/// Reads JSON text strictly (RFC 8259), for what clients send: an object that names a key
/// twice is refused, not read as whichever one a decoder keeps (Foundation keeps the first),
/// and every refusal says where. Nesting is bounded (`maximumDepth`), so no input can
/// exhaust the stack.
package enum StrictJSON {
    package static let maximumDepth = 64

    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// Not JSON text: at `offset` (bytes from the start), `expected` was due.
        case syntax(offset: Int, expected: String)
        /// An object at `path` names `key` more than once.
        case repeatedKey(String, path: String)
        /// Nested deeper than `maximumDepth` at `path`.
        case tooDeep(path: String)

        package var description: String {
            switch self {
            case .syntax(let offset, let expected): "not JSON text: at byte \(offset), \(expected) was due"
            case .repeatedKey(let key, let path):
                "'\(key.prefix(40))' is given twice in \(path.isEmpty ? "the top object" : path); each key once"
            case .tooDeep(let path): "nested more than \(StrictJSON.maximumDepth) deep at \(path.isEmpty ? "the top" : path)"
            }
        }
    }

    /// The value `text` holds.
    package static func parse(_ text: String) throws(Failure) -> JSONValue {
        var reader = Reader(bytes: Array(text.utf8))
        let value = try reader.value()
        reader.skipWhitespace()
        guard reader.offset == reader.bytes.count else { throw .syntax(offset: reader.offset, expected: "the end of the text") }
        return value
    }

    /// A place in a value: a key of an object, or an index of an array.
    package enum Step: Equatable, Sendable {
        case key(String)
        case index(Int)
    }

    /// The first `limit` numbers of `value` that not every field can hold (a fraction, an
    /// exponent, more than 15 digits), in the order they stand, each with its place. Bounded,
    /// so that a configuration of 16,000 numbers costs no more than one of 16.
    package static func unusualNumbers(in value: JSONValue, limit: Int = 16) -> [(steps: [Step], text: String)] {
        var found: [(steps: [Step], text: String)] = []
        var pending: [(steps: [Step], value: JSONValue)] = [([], value)]
        while found.count < limit, let (steps, value) = pending.popLast().map({ ($0.steps, $0.value) }) {
            switch value {
            case .number(let text) where text.contains(where: { ".eE".contains($0) }) || text.filter(\.isNumber).count > 15:
                found.append((steps, text))
            case .object(let members):
                pending += members.reversed().map { (steps + [.key($0.key)], $0.value) }
            case .array(let values):
                pending += values.indices.reversed().map { (steps + [.index($0)], values[$0]) }
            default:
                break
            }
        }
        return found
    }

    /// `steps` as a path for a message (`schedule.relative.time.hour`, `repeats[2]`), at most
    /// 200 characters: its keys are the client's.
    package static func path(_ steps: [Step]) -> String {
        let text = steps.reduce("") { path, step in
            switch step {
            case .key(let key): path.isEmpty ? key : path + "." + key
            case .index(let index): "\(path)[\(index)]"
            }
        }
        return text.count > 200 ? text.prefix(200) + "…" : text
    }

    /// The key of `known` that `key` is a slip of: the same but for case, or at most two
    /// letters off (`Schedule`, `sund`, `volum`); `nil` for one of them or another word.
    package static func slip(_ key: String, of known: [String]) -> String? {
        guard !known.contains(key) else { return nil }
        return known.first { $0.lowercased() == key.lowercased() }
            ?? known.first { key.count >= 3 && editDistance(Array(key.lowercased()), Array($0.lowercased()), atMost: 2) <= 2 }
    }

    /// Levenshtein's distance, or more than `limit` once it must be (keys are short; a client's
    /// long key is cut short at once).
    static func editDistance(_ a: [Character], _ b: [Character], atMost limit: Int) -> Int {
        guard abs(a.count - b.count) <= limit else { return limit + 1 }
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            guard current.min()! <= limit else { return limit + 1 }
            previous = current
        }
        return previous[b.count]
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func skipWhitespace() {
            while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
        }

        /// Where the reader is: the keys and indexes on the way there, said only in a refusal.
        var steps: [Step] = []

        mutating func value() throws(Failure) -> JSONValue {
            skipWhitespace()
            guard offset < bytes.count else { throw .syntax(offset: offset, expected: "a value") }
            switch bytes[offset] {
            case UInt8(ascii: "{"):
                guard steps.count < maximumDepth else { throw .tooDeep(path: StrictJSON.path(steps)) }
                return try object()
            case UInt8(ascii: "["):
                guard steps.count < maximumDepth else { throw .tooDeep(path: StrictJSON.path(steps)) }
                return try array()
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            default: return .number(try number())
            }
        }

        mutating func object() throws(Failure) -> JSONValue {
            offset += 1
            var members: [JSONValue.Member] = []
            var keys: Set<String> = []
            skipWhitespace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
                offset += 1
                return .object([])
            }
            while true {
                skipWhitespace()
                guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw .syntax(offset: offset, expected: "a key in quotes") }
                let key = try string()
                guard keys.insert(key).inserted else { throw .repeatedKey(key, path: StrictJSON.path(steps)) }
                skipWhitespace()
                try expect(":", "':' after a key")
                steps.append(.key(key))
                members.append(.init(key: key, value: try value()))
                steps.removeLast()
                guard try another(before: "}") else { return .object(members) }
            }
        }

        /// After a member or an element: `,` (another follows) or `closing` (the end).
        mutating func another(before closing: Character) throws(Failure) -> Bool {
            skipWhitespace()
            guard offset < bytes.count else { throw .syntax(offset: offset, expected: "',' or '\(closing)'") }
            offset += 1
            switch bytes[offset - 1] {
            case UInt8(ascii: ","): return true
            case closing.asciiValue!: return false
            default: throw .syntax(offset: offset - 1, expected: "',' or '\(closing)'")
            }
        }

        mutating func array() throws(Failure) -> JSONValue {
            offset += 1
            var values: [JSONValue] = []
            skipWhitespace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
                offset += 1
                return .array([])
            }
            while true {
                steps.append(.index(values.count))
                values.append(try value())
                steps.removeLast()
                guard try another(before: "]") else { return .array(values) }
            }
        }

        mutating func string() throws(Failure) -> String {
            let start = offset
            offset += 1
            var scalars = String.UnicodeScalarView()
            var run = offset
            func flush(_ end: Int) { scalars.append(contentsOf: String(decoding: bytes[run..<end], as: UTF8.self).unicodeScalars) }
            while offset < bytes.count {
                let byte = bytes[offset]
                if byte == UInt8(ascii: "\"") {
                    flush(offset)
                    offset += 1
                    return String(scalars)
                }
                guard byte >= 0x20 else { throw .syntax(offset: offset, expected: "a control character escaped (\\n, \\u0001)") }
                guard byte == UInt8(ascii: "\\") else {
                    offset += 1
                    continue
                }
                flush(offset)
                offset += 1
                guard offset < bytes.count else { break }
                let escape = bytes[offset]
                offset += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    let unit = try hex4()
                    if (0xD800...0xDBFF).contains(unit) {
                        // A high surrogate must be followed by its low one: together one scalar.
                        guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") else {
                            throw .syntax(offset: offset, expected: "the low surrogate (\\uDC00–\\uDFFF) after \\u\(String(unit, radix: 16))")
                        }
                        offset += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else {
                            throw .syntax(offset: offset - 6, expected: "a low surrogate (\\uDC00–\\uDFFF)")
                        }
                        scalars.append(Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!)
                    } else if let scalar = Unicode.Scalar(unit) {
                        scalars.append(scalar)
                    } else {
                        throw .syntax(offset: offset - 6, expected: "a character, not a lone low surrogate")
                    }
                default:
                    throw .syntax(offset: offset - 1, expected: "an escape: \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX")
                }
                run = offset
            }
            throw .syntax(offset: start, expected: "a string closed by '\"'")
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            guard offset + 4 <= bytes.count else { throw .syntax(offset: offset, expected: "four hex digits") }
            var unit: UInt32 = 0
            for byte in bytes[offset..<offset + 4] {
                guard let digit = Self.hexDigit(byte) else { throw .syntax(offset: offset, expected: "four hex digits") }
                unit = unit << 4 | digit
            }
            offset += 4
            return unit
        }

        static func hexDigit(_ byte: UInt8) -> UInt32? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
            default: nil
            }
        }

        /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, kept as its text.
        mutating func number() throws(Failure) -> String {
            let start = offset
            func digits() -> Int {
                let first = offset
                while offset < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]) { offset += 1 }
                return offset - first
            }
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            let whole = offset
            guard digits() > 0 else { throw .syntax(offset: start, expected: "a value (an object, array, string, number, true, false or null)") }
            guard bytes[whole] != UInt8(ascii: "0") || offset - whole == 1 else { throw .syntax(offset: whole, expected: "a number without leading zeros") }
            if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
                offset += 1
                guard digits() > 0 else { throw .syntax(offset: offset, expected: "digits after '.'") }
            }
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
                offset += 1
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
                guard digits() > 0 else { throw .syntax(offset: offset, expected: "digits of the exponent") }
            }
            return String(decoding: bytes[start..<offset], as: UTF8.self)
        }

        mutating func literal(_ word: String) throws(Failure) {
            let expected = Array(word.utf8)
            guard offset + expected.count <= bytes.count, Array(bytes[offset..<offset + expected.count]) == expected else {
                throw .syntax(offset: offset, expected: "a value (\(word)?)")
            }
            offset += expected.count
        }

        mutating func expect(_ character: Character, _ what: String) throws(Failure) {
            guard offset < bytes.count, bytes[offset] == character.asciiValue! else { throw .syntax(offset: offset, expected: what) }
            offset += 1
        }
    }
}
