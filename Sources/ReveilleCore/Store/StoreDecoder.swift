import FoundationEssentials
#if canImport(Glibc)
import Glibc
import ReveilleModel
import ReveilleRules
import ReveilleSystem
#endif

/// A part of the store that could not be read: one line (the alarm it held is lost, the
/// others load), or the file from some point on.
package struct DamagedEntry: Sendable, Equatable, CustomStringConvertible {
    package enum File: String, Sendable { case snapshot = "alarms.json", journal = "alarms.journal" }
    package var file: File
    /// Counted from 1; 0 when the damage is not one line (the file as a whole, what follows a limit).
    package var line: Int
    package var reason: String

    package var description: String { line > 0 ? "\(file.rawValue) line \(line): \(reason)" : "\(file.rawValue): \(reason)" }
}

extension AlarmStore {
    /// What the store's bytes hold: the alarms, and what could not be read.
    package struct Decoded: Sendable {
        package var alarms: [AlarmRecord] = []
        package var damaged: [DamagedEntry] = []
        /// The snapshot's generation, when it names one (snapshots written before generations do not).
        package var snapshotGeneration: String?
        /// Journal entries replayed.
        package var journalEntries = 0
        /// The journal's last line has no newline: a write a crash interrupted (dropped unless it reads).
        package var journalTornTail = false
        /// The journal was written on top of another snapshot than this one (a compaction whose
        /// journal could not then be emptied): everything in it is in the snapshot already.
        package var journalObsolete = false
    }

    /// The alarms in a snapshot's and a journal's bytes, and the entries that could not be read:
    /// pure (no disk, no clock), the same code `load` runs on the files as it streams them.
    /// The fuzzing entry point.
    package static func decode(snapshot: some Collection<UInt8>, journal: some Collection<UInt8>) -> Decoded {
        var decoder = StoreDecoder()
        for (bytes, file) in [(Array(snapshot), DamagedEntry.File.snapshot), (Array(journal), .journal)] {
            bytes.withUnsafeBytes { chunk in _ = decoder.feed(chunk, file) }
            decoder.finish(file)
        }
        return decoder.result()
    }
}

/// The store's reading rules, fed the bytes of the snapshot, then of the journal, a chunk at a
/// time, so that a load holds one line (at most `AlarmStore.maximumLineBytes`) and a batch of
/// lines in memory besides the alarms, whatever the files' sizes. A line that cannot be read
/// costs that line only; what passes a limit is not read.
struct StoreDecoder {
    private var alarms: [UUID: AlarmRecord] = [:]
    private var order: [UUID] = []
    private var decoded = AlarmStore.Decoded()

    private enum Stage {
        /// The snapshot's first line decides how it is read.
        case snapshotHead
        /// The form `AlarmStore.encode` writes: a header line, one alarm per line, `]}`.
        case snapshotLines
        /// After the snapshot's `]}`.
        case snapshotClosed
        /// Any other JSON form (pretty-printed, hand-written): read whole, within the snapshot's limit.
        case snapshotWhole
        case journalHeader
        case journalEntries
        /// Nothing more of this file is read (a limit, a newer format, an obsolete journal).
        case skipping
    }

    private var stage = Stage.snapshotHead
    private var splitter = LineSplitter(maximumLineBytes: AlarmStore.maximumLineBytes)
    /// The snapshot's bytes while its form is unknown, or whole when it is not the line form.
    private var head: [UInt8] = []
    /// Bytes of the current file fed so far.
    private var fileBytes = 0
    private var batch: [(line: Int, bytes: Data)] = []
    private var batchBytes = 0

    /// Lines decoded together (in parallel when many): at most this many, or this many bytes.
    static let batchLines = 4096
    static let batchBytes = 8 << 20

