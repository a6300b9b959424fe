import Foundation
import Logging
import ReveilleAgentTesting
@testable import ReveilleCore
import ReveilleModel
@testable import ReveilleRules
import SystemPackage
import Testing

@Suite("Store")
struct StoreTests {
    let directory: FilePath = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-store-\(UUID())").path
        return FilePath(path).appending("reveille")
    }()

    func sample(_ title: String) throws -> AlarmRecord {
        try AlarmRecord(id: UUID(), request: request(schedule: relative(7, 30, [.monday]), title: title),
                        appID: "cli", now: Date(), timeZone: zone("UTC"))
    }

    func mode(_ path: FilePath) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path.string)[.posixPermissions] as! NSNumber).intValue
    }

    func files() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.string)) ?? []).sorted()
    }

    /// A file's size says nothing of its length: a link to /proc/self/pagemap is a regular file
    /// of size 0 that never ends (the agent read settings.json so for ever). Every read is
    /// bounded by the bytes read.
    @Test func aFileThatNeverEndsIsRefusedAfterItsBound() throws {
        try FileManager.default.createDirectory(atPath: directory.string, withIntermediateDirectories: true)
        let link = directory.appending("settings.json")
        try FileManager.default.createSymbolicLink(atPath: link.string, withDestinationPath: "/proc/self/pagemap")
        #expect(throws: StoreError.self) { try StoredFile.read(link, maximumBytes: AgentSettings.maximumTextBytes) }
        do { _ = try StoredFile.read(link, maximumBytes: 1 << 20) } catch {
            #expect(error.text.contains("goes on past the 1 MiB"), "\(error)")
        }
    }

    /// `clock.json`: what the engine knows of the clock round-trips (0600); an entry whose
    /// replacement names another alarm is judged nonsense and dropped; a damaged file is kept
    /// aside and read as nothing known.
    @Test func theClockMemoryRoundTripsAndADamagedOneIsKeptAside() throws {
        let store = AlarmStore(directory: directory)
        let once = try sample("Once"), other = try sample("Other")
        let seen = Date(timeIntervalSince1970: 1_800_000_000)
        try store.clockMemory.save(.init(lastSeen: seen, passedOver: [once.id: .init(before: once, after: nil),
                                                                       other.id: .init(before: other, after: once)]))
        #expect(try mode(store.clockMemory.file) == 0o600)
        let read = store.clockMemory.load()
        #expect(read.lastSeen == seen)
        #expect(read.passedOver == [once.id: .init(before: once, after: nil)], "an entry replaced by another alarm is dropped")
        // The same id is not enough (found by reveille-fuzz-clock): what a set forward left is
        // one alarm, its owner and configuration unchanged, waiting or counting down, on; a set
        // back would otherwise bring back another alarm in its place, or one ringing or off.
        var retitled = once, theirs = once, ringing = once, off = once
        retitled.presentation.alert.title = "Not once"
        theirs.appID = "org.example.Other"
        ringing.phase = .alerting(since: seen)
        off.disabled = true
        for (before, after) in [(retitled, once), (theirs, once), (ringing, nil), (off, nil)] as [(AlarmRecord, AlarmRecord?)] {
            try store.clockMemory.save(.init(lastSeen: seen, passedOver: [once.id: .init(before: before, after: after)]))
            #expect(store.clockMemory.load().passedOver.isEmpty, "remembered: \(before) replaced by \(String(describing: after))")
        }
        try Data("{\"format\": \"reveille-clock\", \"version\": 1, \"passedOver\": 7".utf8).write(to: URL(fileURLWithPath: store.clockMemory.file.string))
        #expect(store.clockMemory.load() == .init())
        #expect(files().contains { $0.hasPrefix("clock.json.unreadable") }, "kept aside: \(files())")
    }

    @Test func roundTripsEveryFieldWithPrivatePermissions() throws {
        let store = AlarmStore(directory: directory)
        var alarm = try sample("Stand-up")
        alarm.metadata = #"{"recipe":"tea"}"#
        alarm.sound = .named("bell")
        try store.save([alarm])
        #expect(store.load() == [alarm])
        #expect(try mode(store.file) == 0o600)
        #expect(try mode(directory) == 0o700)
        let text = try String(contentsOfFile: store.file.string, encoding: .utf8)
        #expect(text.contains(#""version":1"#))
        #expect(text.contains("Stand-up"))
    }

    @Test func missingFileIsAnEmptyStore() {
        #expect(AlarmStore(directory: directory).load().isEmpty)
    }

    /// A crash at every step of a write leaves either the old or the new content, never a mix.
    @Test(arguments: AtomicFile.Step.allCases)
    func interruptedWriteLeavesOldOrNew(at step: AtomicFile.Step) throws {
        let store = AlarmStore(directory: directory)
        let old = [try sample("old")]
        let new = [try sample("new"), try sample("newer")]
        try store.save(old)
        try AtomicFile.write(try AlarmStore.encode(new), to: store.file, continueAfter: { $0 != step })
        let loaded = store.load()
        #expect(loaded == old || loaded == new)
        #expect(loaded == (step == .renamed ? new : old))
        // The next ordinary write succeeds over whatever the crash left behind.
        try store.save(new)
        #expect(store.load() == new)
        #expect(!files().contains { $0.hasSuffix(".tmp") })
    }

    @Test(arguments: [
        ("truncated", #"{"format":"reveille-alarms","version":1,"alarms":[{"ala"#),
        ("not JSON", "\u{0}\u{1}garbage"),
        ("wrong shape", #"{"format":"reveille-alarms","version":1,"alarms":{"x":1}}"#),
        ("newer version", #"{"format":"reveille-alarms","version":99,"alarms":[]}"#),
    ])
    func unreadableFileIsMovedAsideNeverLost(_ kind: String, _ content: String) throws {
        var quiet = Logger(label: "fuzz")
        quiet.logLevel = .critical
        let store = AlarmStore(directory: directory, logger: quiet)
        try AtomicFile.makePrivateDirectory(directory)
        try Data(content.utf8).write(to: URL(fileURLWithPath: store.file.string))
        #expect(store.load().isEmpty, "\(kind)")
        let aside = files().filter { $0.hasPrefix("alarms.json.unreadable-") }
        #expect(aside.count == 1)
        let kept = try String(contentsOfFile: directory.appending(aside[0]).string, encoding: .utf8)
        #expect(kept == content)
        // A second bad file in the same second gets a new name; the first is not overwritten.
        try Data("second".utf8).write(to: URL(fileURLWithPath: store.file.string))
        _ = store.load()
        #expect(files().filter { $0.hasPrefix("alarms.json.unreadable-") }.count == 2)
        // And the store works again.
        let alarm = try sample("after")
        try store.save([alarm])
        #expect(store.load() == [alarm])
    }

    // MARK: Journal

    @Test func aLinkPlantedAsTheTemporaryFileIsNotFollowed() throws {
        try AtomicFile.makePrivateDirectory(directory)
        let victim = directory.removingLastComponent().appending("victim")
        try Data("someone else's\n".utf8).write(to: URL(fileURLWithPath: victim.string))
        chmod(victim.string, 0o644)
        let target = directory.appending("alarms.json")
        symlink(victim.string, target.string + ".tmp")
        try AtomicFile.write(Data("new\n".utf8), to: target)
        #expect(try String(contentsOfFile: victim.string, encoding: .utf8) == "someone else's\n")
        #expect(try mode(victim) == 0o644)
        #expect(try String(contentsOfFile: target.string, encoding: .utf8) == "new\n")
        #expect(try mode(target) == 0o600)
    }

    /// Issue 49: `reveille export --output out.ics` wrote the file, then failed to sync its
    /// folder: the folder of a bare name had been "", which cannot be opened.
    @Test func aBareNamesFolderIsTheCurrentOne() {
        #expect(AtomicFile.folder(of: "out.ics") == ".")
        #expect(AtomicFile.folder(of: "./out.ics") == ".")
        #expect(AtomicFile.folder(of: "sub/out.ics") == "sub")
        #expect(AtomicFile.folder(of: "/tmp/out.ics") == "/tmp")
    }

    @Test(arguments: ["alarms.json", "alarms.journal"])
    func aFIFOOrAGiantFileInTheStoresPlaceIsKeptAsideWithoutBlocking(_ name: String) throws {
        try AtomicFile.makePrivateDirectory(directory)
        let store = AlarmStore(directory: directory)
        let kept = try sample("Kept")
        try store.save([kept])
        let path = directory.appending(name).string
        try FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o600) == 0)
        // Read as empty it would block for ever (a FIFO) or be lost silently; it is kept aside.
        _ = AlarmStore(directory: directory).load()
        #expect(files().contains { $0.hasPrefix(name + ".unreadable-") }, "\(files())")
        #expect(AlarmStore(directory: directory).load().count == (name == "alarms.json" ? 0 : 1), "a readable store again in its place")

        // A sparse file larger than any store of Reveille's is not read into memory.
        let giant = FileManager.default.createFile(atPath: path, contents: nil)
        #expect(giant)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 300 << 20)
        try handle.close()
        _ = AlarmStore(directory: directory).load()
        #expect(files().filter { $0.hasPrefix(name + ".unreadable-") }.count == 2, "\(files())")
    }

    @Test func changesAreJournalledAndReplayedInOrder() throws {
        let store = AlarmStore(directory: directory)
        let (first, second) = (try sample("first"), try sample("second"))
        var renamed = first
        renamed.presentation.alert.title = "renamed"
        try store.write([AlarmChange(id: first.id, record: first)], alarmCount: 1, all: { [first] })
        try store.write([AlarmChange(id: second.id, record: second)], alarmCount: 2, all: { [first, second] })
        try store.write([AlarmChange(id: first.id, record: renamed), AlarmChange(id: second.id, record: nil)], alarmCount: 1, all: { [renamed] })
        #expect(store.journalLength == 4)
        #expect(!FileManager.default.fileExists(atPath: store.file.string), "no snapshot yet: each change is one appended line")
        #expect(try mode(store.journalFile) == 0o600)
        #expect(AlarmStore(directory: directory).load() == [renamed])
    }

    @Test func aLongJournalIsCompactedIntoTheSnapshot() throws {
        let store = AlarmStore(directory: directory)
        var alarms: [AlarmRecord] = []
        for index in 0..<(AlarmStore.minimumJournalLength + 10) {
            let alarm = try sample("alarm \(index)")
            alarms.append(alarm)
            try store.write([AlarmChange(id: alarm.id, record: alarm)], alarmCount: alarms.count, all: { alarms })
        }
        #expect(store.journalLength <= max(AlarmStore.minimumJournalLength, alarms.count / 2), "the snapshot took the journal's entries")
        #expect(store.journalLength < alarms.count)
        #expect(Set(AlarmStore(directory: directory).load()) == Set(alarms))
        // The snapshot stays ordinary JSON that any reader can parse.
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: store.file.string))) as? [String: Any]
        #expect((object?["alarms"] as? [Any])?.count ?? 0 > AlarmStore.minimumJournalLength)
    }

    /// A crash after the new snapshot but before the journal was emptied replays entries the
    /// snapshot already holds: the same alarms, nothing twice, nothing resurrected.
    @Test func replayingAJournalOverItsOwnSnapshotChangesNothing() throws {
        let store = AlarmStore(directory: directory)
        let (kept, ended) = (try sample("kept"), try sample("ended"))
        try store.write([AlarmChange(id: kept.id, record: kept), AlarmChange(id: ended.id, record: ended)], alarmCount: 2, all: { [kept, ended] })
        try store.write([AlarmChange(id: ended.id, record: nil)], alarmCount: 1, all: { [kept] })
        let journal = try Data(contentsOf: URL(fileURLWithPath: store.journalFile.string))
        try store.save([kept])
        try journal.write(to: URL(fileURLWithPath: store.journalFile.string))
        #expect(AlarmStore(directory: directory).load() == [kept])
    }

    @Test func aTornLastLineIsDroppedAndTheRestKept() throws {
        let store = AlarmStore(directory: directory)
        let (first, second) = (try sample("first"), try sample("second"))
        try store.write([AlarmChange(id: first.id, record: first)], alarmCount: 1, all: { [first] })
        try store.write([AlarmChange(id: second.id, record: second)], alarmCount: 2, all: { [first, second] })
        var bytes = try Data(contentsOf: URL(fileURLWithPath: store.journalFile.string))
        bytes.removeLast(40)   // the crash came in the middle of the second append
        try bytes.write(to: URL(fileURLWithPath: store.journalFile.string))
        let reopened = AlarmStore(directory: directory)
        #expect(reopened.load() == [first])
        #expect(!files().contains { $0.contains("unreadable") }, "an unfinished write is not damage")
        // The next write starts from a clean file, not glued to the torn line.
        let third = try sample("third")
        try reopened.write([AlarmChange(id: third.id, record: third)], alarmCount: 2, all: { [first, third] })
        #expect(Set(AlarmStore(directory: directory).load()) == Set([first, third]))
    }

    @Test func aDamagedLineIsKeptAsideAndTheOthersReplayed() throws {
        var quiet = Logger(label: "journal")
        quiet.logLevel = .critical
        let store = AlarmStore(directory: directory, logger: quiet)
        let alarms = try (0..<3).map { try sample("alarm \($0)") }
        for (index, alarm) in alarms.enumerated() {
            try store.write([AlarmChange(id: alarm.id, record: alarm)], alarmCount: index + 1, all: { Array(alarms[...index]) })
        }
        var lines = try String(contentsOfFile: store.journalFile.string, encoding: .utf8).split(separator: "\n").map(String.init)
        lines[2] = "{not json"
        try (lines.joined(separator: "\n") + "\n").write(toFile: store.journalFile.string, atomically: false, encoding: .utf8)
        let loaded = AlarmStore(directory: directory, logger: quiet).load()
        #expect(loaded == [alarms[0], alarms[2]])
        #expect(files().filter { $0.hasPrefix("alarms.journal.unreadable-") }.count == 1)
        // What was recovered is now the snapshot.
        #expect(AlarmStore(directory: directory, logger: quiet).load() == [alarms[0], alarms[2]])
    }

    // MARK: Degrading per record

    var quiet: Logger {
        var logger = Logger(label: "store")
        logger.logLevel = .critical
        return logger
    }

    /// Replaces line `index` (counted from 0) of `path` with `text`.
    func replaceLine(_ index: Int, of path: FilePath, with text: String) throws {
        var lines = try String(contentsOfFile: path.string, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[index] = text
        try lines.joined(separator: "\n").write(toFile: path.string, atomically: false, encoding: .utf8)
    }

    /// One damaged byte in the snapshot costs that alarm only (it cost 257 of 300); the file
    /// is kept aside whole, 0600, and what was read becomes the store.
    @Test func oneDamagedByteInTheSnapshotLosesOnlyThatAlarm() throws {
        let alarms = try (0..<300).map { try sample("alarm \($0)") }
        try AlarmStore(directory: directory).save(alarms)
        let original = try String(contentsOfFile: directory.appending("alarms.json").string, encoding: .utf8)
        var lines = original.split(separator: "\n").map(String.init)
        lines[43] = lines[43].replacingOccurrences(of: "\"title\"", with: "\"ti\u{1}le\"")
        try (lines.joined(separator: "\n") + "\n").write(toFile: directory.appending("alarms.json").string, atomically: false, encoding: .utf8)

        let store = AlarmStore(directory: directory, logger: quiet)
        let loaded = store.load()
        #expect(loaded == alarms.enumerated().filter { $0.offset != 42 }.map(\.element))
        #expect(store.lastLoad.damaged.map(\.file) == [.snapshot])
        #expect(store.lastLoad.damaged.map(\.line) == [44])
        let aside = try #require(store.lastLoad.keptAside.first)
        #expect(try String(contentsOfFile: aside.string, encoding: .utf8) == lines.joined(separator: "\n") + "\n", "the damaged bytes are kept")
        #expect(try mode(aside) == 0o600)
        let again = AlarmStore(directory: directory, logger: quiet)
        #expect(again.load() == loaded)
        #expect(again.lastLoad.damaged.isEmpty, "what was read is the store now")
    }

    /// An oversized line is counted, not read or kept in memory, and costs that entry only.
    @Test func anOversizedJournalLineIsSkippedAndTheRestReplayed() throws {
        let store = AlarmStore(directory: directory, logger: quiet)
        let alarms = try (0..<3).map { try sample("alarm \($0)") }
        for (index, alarm) in alarms.enumerated() {
            try store.write([AlarmChange(id: alarm.id, record: alarm)], alarmCount: index + 1, all: { Array(alarms[...index]) })
        }
        try replaceLine(2, of: store.journalFile, with: #"{"put":""# + String(repeating: "x", count: AlarmStore.maximumLineBytes + 10) + "\"}")
        let reopened = AlarmStore(directory: directory, logger: quiet)
        #expect(reopened.load() == [alarms[0], alarms[2]])
        #expect(reopened.lastLoad.damaged.count == 1)
        #expect(reopened.lastLoad.damaged.first?.line == 3)
        #expect(reopened.lastLoad.damaged.first?.reason.contains("more than the 1 MiB") == true, "\(reopened.lastLoad.damaged)")
    }

    /// A journal past its limit (a flood of huge records) is read up to the limit; the alarms
    /// in it load, and the whole file is kept aside (the flood took every alarm before).
    @Test func aJournalPastItsLimitIsReadUpToItAndKeptAside() throws {
        let store = AlarmStore(directory: directory, logger: quiet)
        let kept = try sample("kept")
        try store.write([AlarmChange(id: kept.id, record: kept)], alarmCount: 1, all: { [kept] })
        let huge = Data((#"{"put":""# + String(repeating: "x", count: 26 << 20) + "\"}\n").utf8)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: store.journalFile.string))
        try handle.seekToEnd()
        for _ in 0..<3 { try handle.write(contentsOf: huge) }
        let journalSize = Int(try handle.offset())
        try handle.close()
        let reopened = AlarmStore(directory: directory, logger: quiet)
        #expect(reopened.load() == [kept])
        #expect(reopened.lastLoad.damaged.contains { $0.line == 0 && $0.reason.contains("longer than the 64 MiB") }, "\(reopened.lastLoad.damaged)")
        #expect(reopened.lastLoad.damaged.filter { $0.line > 0 }.count == 2, "two huge lines read before the limit")
        let aside = try #require(reopened.lastLoad.keptAside.first)
        #expect(try FileManager.default.attributesOfItem(atPath: aside.string)[.size] as? Int == journalSize, "all of it, the part not read too")
        #expect(AlarmStore(directory: directory, logger: quiet).load() == [kept])
    }

    /// The store never writes what it would not read back: a record past the line limit is refused.
    @Test func aRecordPastTheLineLimitIsRefusedAndNotStored() throws {
        let store = AlarmStore(directory: directory)
        var huge = try sample("huge")
        huge.metadata = String(repeating: "m", count: AlarmStore.maximumLineBytes)
        #expect(throws: AlarmStore.WriteError.self) {
            try store.write([AlarmChange(id: huge.id, record: huge)], alarmCount: 1, all: { [huge] })
        }
        #expect(throws: (any Error).self) { try store.save([huge]) }
        #expect(AlarmStore(directory: directory).load().isEmpty)
    }

    /// `chattr +i`, as the attack did: the journal can be neither written nor replaced (even by
    /// root). Every change is refused, and none of them is there after a restart; the snapshot
    /// is never written ahead of a journal that cannot be emptied.
    @Test func anImmutableJournalRefusesChangesAndLeavesNoTrace() throws {
        let store = AlarmStore(directory: directory)
        let (first, second, third) = (try sample("first"), try sample("second"), try sample("third"))
        try store.write([AlarmChange(id: first.id, record: first)], alarmCount: 1, all: { [first] })
        let chattr = try ChattrImmutable(store.journalFile)
        defer { chattr.undo() }
        // The journal is open already: the append fails, and the next write would be a snapshot.
        #expect(throws: AlarmStore.WriteError.self) {
            try store.write([AlarmChange(id: second.id, record: second)], alarmCount: 2, all: { [first, second] })
        }
        #expect(throws: AlarmStore.WriteError.self) {
            try store.write([AlarmChange(id: third.id, record: third)], alarmCount: 3, all: { [first, second, third] })
        }
        #expect(throws: AlarmStore.WriteError.self) {
            try store.write([AlarmChange(id: first.id, record: nil)], alarmCount: 0, all: { [] })
        }
        chattr.undo()
        #expect(AlarmStore(directory: directory).load() == [first], "no refused change came back, the refused cancel did not apply")
    }

    /// The journal renamed or deleted under an open store: the next change goes to the file a
    /// restart reads, not to the descriptor of one no longer there.
    @Test func aChangeGoesToTheJournalARestartReadsEvenIfTheFileWasReplaced() throws {
        let store = AlarmStore(directory: directory)
        let (first, second) = (try sample("first"), try sample("second"))
        try store.write([AlarmChange(id: first.id, record: first)], alarmCount: 1, all: { [first] })
        #expect(rename(store.journalFile.string, directory.appending("moved").string) == 0)
        try store.write([AlarmChange(id: second.id, record: second)], alarmCount: 2, all: { [first, second] })
        #expect(AlarmStore(directory: directory).load() == [second])
    }

    /// A read-only folder (an immutable one: root ignores modes): every write is refused, the load still reads.
    @Test func aReadOnlyFolderRefusesWritesAndStillLoads() throws {
        let store = AlarmStore(directory: directory)
        let kept = try sample("kept")
        try store.save([kept])
        let chattr = try ChattrImmutable(directory)
        defer { chattr.undo() }
        let reopened = AlarmStore(directory: directory)
        #expect(reopened.load() == [kept])
        #expect(throws: AlarmStore.WriteError.self) { try reopened.checkWritable() }
        let added = try sample("added")
        #expect(throws: AlarmStore.WriteError.self) {
            try reopened.write([AlarmChange(id: added.id, record: added)], alarmCount: 2, all: { [kept, added] })
        }
        #expect(throws: (any Error).self) { try reopened.save([kept, added]) }
        chattr.undo()
        #expect(AlarmStore(directory: directory).load() == [kept])
    }

    /// A snapshot whose journal could not be emptied afterwards (its generation is then not
    /// the snapshot's): the journal's entries are older than the snapshot and are ignored.
    @Test func aJournalLeftBehindByACompactionIsIgnored() throws {
        let store = AlarmStore(directory: directory)
        let (kept, cancelled) = (try sample("kept"), try sample("cancelled"))
        try store.save([kept])
        try store.write([AlarmChange(id: cancelled.id, record: cancelled)], alarmCount: 2, all: { [kept, cancelled] })
        let oldJournal = try Data(contentsOf: URL(fileURLWithPath: store.journalFile.string))
        try store.save([kept])   // the cancel, as a compaction
        try oldJournal.write(to: URL(fileURLWithPath: store.journalFile.string))   // as if it could not be emptied
        let reopened = AlarmStore(directory: directory)
        #expect(reopened.load() == [kept], "the cancelled alarm is not resurrected by the old journal")
        #expect(reopened.lastLoad.damaged.isEmpty, "an obsolete journal is not damage")
        #expect(files().contains { $0.hasPrefix("alarms.journal.unreadable-") }, "but it is kept, in case a damaged byte made it look obsolete")
        // The next change starts a journal of the current snapshot.
        let added = try sample("added")
        try reopened.write([AlarmChange(id: added.id, record: added)], alarmCount: 2, all: { [kept, added] })
        #expect(Set(AlarmStore(directory: directory).load()) == Set([kept, added]))
    }

    /// Stores written before generations (no generation in the snapshot, none in the journal's header) load whole.
    @Test func storesWrittenBeforeGenerationsLoad() throws {
        try AtomicFile.makePrivateDirectory(directory)
        let (first, second) = (try sample("first"), try sample("second"))
        try AtomicFile.write(try AlarmStore.encode([first]), to: directory.appending("alarms.json"))
        let entry = String(decoding: try JSONCoding.compactEncoder.encode(AlarmStore.JournalEntry(put: second)), as: UTF8.self)
        try (#"{"format":"reveille-alarms-journal","version":1}"# + "\n" + entry + "\n")
            .write(toFile: directory.appending("alarms.journal").string, atomically: false, encoding: .utf8)
        let store = AlarmStore(directory: directory)
        #expect(store.load() == [first, second])
        #expect(store.lastLoad.damaged.isEmpty)
        // A pretty-printed snapshot (any JSON form) reads too.
        let pretty = try JSONCoding.encoder.encode(AlarmStore.Contents(alarms: [second]))
        try pretty.write(to: URL(fileURLWithPath: directory.appending("alarms.json").string))
        try FileManager.default.removeItem(atPath: directory.appending("alarms.journal").string)
        #expect(AlarmStore(directory: directory).load() == [second])
    }

    /// The fuzzing entry point: bytes in, alarms and damaged entries out, no disk.
    @Test func decodeReadsBytesAndNamesEachDamagedLine() throws {
        let alarms = try (0..<4).map { try sample("alarm \($0)") }
        var snapshot = String(decoding: try AlarmStore.encode(Array(alarms[0..<3]), generation: "abc"), as: UTF8.self)
            .split(separator: "\n").map(String.init)
        snapshot[2] = "{garbage},"
        let encoder = JSONCoding.compactEncoder
        let journal = [#"{"format":"reveille-alarms-journal","snapshot":"abc","version":1}"#,
                       String(decoding: try encoder.encode(AlarmStore.JournalEntry(put: alarms[3])), as: UTF8.self),
                       "{}",
                       String(decoding: try encoder.encode(AlarmStore.JournalEntry(remove: alarms[0].id)), as: UTF8.self),
                       #"{"put":{"#]   // torn: a write a crash interrupted
        let decoded = AlarmStore.decode(snapshot: Array((snapshot.joined(separator: "\n") + "\n").utf8),
                                        journal: Array(journal.joined(separator: "\n").utf8))
        #expect(decoded.alarms == [alarms[2], alarms[3]])
        #expect(decoded.damaged.map { "\($0.file.rawValue):\($0.line)" } == ["alarms.json:3", "alarms.journal:3"])
        #expect(decoded.journalTornTail)
        #expect(decoded.snapshotGeneration == "abc")
        #expect(AlarmStore.decode(snapshot: [UInt8](), journal: [UInt8]()).alarms.isEmpty)
    }

    @Test func aStateFolderThatCannotHoldTheLockIsLockedInTheRuntimeFolder() throws {
        let base = directory.removingLastComponent()
        try FileManager.default.createDirectory(atPath: base.string, withIntermediateDirectories: true)
        let runtime = base.appending("runtime")
        for (name, make) in [("a-file", { (path: FilePath) in FileManager.default.createFile(atPath: path.string, contents: Data()) }),
                             ("a-dangling-link", { (path: FilePath) in symlink("/nonexistent/reveille", path.string) == 0 })] {
            let folder = base.appending(name)
            #expect(make(folder))
            let lock = try StateLock(directory: folder, runtimeDirectory: runtime)
            #expect(lock.folderProblem != nil)
            #expect(lock.file.string.hasPrefix(runtime.string + "/reveille/state-"), "\(lock.file)")
            // Another process (a second agent) cannot take it. (fcntl locks are per process: ask another one.)
            let probe = Process()
            probe.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            probe.arguments = ["-c", "import fcntl, sys; fcntl.lockf(open(sys.argv[1], 'r+'), fcntl.LOCK_EX | fcntl.LOCK_NB)", lock.file.string]
            probe.standardError = FileHandle.nullDevice
            try probe.run()
            probe.waitUntilExit()
            #expect(probe.terminationStatus != 0, "the lock is held")
        }
        let usual = try StateLock(directory: directory, runtimeDirectory: runtime)
        #expect(usual.file == directory.appending("agent.lock") && usual.folderProblem == nil)
    }

    @Test func xdgStateHomeIsHonouredAndRelativeValuesIgnored() {
        let paths = ReveillePaths(environment: ["HOME": "/home/ann", "XDG_STATE_HOME": "/tmp/state"])
        #expect(paths.stateDirectory == "/tmp/state/reveille")
        #expect(paths.configDirectory == "/home/ann/.config/reveille")
        let fallback = ReveillePaths(environment: ["HOME": "/home/ann", "XDG_STATE_HOME": "relative"])
        #expect(fallback.stateDirectory == "/home/ann/.local/state/reveille")
    }
}

/// `chattr +i` on a path, for as long as the value lives (or until `undo`). Root only: a test
/// that cannot set it fails and says so.
final class ChattrImmutable {
    let path: FilePath
    private var set = false

    init(_ path: FilePath) throws {
        self.path = path
        let status = Self.chattr("+i", path)
        guard status == 0 else { throw StoreTestFailure("chattr +i \(path) failed (\(status)): this test needs root on a file system with the immutable flag (ext4, tmpfs)") }
        set = true
    }

    func undo() {
        guard set else { return }
        set = false
        _ = Self.chattr("-i", path)
    }

    deinit { undo() }

    private static func chattr(_ flag: String, _ path: FilePath) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        process.arguments = [flag, path.string]
        do { try process.run() } catch { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

struct StoreTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

@Suite("Store fuzzing")
struct StoreFuzzTests {
    /// What the libFuzzer target does, in short: mutated snapshots and journals through the pure
    /// decoder never crash it, never invent an alarm, and lose none silently.
    @Test func decodingMutatedSnapshotsAndJournalsNeverCrashesNorLosesSilently() throws {
        let alarms = try (0..<5).map { index in
            try AlarmRecord(id: UUID(), request: request(schedule: relative(7, index, [.monday]), title: "fuzz \(index)"),
                            appID: "cli", now: Date(), timeZone: zone("UTC"))
        }
        let snapshot = [UInt8](try AlarmStore.encode(Array(alarms[0..<3]), generation: "g"))
        var journal = Array(#"{"format":"reveille-alarms-journal","snapshot":"g","version":1}"#.utf8) + [UInt8(ascii: "\n")]
        for alarm in alarms[3...] {
            journal += [UInt8](try JSONCoding.compactEncoder.encode(AlarmStore.JournalEntry(put: alarm))) + [UInt8(ascii: "\n")]
        }
        let whole = AlarmStore.decode(snapshot: snapshot, journal: journal)
        #expect(whole.alarms == alarms && whole.damaged.isEmpty)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<(ProcessInfo.processInfo.environment["REVEILLE_LONG_TESTS"] != nil ? 20_000 : 2_000) {
            var (a, b) = (snapshot, journal)
            func mutate(_ bytes: inout [UInt8]) {
                switch Int.random(in: 0..<5, using: &generator) {
                case 0: bytes.removeLast(Int.random(in: 0..<bytes.count, using: &generator))
                case 1: for _ in 0..<Int.random(in: 1...4, using: &generator) { bytes[Int.random(in: 0..<bytes.count, using: &generator)] = .random(in: 0...255, using: &generator) }
                case 2: bytes.insert(UInt8(ascii: "\n"), at: Int.random(in: 0..<bytes.count, using: &generator))
                case 3: bytes = Array(bytes[Int.random(in: 0..<bytes.count, using: &generator)...])
                default: break
                }
            }
            mutate(&a)
            mutate(&b)
            let decoded = AlarmStore.decode(snapshot: a, journal: b)
            #expect(decoded.alarms.count <= 5)
            #expect(Set(decoded.alarms.map(\.id)).count == decoded.alarms.count, "no alarm twice")
            // (A damaged byte that still reads, in an id say, keeps an alarm: changed, not lost.)
            let lost = alarms.count - decoded.alarms.count
            if lost > 0 && a == snapshot && b == journal { Issue.record("lost \(lost) with nothing damaged") }
            // (An obsolete journal, a changed generation, is kept aside by the load.)
            if lost > 0 { #expect(!decoded.damaged.isEmpty || decoded.journalTornTail || decoded.journalObsolete || b.count < journal.count, "an alarm lost unseen: \(decoded.damaged) \(decoded.snapshotGeneration ?? "-") \(decoded.alarms.map(\.presentation.alert.title)) SNAP[\(String(decoding: a, as: UTF8.self))] JOURNAL[\(String(decoding: b, as: UTF8.self))]") }
        }
    }

    @Test func damagedFilesNeverCrashTheLoadAndAreKeptAside() throws {
        let directory = FilePath(FileManager.default.temporaryDirectory.appendingPathComponent("reveille-fuzz-\(UUID())").path)
        defer { try? FileManager.default.removeItem(atPath: directory.string) }
        var quiet = Logger(label: "fuzz")
        quiet.logLevel = .critical
        let store = AlarmStore(directory: directory, logger: quiet)
        try AtomicFile.makePrivateDirectory(directory)
        let alarms = try (0..<5).map { index in
            try AlarmRecord(id: UUID(), request: request(schedule: relative(7, index, [.monday]), title: "fuzz \(index)"),
                            appID: "cli", now: Date(), timeZone: zone("UTC"))
        }
        let valid = [UInt8](try AlarmStore.encode(alarms))
        let validLines = String(decoding: valid, as: UTF8.self).split(separator: "\n").dropFirst().prefix(5).map(String.init)
        var generator = SystemRandomNumberGenerator()
        let cases = ProcessInfo.processInfo.environment["REVEILLE_LONG_TESTS"] != nil ? 10_000 : 250
        for _ in 0..<cases {
            var bytes = valid
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: bytes.removeLast(Int.random(in: 1..<bytes.count, using: &generator))
            case 1: for _ in 0..<Int.random(in: 1...8, using: &generator) { bytes[Int.random(in: 0..<bytes.count, using: &generator)] = .random(in: 0...255, using: &generator) }
            case 2: bytes.insert(contentsOf: (0..<20).map { _ in UInt8.random(in: 0...255, using: &generator) }, at: Int.random(in: 0..<bytes.count, using: &generator))
            default: bytes = Array(bytes[Int.random(in: 0..<bytes.count, using: &generator)...])
            }
            try Data(bytes).write(to: URL(fileURLWithPath: store.file.string))
            let loaded = store.load()
            // Every line that came through the damage whole still loads (when the first line,
            // which says how to read the rest, did); nothing is invented.
            #expect(loaded.count <= 5)
            let text = String(decoding: bytes, as: UTF8.self)
            if text.hasPrefix(String(decoding: valid.prefix(while: { $0 != UInt8(ascii: "\n") }), as: UTF8.self) + "\n") {
                let intact = zip(alarms, validLines).filter { text.contains("\n" + $1 + "\n") }.map(\.0.id)
                #expect(Set(intact).isSubset(of: Set(loaded.map(\.id))))
            }
            // No alarm is lost unseen: a load with fewer reports what it could not read, and kept it.
            if loaded.count < 5 {
                #expect(!store.lastLoad.damaged.isEmpty && !store.lastLoad.keptAside.isEmpty, "\(text)")
            }
        }
        let aside = try FileManager.default.contentsOfDirectory(atPath: directory.string).filter { $0.contains("unreadable") }
        #expect(!aside.isEmpty, "damaged files were kept, not deleted")
    }
}
