import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Logging
import ReveilleModel
import ReveilleRules
import ReveilleSystem
import SystemPackage

/// The alarms on disk: a snapshot, `alarms.json` (atomic, 0600, one alarm per line), and a
/// journal, `alarms.journal`, of the changes made since, one JSON line each. A change costs one
/// appended line and one fsync whatever the number of alarms; the snapshot is rewritten (and
/// the journal emptied) once the journal holds more entries than half the alarms, so writing
/// stays linear overall.
///
/// Each snapshot names a random generation, and the journal's header the generation it
/// continues: a journal left behind by a snapshot that could not then empty it is ignored, so
/// the snapshot is the one point where a compaction takes effect. Replaying a journal is
/// idempotent (each entry sets one alarm to a whole value).
///
/// Reading degrades per record: a line that cannot be read loses that alarm only, and the
/// file it was in is kept aside whole (`.unreadable-STAMP-RANDOM`, 0600) before the rest is
/// written back. A load streams both files (`StoreDecoder`), so its memory is bounded by the
/// limits below, not by what is on disk.
package final class AlarmStore {
    /// The format version this build writes and reads.
    package static let formatVersion = Contents.formatVersion
    /// A journal shorter than this is never compacted, so small stores are not rewritten often.
    package static let minimumJournalLength = 256
    /// One stored alarm (a snapshot or journal line): far above what the request limits allow.
    package static let maximumLineBytes = 1 << 20
    /// The journal: it is compacted before it would grow past this; what is past it is not read.
    package static let maximumJournalBytes = 64 << 20
    /// The snapshot in its one-alarm-per-line form: a save that would be larger is refused;
    /// what is past it is not read.
    package static let maximumSnapshotBytes = StoredFile.maximumBytes
    /// A snapshot in another JSON form (written by hand, or by an older Reveille) is read whole: at most this.
    package static let maximumWholeSnapshotBytes = 64 << 20

    private let logger: Logger
    /// `alarms.json`.
    package let file: FilePath
    /// `alarms.journal`.
    package let journalFile: FilePath
    private var journal: FileDescriptor?
    /// Entries in the journal now.
    package private(set) var journalLength = 0
    /// The journal's size now.
    private var journalBytes = 0
    /// The snapshot's generation (or, before the first snapshot, a new one), which the journal's header names.
    private var generation: String?
    /// The journal cannot take the next change (a write failed after its last good entry, its
    /// tail is torn, it belongs to another snapshot): the next write must be a snapshot.
    private var needsSnapshot = false
    /// What the last `load` could not read, and where it kept those files.
    package private(set) var lastLoad = LoadReport()

    /// What the engine knows of the wall clock across restarts, beside the alarms.
    package let clockMemory: ClockMemoryFile

    package init(directory: FilePath, logger: Logger = Logger(label: "reveille.store")) {
        file = directory.appending("alarms.json")
        journalFile = directory.appending("alarms.journal")
        clockMemory = ClockMemoryFile(directory: directory, logger: logger)
        self.logger = logger
    }

    deinit { try? journal?.close() }

    struct Contents: VersionedDocument {
        static let formatVersion = 1
        var format = "reveille-alarms"
        var version = formatVersion
        /// Absent in snapshots written before generations.
        var generation: String?
        var alarms: [AlarmRecord]
    }

    /// The journal's first line.
    struct JournalHeader: Codable {
        static let formatVersion = 1
        var format = "reveille-alarms-journal"
        var version = formatVersion
        /// The generation of the snapshot this journal continues (absent: before generations).
        var snapshot: String?
    }

    /// One journal line: an alarm's whole new value, or its removal.
    struct JournalEntry: Codable {
        var put: AlarmRecord?
        var remove: UUID?
    }

    /// What a load could not read.
    package struct LoadReport: Sendable {
        package var damaged: [DamagedEntry] = []
        /// The damaged files' contents, kept under these names (or left where they were, when
        /// they could not be: then nothing was written over them).
        package var keptAside: [FilePath] = []
    }

    /// The stored alarms: the snapshot with the journal replayed on it. What cannot be read
    /// is left out, reported in `lastLoad` and kept aside; the rest is written back.
    package func load() -> [AlarmRecord] {
        var decoder = StoreDecoder()
        for (path, part) in [(file, DamagedEntry.File.snapshot), (journalFile, .journal)] {
            do { try StoredFile.stream(path) { decoder.feed($0, part) } } catch { decoder.unreadable(part, error.text) }
            decoder.finish(part)
        }
        let decoded = decoder.result()
        // A journal started before any snapshot names a generation too, so that the first
        // snapshot's, if it then cannot empty the journal, differs from it.
        generation = decoded.snapshotGeneration ?? Self.newGeneration()
        journalLength = decoded.journalEntries
        journalBytes = (try? journalFile.status().size) ?? 0
        // A torn last line was a write never acknowledged; an obsolete journal is all in the snapshot.
        needsSnapshot = decoded.journalTornTail || decoded.journalObsolete
        lastLoad = LoadReport(damaged: decoded.damaged)
        if !decoded.damaged.isEmpty { keepDamageAside(decoded) }
        if decoded.journalObsolete {
            // Its entries are in the snapshot, unless a damaged byte changed a generation: keep
            // a copy, so that even then nothing is lost.
            let aside = try? StoredFile.keepCopyAside(journalFile)
            logger.warning("\(journalFile) continues another snapshot than \(file) (a compaction could not empty it); its entries were not replayed\(aside.map { "; kept as \($0)" } ?? "")")
        }
        return decoded.alarms
    }

    /// Keeps the damaged files aside, then writes what was read as the store; never writes
    /// over a damaged file that could not be kept.
    private func keepDamageAside(_ decoded: Decoded) {
        var allKept = true
        for (path, part) in [(file, DamagedEntry.File.snapshot), (journalFile, .journal)] where decoded.damaged.contains(where: { $0.file == part }) {
            do { lastLoad.keptAside.append(try StoredFile.keepCopyAside(path)) } catch {
                // Then nothing is written over it: it stays, damaged lines and all, where it is.
                allKept = false
                lastLoad.keptAside.append(path)
                logger.error("\(path) could not be kept aside (\(error)); it is left as it is")
            }
        }
        let shown = decoded.damaged.prefix(5).map(\.description).joined(separator: "; ")
        logger.error("\(decoded.damaged.count) part(s) of the store could not be read (\(shown)\(decoded.damaged.count > 5 ? "; ..." : "")); \(decoded.alarms.count) alarm(s) loaded; kept as \(lastLoad.keptAside.map(\.string).joined(separator: ", "))")
        guard allKept else { return }
        do { try save(decoded.alarms) } catch { logger.error("could not write back the alarms that were read: \(error)") }
    }

    /// Records `changes` (an alarm's new value, or `nil` for its removal): when this returns
    /// they survive a crash or power cut; when it throws, nothing of them is stored. `all` is
    /// every alarm after the change; it is read only when the journal is compacted into a new
    /// snapshot, which happens once it holds more entries than half the alarms (so a load
    /// replays at most that many, and the snapshots written while alarms are only added grow
    /// geometrically: linear in total), or would pass `maximumJournalBytes`.
    package func write(_ changes: [AlarmChange], alarmCount: Int, all: () -> [AlarmRecord]) throws {
        guard !changes.isEmpty else { return }
        var bytes = Data()
        let encoder = JSONCoding.compactEncoder
        do {
            for change in changes {
                let entry = change.record.map { JournalEntry(put: $0) } ?? JournalEntry(remove: change.id)
                bytes.append(try Self.line(encoder.encode(entry), of: change.id))
                bytes.append(UInt8(ascii: "\n"))
            }
        } catch {
            throw WriteError(file: journalFile, underlying: error)
        }
        if needsSnapshot || journalLength + changes.count > max(Self.minimumJournalLength, alarmCount / 2)
            || journalBytes + bytes.count > Self.maximumJournalBytes - 4096 {
            return try save(all())
        }
        do {
            journalBytes = try append(bytes)
        } catch {
            // The agent may keep these changes in memory (an alarm that fired rings on); a
            // later journal line alone would not carry them, a whole snapshot will.
            needsSnapshot = true
            throw WriteError(file: journalFile, underlying: error)
        }
        journalLength += changes.count
    }

    /// Why changes cannot be saved now (the folder cannot be made or written, the journal not
    /// opened for writing), or nothing.
    package func checkWritable() throws {
        do { _ = try openJournal() } catch { throw WriteError(file: journalFile, underlying: error) }
    }

    /// Replaces the stored alarms with a new snapshot and an empty journal. Throws, having
    /// changed nothing, when either cannot be written; once the snapshot is in place the
    /// alarms are saved, even if the old journal cannot then be emptied (its generation
    /// is no longer the snapshot's: it is ignored).
    package func save(_ alarms: [AlarmRecord]) throws {
        let next = Self.newGeneration()
        let snapshotBytes: Data
        do {
            snapshotBytes = try Self.encode(alarms, generation: next)
            try AtomicFile.makePrivateDirectory(file.removingLastComponent())
        } catch {
            throw WriteError(file: file, underlying: error)
        }
        // An open journal says nothing of whether it can be replaced now (chattr +i, a folder
        // in its place): ask the file system afresh, before the snapshot makes the change.
        do { try checkJournalReplaceable() } catch { throw WriteError(file: journalFile, underlying: error) }
        do {
            try AtomicFile.write(snapshotBytes, to: file)
        } catch let late as AtomicFile.RenamedButNotSynced {
            logger.warning("\(file) is written but its folder could not be synced (\(late.underlying)); a power cut now may lose it")
        } catch {
            throw WriteError(file: file, underlying: error)
        }
        generation = next
        try? journal?.close()
        journal = nil
        do {
            let header = try Self.headerLine(snapshot: next)
            try AtomicFile.write(header, to: journalFile)
            journalBytes = header.count
            journalLength = 0
            needsSnapshot = false
        } catch {
            needsSnapshot = true
            logger.error("the alarms are saved in \(file), but \(journalFile) could not be emptied (\(error)); its entries are older than the snapshot and ignored; changes are saved as whole snapshots until it can be")
        }
    }

    private static func newGeneration() -> String { String(UInt64.random(in: .min ... .max), radix: 16) }

    /// Throws unless the journal is absent or a file this process may write now.
    private func checkJournalReplaceable() throws {
        do {
            try FileDescriptor.open(journalFile, .writeOnly, options: [.noFollow, .closeOnExec, .nonBlocking, .noControllingTerminal]).close()
        } catch Errno.noSuchFileOrDirectory, Errno.noSuchAddressOrDevice {
            // ENXIO: a FIFO without a reader, which a rename replaces.
        }
    }

    /// Writes `alarms` beside the store as `alarms.over-limit-STAMP.json`, where no load reads
    /// them: kept, never dropped unseen. Returns the file.
    package func writeAside(_ alarms: [AlarmRecord], stamp: String) throws -> FilePath {
        let aside = file.removingLastComponent().appending("alarms.over-limit-\(stamp).json")
        try AtomicFile.write(try Self.encode(alarms), to: aside)
        return aside
    }

    /// A write that failed, naming the file.
    package struct WriteError: Error, CustomStringConvertible {
        package var file: FilePath
        package var underlying: any Error
        package var description: String { "\(file): \(underlying)" }
    }

    /// The snapshot's bytes for `alarms`: `Contents` as JSON, one alarm per line, the first
    /// line naming `generation`. Throws when an alarm or the whole would pass the limits.
    package static func encode(_ alarms: [AlarmRecord], generation: String? = nil) throws -> Data {
        let encoder = JSONCoding.compactEncoder
        let lines = try alarms.map { String(decoding: try line(encoder.encode($0), of: $0.id), as: UTF8.self) }
        let named = generation.map { #""generation":"\#($0)","# } ?? ""
        let prefix = #"{"format":"reveille-alarms","version":\#(Contents.formatVersion),\#(named)"alarms":"#
        let bytes = Data((prefix + JSONLines.array(lines) + "}\n").utf8)
        guard bytes.count <= maximumSnapshotBytes else {
            throw StoreError("\(alarms.count) alarms take \(bytes.count >> 20) MiB, more than the \(maximumSnapshotBytes >> 20) MiB the store may hold")
        }
        return bytes
    }

    /// `bytes`, the stored line of alarm `id`, when it is within `maximumLineBytes`.
    private static func line(_ bytes: Data, of id: UUID) throws -> Data {
        guard bytes.count <= maximumLineBytes else {
            throw StoreError("alarm \(id) would take \(bytes.count) bytes on disk, more than the \(maximumLineBytes >> 20) MiB one stored alarm may take")
        }
        return bytes
    }

    // MARK: Journal

    private static func headerLine(snapshot: String?) throws -> Data {
        try JSONCoding.compactEncoder.encode(JournalHeader(snapshot: snapshot)) + Data("\n".utf8)
    }

    /// The journal, open for appending: the one a restart reads. A descriptor kept from
    /// before is checked against the path first (the file deleted or replaced meanwhile would
    /// take appends that no restart sees).
    private func openJournal() throws -> FileDescriptor {
        if let journal {
            if let open = try? journal.status(), let named = try? journalFile.status(),
               open.identity == named.identity { return journal }
            try? journal.close()
            self.journal = nil
        }
        try AtomicFile.makePrivateDirectory(journalFile.removingLastComponent())
        let descriptor = try FileDescriptor.open(journalFile, .writeOnly, options: [.create, .append, .noFollow, .closeOnExec],
                                                 permissions: [.ownerRead, .ownerWrite])
        journal = descriptor
        return descriptor
    }

    /// Appends `bytes` (after a header, in an empty journal) and syncs; returns the journal's
    /// new size. On failure the journal is cut back to where it was, so a change reported as
    /// failed is never replayed.
    private func append(_ bytes: Data) throws -> Int {
        let descriptor = try openJournal()
        let end = try descriptor.seek(offset: 0, from: .end)
        do {
            if end == 0 { _ = try descriptor.writeAll(Self.headerLine(snapshot: generation)) }
            _ = try descriptor.writeAll(bytes)
            try descriptor.syncData()
        } catch {
            try? descriptor.resize(to: end)
            throw error
        }
        return Int(try descriptor.seek(offset: 0, from: .end))
    }
}
