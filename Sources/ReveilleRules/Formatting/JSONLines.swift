import FoundationEssentials

/// A JSON array written one element per line, which stays ordinary JSON for any reader
/// but lets Reveille decode it in parallel: the alarm store's snapshot and the agent's
/// alarm lists. (Compact JSON never holds a raw newline, so each line is one element.)
/// The rules start no thread: the caller says how jobs run at once (`PosixThread.runAll`).
package enum JSONLines {
    /// Runs every job, all at once, and returns when each has finished.
    package typealias RunInParallel = (_ jobs: [@Sendable () -> Void]) -> Void

    /// `[` + the elements, one per line + `]`.
    package static func array(_ elements: [String]) -> String {
        elements.isEmpty ? "[]" : "[\n" + elements.joined(separator: ",\n") + "\n]"
    }

    /// Decodes `data`, an array as `array` writes it, on up to one thread per core; any
    /// other form of the same array (hand-written, pretty-printed) is decoded as usual.
    package static func decode<Element: Decodable & Sendable>(_ type: [Element].Type, from data: Data,
                                                              inParallel: RunInParallel) throws -> [Element] {
        // The processor count is left to `decodeInParallel`: reading it opens cgroup files.
        if let lines = elementLines(data, prefix: "", suffix: ""), lines.count >= 2 * linesPerThread,
           let elements = try? decodeInParallel(Element.self, lines: lines, inParallel: inParallel) {
            return elements
        }
        return try JSONCoding.decoder.decode(type, from: data)
    }

    /// The element lines, when `data` has exactly the shape `array` writes.
    static func elementLines(_ data: Data, prefix: String, suffix: String) -> [Data.SubSequence]? {
        let lines = lineRanges(data).map { data[$0] }
        guard lines.count >= 2, lines.first!.elementsEqual((prefix + "[").utf8),
              lines.last!.elementsEqual(("]" + suffix).utf8) else { return nil }
        return Array(lines.dropFirst().dropLast())
    }

    /// The ranges of `data`'s lines, without their newlines and without an empty last line.
    /// (A scan of the raw bytes: `Data.split` took a tenth of the time of decoding 10,000 alarms.)
    static func lineRanges(_ data: Data) -> [Range<Data.Index>] {
        data.withUnsafeBytes { bytes in
            var ranges: [Range<Data.Index>] = []
            var start = 0
            while start < bytes.count {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
                ranges.append(data.startIndex + start ..< data.startIndex + end)
                start = end + 1
            }
            return ranges
        }
    }

    /// Below this many lines per thread, a thread costs more than it saves.
    static let linesPerThread = 1000

    /// Decodes each line as one `Element`, in chunks on up to one thread per core.
    package static func decodeInParallel<Element: Decodable & Sendable>(_ type: Element.Type, lines: [Data.SubSequence],
                                                                        inParallel: RunInParallel) throws -> [Element] {
        let chunkCount = max(1, min(ProcessInfo.processInfo.activeProcessorCount, lines.count / linesPerThread))
        let chunkSize = (lines.count + chunkCount - 1) / max(1, chunkCount)
        let chunks = stride(from: 0, to: lines.count, by: max(1, chunkSize)).map { start in
            ChunkDecoding<Element>(lines: Array(lines[start..<min(lines.count, start + chunkSize)]))
        }
        inParallel(chunks.map { chunk in { chunk.run() } })
        return try chunks.flatMap { try $0.result!.get() }
    }

    /// One thread's share: its lines, decoded as one array.
    private final class ChunkDecoding<Element: Decodable & Sendable>: @unchecked Sendable {
        let lines: [Data.SubSequence]
        // Written by the one thread that runs `run`, read after that thread is joined.
        var result: Result<[Element], Error>?

        init(lines: [Data.SubSequence]) { self.lines = lines }

        func run() {
            var joined = Data("[".utf8)
            joined.reserveCapacity(lines.reduce(2) { $0 + $1.count + 1 })
            for (index, line) in lines.enumerated() {
                if index > 0 { joined.append(UInt8(ascii: ",")) }
                // `array` ends every line but the last with a comma.
                joined.append(contentsOf: line.last == UInt8(ascii: ",") ? line.dropLast() : line)
            }
            joined.append(UInt8(ascii: "]"))
            result = Result { try JSONCoding.decoder.decode([Element].self, from: joined) }
        }
    }
}