    /// Takes the next bytes of `file`; returns whether more of it is wanted.
    mutating func feed(_ chunk: UnsafeRawBufferPointer, _ file: DamagedEntry.File) -> Bool {
        if case .skipping = stage { return false }
        let limit = file == .snapshot ? AlarmStore.maximumSnapshotBytes : AlarmStore.maximumJournalBytes
        let overLimit = fileBytes + chunk.count > limit
        let within = overLimit ? UnsafeRawBufferPointer(rebasing: chunk[..<(limit - fileBytes)]) : chunk
        fileBytes += within.count
        switch stage {
        case .snapshotHead:
            head.append(contentsOf: within)
            if let newline = head.firstIndex(of: UInt8(ascii: "\n")) {
                if let generation = Self.snapshotHeader(head[..<newline]) {
                    decoded.snapshotGeneration = generation
                    stage = .snapshotLines
                    splitter.countLine()
                    let rest = Array(head[(newline + 1)...])
                    head = []
                    rest.withUnsafeBytes { feedLines($0, file) }
                } else {
                    stage = .snapshotWhole
                }
            } else if head.count > AlarmStore.maximumLineBytes {
                stage = .snapshotWhole
            }
            refuseWholeSnapshotPastItsLimit()
        case .snapshotWhole:
            head.append(contentsOf: within)
            refuseWholeSnapshotPastItsLimit()
        default:
            feedLines(within, file)
        }
        if case .skipping = stage { return false }
        // (A whole-form snapshot was refused at its own, lower limit.)
        guard !overLimit else {
            unreadable(file, "it is longer than the \(limit >> 20) MiB it may be; what follows was not read")
            return false
        }
        return true
    }

    /// `file` cannot be read from here on (`reason`).
    mutating func unreadable(_ file: DamagedEntry.File, _ reason: String) {
        flush(file)
        damage(file, 0, reason)
        stage = .skipping
    }

    /// The end of `file`'s bytes: its last line, and what the end means.
    mutating func finish(_ file: DamagedEntry.File) {
        switch stage {
        case .snapshotHead, .snapshotWhole:
            if !head.isEmpty { decodeWholeSnapshot() }
        case .skipping:
            break
        default:
            if let last = splitter.finish() {
                if file == .journal { decoded.journalTornTail = true }
                take(last, file, isTornTail: true)
            }
            flush(file)
            if case .snapshotLines = stage {
                damage(.snapshot, 0, "it ends before its last line (]}): it was cut short")
            }
        }
        // The next file starts afresh.
        stage = file == .snapshot ? .journalHeader : .skipping
        splitter = LineSplitter(maximumLineBytes: AlarmStore.maximumLineBytes)
        head = []
        fileBytes = 0
    }

    /// The alarms: the snapshot's, with the journal replayed on them, in the order they came.
    mutating func result() -> AlarmStore.Decoded {
        var seen = Set<UUID>()
        decoded.alarms = order.compactMap { id in seen.insert(id).inserted ? alarms[id] : nil }
        return decoded
    }

    // MARK: Lines

    private mutating func feedLines(_ chunk: UnsafeRawBufferPointer, _ file: DamagedEntry.File) {
        var pieces: [(LineSplitter.Piece, Int)] = []
        splitter.feed(chunk) { pieces.append(($0, $1)) }
        for (piece, number) in pieces {
            take(piece, file, number: number, isTornTail: false)
            if case .skipping = stage { return }
        }
    }

    private mutating func take(_ piece: LineSplitter.Piece, _ file: DamagedEntry.File, number: Int? = nil, isTornTail: Bool) {
        let number = number ?? splitter.linesSeen + 1
        switch piece {
        case .oversized(let count):
            damage(file, number, "it is \(count) bytes, more than the \(AlarmStore.maximumLineBytes >> 20) MiB one stored alarm may take; not read")
        case .line(let bytes):
            take(line: bytes, file, number, isTornTail: isTornTail)
        }
    }

