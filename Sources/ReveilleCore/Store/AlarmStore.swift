import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Logging
import SystemPackage

/// The alarms on disk: a snapshot, `alarms.json` (`VersionedFile`'s rules: atomic, 0600,
/// an unreadable file kept aside), and a journal, `alarms.journal`, of the changes made
/// since, one JSON line each. A change costs one appended line and one fsync whatever the
/// number of alarms; the snapshot is rewritten (and the journal emptied) once the journal
/// holds more entries than half the alarms, so writing stays linear overall.
///
/// Replaying a journal is idempotent (each entry sets one alarm to a whole value), so a
/// crash between writing a snapshot and emptying the journal loses nothing.
package final class AlarmStore {
    /// The format version this build writes and reads.
    package static let formatVersion = Contents.formatVersion
    /// A journal shorter than this is never compacted, so small stores are not rewritten often.
    package static let minimumJournalLength = 256

    private let snapshot: VersionedFile<Contents>
    private let logger: Logger
    /// `alarms.json`.
    package var file: FilePath { snapshot.file }
    /// `alarms.journal`.
    package let journalFile: FilePath
    private var journal: FileDescriptor?
    /// Entries in the journal now.
    package private(set) var journalLength = 0
    /// A write failed after the journal's last good entry: the next write must be a snapshot.
    private var needsSnapshot = false

    package init(directory: FilePath, logger: Logger = Logger(label: "reveille.store")) {
        snapshot = VersionedFile(file: directory.appending("alarms.json"), logger: logger)
        journalFile = directory.appending("alarms.journal")
        self.logger = logger
    }

    deinit { try? journal?.close() }

    struct Contents: VersionedDocument {
        static let formatVersion = 1
        var format = "reveille-alarms"
        var version = formatVersion
        var alarms: [AlarmRecord]
    }

    /// The journal's first line.
    struct JournalHeader: Codable {
        static let formatVersion = 1
        var format = "reveille-alarms-journal"
        var version = formatVersion
    }

    /// One journal line: an alarm's whole new value, or its removal.
    struct JournalEntry: Codable {
        var put: AlarmRecord?
        var remove: UUID?
    }

    /// The stored alarms: the snapshot with the journal replayed on it. An unreadable
    /// snapshot or journal is moved aside (what could be read of a journal is kept).
    package func load() -> [AlarmRecord] {
        var alarms: [UUID: AlarmRecord] = [:]
        var order: [UUID] = []
        for record in loadSnapshot() where alarms[record.id] == nil {
            alarms[record.id] = record
            order.append(record.id)
        }
        let replay = readJournal()
        for entry in replay.entries {
            if let record = entry.put {
                if alarms.updateValue(record, forKey: record.id) == nil { order.append(record.id) }
            } else if let id = entry.remove {
                alarms[id] = nil
            }
        }
        journalLength = replay.entries.count
        let loaded = order.compactMap { alarms[$0] }
        if replay.damaged {
            // Start clean from what was recovered; the damaged journal was kept aside.
            do { try save(loaded) } catch { logger.error("could not write \(file.string): \(error)") }
        } else if replay.tornTail {
            // A write that never finished was never acknowledged: drop it.
            needsSnapshot = true
        }
        return loaded
    }

    /// Records `changes` (an alarm's new value, or `nil` for its removal): when this returns
    /// they survive a crash or power cut. `all` is every alarm after the change; it is read
    /// only when the journal is compacted into a new snapshot, which happens once it holds
    /// more entries than half the alarms (so a load replays at most that many, and the
    /// snapshots written while alarms are only added grow geometrically: linear in total).
    package func write(_ changes: [AlarmChange], alarmCount: Int, all: () -> [AlarmRecord]) throws {
        guard !changes.isEmpty else { return }
        if needsSnapshot || journalLength + changes.count > max(Self.minimumJournalLength, alarmCount / 2) {
            return try save(all())
        }
        var bytes = Data()
        let encoder = JSONCoding.compactEncoder
        for change in changes {
            let entry = change.record.map { JournalEntry(put: $0) } ?? JournalEntry(remove: change.id)
            bytes.append(try encoder.encode(entry))
            bytes.append(UInt8(ascii: "\n"))
        }
        do {
            try append(bytes)
        } catch {
            // The agent may keep these changes in memory (an alarm that fired rings on); a
            // later journal line alone would not carry them, a whole snapshot will.
            needsSnapshot = true
            throw WriteError(file: journalFile, underlying: error)
        }
        journalLength += changes.count
    }

    /// Replaces the stored alarms with a new snapshot and an empty journal.
    package func save(_ alarms: [AlarmRecord]) throws {
        // The journal first: a snapshot written when the journal then cannot be emptied would
        // keep a change the caller is told failed.
        let descriptor: FileDescriptor
        do { descriptor = try openJournal() } catch { throw WriteError(file: journalFile, underlying: error) }
        do {
            try AtomicFile.makePrivateDirectory(file.removingLastComponent())
            try AtomicFile.write(try Self.encode(alarms), to: file)
        } catch {
            throw WriteError(file: file, underlying: error)
        }
        // The snapshot now holds everything the journal did; a crash before the journal is
        // emptied only replays entries the snapshot already reflects.
        do {
            try descriptor.resize(to: 0)
            _ = try descriptor.writeAll(Self.headerLine())
            guard fsync(descriptor.rawValue) == 0 else { throw Errno(rawValue: errno) }
        } catch {
            needsSnapshot = true
            throw WriteError(file: journalFile, underlying: error)
        }
        journalLength = 0
        needsSnapshot = false
    }

    /// A write that failed, naming the file.
    package struct WriteError: Error, CustomStringConvertible {
        package var file: FilePath
        package var underlying: any Error
        package var description: String { "\(file): \(underlying)" }
    }

    /// The snapshot's bytes for `alarms`: `Contents` as JSON, one alarm per line.
    package static func encode(_ alarms: [AlarmRecord]) throws -> Data {
        let encoder = JSONCoding.compactEncoder
        let lines = try alarms.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
        return Data((snapshotPrefix + JSONLines.array(lines) + snapshotSuffix + "\n").utf8)
    }

    private static let snapshotPrefix = #"{"format":"reveille-alarms","version":\#(Contents.formatVersion),"alarms":"#
    private static let snapshotSuffix = "}"

    /// The snapshot's alarms: decoded in parallel when it has the shape `encode` writes,
    /// else through `VersionedFile`, which reads any valid form and keeps a bad file aside.
    private func loadSnapshot() -> [AlarmRecord] {
        if let data = try? StoredFile.read(file),
           let lines = JSONLines.elementLines(data, prefix: Self.snapshotPrefix, suffix: Self.snapshotSuffix),
           let alarms = try? JSONLines.decodeInParallel(AlarmRecord.self, lines: lines) {
            return alarms
        }
        return snapshot.load(whatIsLost: "starting from the journal alone")?.alarms ?? []
    }

    // MARK: Journal

    private static func headerLine() throws -> Data {
        try JSONCoding.compactEncoder.encode(JournalHeader()) + Data("\n".utf8)
    }

    private func openJournal() throws -> FileDescriptor {
        if let journal { return journal }
        try AtomicFile.makePrivateDirectory(journalFile.removingLastComponent())
        let descriptor = try FileDescriptor.open(journalFile, .writeOnly, options: [.create, .append],
                                                 permissions: [.ownerRead, .ownerWrite])
        journal = descriptor
        return descriptor
    }

    /// Appends `bytes` and syncs; on failure the journal is cut back to where it was, so a
    /// change reported as failed is never replayed.
    private func append(_ bytes: Data) throws {
        let descriptor = try openJournal()
        var end = try descriptor.seek(offset: 0, from: .end)
        if end == 0 {
            _ = try descriptor.writeAll(Self.headerLine())
            end = try descriptor.seek(offset: 0, from: .end)
        }
        do {
            _ = try descriptor.writeAll(bytes)
            guard fdatasync(descriptor.rawValue) == 0 else { throw Errno(rawValue: errno) }
        } catch {
            try? descriptor.resize(to: end)
            throw error
        }
    }

    private struct Replay {
        var entries: [JournalEntry] = []
        /// The last line was cut short: a write that a crash interrupted.
        var tornTail = false
        /// Some other line could not be read, or the journal as a whole; it was kept aside.
        var damaged = false
    }

    private func readJournal() -> Replay {
        var replay = Replay()
        let data: Data
        do {
            guard let read = try StoredFile.read(journalFile), !read.isEmpty else { return replay }
            data = read
        } catch {
            keepJournalAside(error.text)
            replay.damaged = true
            return replay
        }
        let lines = JSONLines.lineRanges(data).map { data[$0] }
        replay.tornTail = data.last != UInt8(ascii: "\n")
        let decoder = JSONCoding.decoder
        var problems: [String] = []
        if let header = lines.first.flatMap({ try? decoder.decode(JournalHeader.self, from: Data($0)) }),
           header.format == JournalHeader().format {
            guard header.version <= JournalHeader.formatVersion else {
                keepJournalAside("it was written by a newer Reveille (journal version \(header.version); this one reads \(JournalHeader.formatVersion))")
                replay.damaged = true
                return replay
            }
        } else if !(replay.tornTail && lines.count == 1) {
            keepJournalAside("its first line is not a Reveille journal header")
            replay.damaged = true
            return replay
        }
        let entryLines = Array(lines.dropFirst())
        if let entries = try? JSONLines.decodeInParallel(JournalEntry.self, lines: entryLines),
           entries.allSatisfy({ $0.put != nil || $0.remove != nil }) {
            replay.entries = entries
            return replay
        }
        for (index, line) in lines.enumerated().dropFirst() {
            do {
                let entry = try decoder.decode(JournalEntry.self, from: Data(line))
                guard entry.put != nil || entry.remove != nil else { throw StoreError("neither put nor remove") }
                replay.entries.append(entry)
            } catch {
                let isTail = index == lines.count - 1
                if isTail && replay.tornTail { break }
                problems.append("line \(index + 1): \((error as? StoreError)?.text ?? VersionedFile<Contents>.describe(error))")
            }
        }
        if !problems.isEmpty {
            keepJournalAside("\(problems.count) line(s) could not be read (\(problems.prefix(3).joined(separator: "; "))); the other \(replay.entries.count) were replayed")
            replay.damaged = true
        }
        return replay
    }

    private func keepJournalAside(_ reason: String) {
        try? journal?.close()
        journal = nil
        do {
            let aside = try VersionedFile<Contents>.moveAside(journalFile)
            logger.error("\(journalFile.string) could not be fully read (\(reason)); kept as \(aside.string)")
        } catch {
            logger.error("\(journalFile.string) could not be fully read (\(reason)) nor moved aside (\(error))")
        }
    }
}
