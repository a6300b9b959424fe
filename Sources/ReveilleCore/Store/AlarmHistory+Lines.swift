import FoundationEssentials
import ReveilleRules

/// A history's lines: what one holds, which are read back, and what a client is shown.
extension AlarmHistory {
    /// The entry's line as the file holds it, newline included; throws when it would pass
    /// `maximumLineBytes`.
    package static func line(_ entry: Entry) throws -> Data {
        var line = try JSONCoding.compactEncoder.encode(entry)
        guard line.count < maximumLineBytes else {
            throw StoreError("a history entry of \(line.count) bytes is more than the \(maximumLineBytes) one line may take")
        }
        line.append(UInt8(ascii: "\n"))
        return line
    }

    /// The file's bytes for these entries, one line each.
    package func encoded() throws -> Data {
        var data = Data()
        data.reserveCapacity(bytes)
        for entry in entries { data.append(try Self.line(entry)) }
        return data
    }

    // MARK: Reading

    /// What a file's bytes held.
    package struct Decoded: Sendable {
        package var history = AlarmHistory()
        /// Lines that could not be read (each skipped alone), by number from 1.
        package var damagedLines: [Int] = []
        /// The last line had no newline (an append a crash cut short; dropped unless it reads).
        package var tornTail = false
        /// The entries read were past a bound and trimmed.
        package var trimmed = false

        /// Whether the file should be rewritten from `history`.
        package var needsRewrite: Bool { !damagedLines.isEmpty || tornTail || trimmed }
    }

    /// Reads a history file's bytes fed in chunks: each line is one entry; a line that does
    /// not decode (or is longer than `maximumLineBytes`) is skipped alone. Memory stays within
    /// the bounds whatever the file's size: past them, the oldest entries are dropped.
    package struct Reader: Sendable {
        private var splitter = LineSplitter(maximumLineBytes: AlarmHistory.maximumLineBytes)
        private var decoded = Decoded()

        package init() {}

        package mutating func feed(_ chunk: UnsafeRawBufferPointer) {
            var pieces: [(LineSplitter.Piece, Int)] = []
            splitter.feed(chunk) { pieces.append(($0, $1)) }
            for (piece, number) in pieces { take(piece, number) }
        }

        package mutating func finish() -> Decoded {
            if let last = splitter.finish() {
                decoded.tornTail = true
                take(last, splitter.linesSeen + 1)
            }
            return decoded
        }

        private mutating func take(_ piece: LineSplitter.Piece, _ number: Int) {
            guard case .line(let bytes) = piece else { return decoded.damagedLines.append(number) }
            if bytes.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") }) { return }
            guard let entry = try? JSONCoding.decoder.decode(Entry.self, from: Data(bytes)) else {
                return decoded.damagedLines.append(number)
            }
            if decoded.history.append(entry, lineBytes: bytes.count + 1) {
                decoded.history.trim()
                decoded.trimmed = true
            }
        }
    }

    /// The entries in `bytes` (a file's whole content).
    package static func decode(_ bytes: some Collection<UInt8>) -> Decoded {
        var reader = Reader()
        Array(bytes).withUnsafeBytes { reader.feed($0) }
        return reader.finish()
    }

    // MARK: Views

    /// The entries `appID` may see (`nil`: the user, who sees all), newest first, as a JSON
    /// array of at most `maximumBytes`: the newest that fit.
    package func json(for appID: String?, maximumBytes: Int) throws -> String {
        var lines: [String] = []
        var total = 2
        for entry in entries.reversed() where appID == nil || entry.appID == appID {
            let line = String(decoding: try JSONCoding.compactEncoder.encode(entry), as: UTF8.self)
            guard total + line.utf8.count + 2 <= maximumBytes else { break }
            total += line.utf8.count + 2
            lines.append(line)
        }
        return JSONLines.array(lines)
    }
}