    private mutating func take(line bytes: [UInt8], _ file: DamagedEntry.File, _ number: Int, isTornTail: Bool) {
        switch stage {
        case .snapshotLines:
            if bytes.elementsEqual("]}".utf8) { flush(file); stage = .snapshotClosed; return }
            enqueue(bytes, number, file)
        case .snapshotClosed:
            if !bytes.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") }) {
                damage(.snapshot, number, "it follows the end of the alarms (]})")
            }
        case .journalHeader:
            stage = .journalEntries
            let header = try? JSONCoding.decoder.decode(AlarmStore.JournalHeader.self, from: Data(bytes))
            guard let header, header.format == AlarmStore.JournalHeader().format else {
                if isTornTail { return }   // the header of a first write a crash interrupted
                damage(.journal, number, "it is not a Reveille journal header; the lines after it are replayed")
                return
            }
            if header.version > AlarmStore.JournalHeader.formatVersion {
                damage(.journal, 0, "it was written by a newer Reveille (journal version \(header.version); this one reads \(AlarmStore.JournalHeader.formatVersion))")
                stage = .skipping
            } else if let snapshot = decoded.snapshotGeneration, let continued = header.snapshot, continued != snapshot {
                // (Both named: a snapshot without one is from before generations, or its header
                // is damaged; replaying over it loses nothing.)
                decoded.journalObsolete = true
                stage = .skipping
            }
        case .journalEntries:
            enqueue(bytes, number, file, isTornTail: isTornTail)
        default:
            break
        }
    }

    private var tornTailLine: Int?

    private mutating func enqueue(_ bytes: [UInt8], _ number: Int, _ file: DamagedEntry.File, isTornTail: Bool = false) {
        if isTornTail { tornTailLine = number }
        batch.append((number, Data(bytes)))
        batchBytes += bytes.count
        if batch.count >= Self.batchLines || batchBytes >= Self.batchBytes { flush(file) }
    }

    /// Decodes the batch: all at once when every line reads, else line by line to find the damaged ones.
    private mutating func flush(_ file: DamagedEntry.File) {
        guard !batch.isEmpty else { return }
        defer { batch = []; batchBytes = 0; tornTailLine = nil }
        switch file {
        case .snapshot:
            for (number, result) in decodeBatch(AlarmRecord.self) {
                switch result {
                case .success(let record):
                    if alarms[record.id] == nil { alarms[record.id] = record; order.append(record.id) }
                case .failure(let reason):
                    damage(.snapshot, number, reason)
                }
            }
        case .journal:
            for (number, result) in decodeBatch(AlarmStore.JournalEntry.self) {
                switch result {
                case .success(let entry) where entry.put != nil || entry.remove != nil:
                    decoded.journalEntries += 1
                    if let record = entry.put {
                        if alarms.updateValue(record, forKey: record.id) == nil { order.append(record.id) }
                    } else if let id = entry.remove {
                        alarms[id] = nil
                    }
                case .success:
                    damage(.journal, number, "it holds neither put nor remove")
                case .failure where number == tornTailLine:
                    // A write that never finished was never acknowledged: not damage.
                    break
                case .failure(let reason):
                    damage(.journal, number, reason)
                }
            }
        }
    }

    private func decodeBatch<Element: Decodable & Sendable>(_ type: Element.Type) -> [(Int, Result<Element, Reason>)] {
        if let all = try? JSONLines.decodeInParallel(type, lines: batch.map { $0.bytes[...] }, inParallel: PosixThread.runAll), all.count == batch.count {
            return zip(batch.map(\.line), all).map { ($0, .success($1)) }
        }
        return batch.map { line, bytes in
            let element = bytes.last == UInt8(ascii: ",") ? bytes.dropLast() : bytes[...]
            do { return (line, .success(try JSONCoding.decoder.decode(type, from: Data(element)))) } catch {
                return (line, .failure(Reason(VersionedFile<AlarmStore.Contents>.describe(error))))
            }
        }
    }

    private struct Reason: Error { var text: String; init(_ text: String) { self.text = text } }

    private mutating func damage(_ file: DamagedEntry.File, _ line: Int, _ reason: Reason) {
        damage(file, line, reason.text)
    }

    private mutating func damage(_ file: DamagedEntry.File, _ line: Int, _ reason: String) {
        decoded.damaged.append(DamagedEntry(file: file, line: line, reason: reason))
    }

    // MARK: Snapshot forms

    /// The generation named by a snapshot's first line in the line form (`""` when it names
    /// none), or `nil` when the line is not that form's header.
    private static func snapshotHeader(_ line: ArraySlice<UInt8>) -> String?? {
        guard line.starts(with: #"{"format":"reveille-alarms","#.utf8), line.last == UInt8(ascii: "[") else { return nil }
        struct Header: Decodable { var version: Int; var generation: String? }
        guard let header = try? JSONCoding.decoder.decode(Header.self, from: Data(line) + Data("]}".utf8)),
              header.version <= AlarmStore.Contents.formatVersion else { return nil }
        return .some(header.generation)
    }

    private mutating func refuseWholeSnapshotPastItsLimit() {
        guard case .snapshotWhole = stage, head.count > AlarmStore.maximumWholeSnapshotBytes else { return }
        head = []
        damage(.snapshot, 0, "it is not one alarm per line, and such a file may be at most \(AlarmStore.maximumWholeSnapshotBytes >> 20) MiB; not read")
        stage = .skipping
    }

    /// A snapshot in another form than one alarm per line: all of it reads, or none.
    private mutating func decodeWholeSnapshot() {
        do {
            let contents = try VersionedFile<AlarmStore.Contents>.decode(Data(head))
            decoded.snapshotGeneration = contents.generation
            for record in contents.alarms where alarms[record.id] == nil {
                alarms[record.id] = record
                order.append(record.id)
            }
        } catch {
            damage(.snapshot, 0, error.text)
        }
    }
}

/// Splits bytes fed a chunk at a time into lines, keeping at most `maximumLineBytes` of one:
/// a longer line is counted, not kept.
struct LineSplitter {
    enum Piece { case line([UInt8]), oversized(Int) }

    let maximumLineBytes: Int
    private var line: [UInt8] = []
    /// The current line's length once it passed the limit (its bytes are no longer kept).
    private var oversizedLength: Int?
    private var started = false
    /// Lines ended so far.
    private(set) var linesSeen = 0

    init(maximumLineBytes: Int) { self.maximumLineBytes = maximumLineBytes }

    /// Counts a line read by someone else (a header), so numbers stay the file's.
    mutating func countLine() { linesSeen += 1 }

    /// Calls `take` with each line `chunk` ends, and its number.
    mutating func feed(_ chunk: UnsafeRawBufferPointer, _ take: (Piece, Int) -> Void) {
        guard let base = chunk.baseAddress else { return }
        var start = 0
        while start < chunk.count {
            let found = memchr(base + start, Int32(UInt8(ascii: "\n")), chunk.count - start)
            let end = found.map { UnsafeRawPointer($0) - base } ?? chunk.count
            append(UnsafeRawBufferPointer(rebasing: chunk[start..<end]))
            guard found != nil else { return }
            linesSeen += 1
            take(takePiece(), linesSeen)
            start = end + 1
        }
    }

    /// The last line, when the bytes did not end with a newline.
    mutating func finish() -> Piece? {
        guard started else { return nil }
        return takePiece()
    }

    private mutating func append(_ bytes: UnsafeRawBufferPointer) {
        started = true
        if let length = oversizedLength {
            oversizedLength = length + bytes.count
        } else if line.count + bytes.count > maximumLineBytes {
            oversizedLength = line.count + bytes.count
            line = []
        } else {
            line.append(contentsOf: bytes)
        }
    }

    private mutating func takePiece() -> Piece {
        defer { line = []; oversizedLength = nil; started = false }
        return oversizedLength.map { .oversized($0) } ?? .line(line)
    }
}
