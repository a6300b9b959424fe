import Foundation
import Logging
import SystemPackage
import Testing
@testable import ReveilleCore

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
        #expect(!files().contains(name) || name == "alarms.journal")

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

    @Test func xdgStateHomeIsHonouredAndRelativeValuesIgnored() {
        let paths = ReveillePaths(environment: ["HOME": "/home/ann", "XDG_STATE_HOME": "/tmp/state"])
        #expect(paths.stateDirectory == "/tmp/state/reveille")
        #expect(paths.configDirectory == "/home/ann/.config/reveille")
        let fallback = ReveillePaths(environment: ["HOME": "/home/ann", "XDG_STATE_HOME": "relative"])
        #expect(fallback.stateDirectory == "/home/ann/.local/state/reveille")
    }
}

@Suite("Store fuzzing")
struct StoreFuzzTests {
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
        var generator = SystemRandomNumberGenerator()
        let cases = ProcessInfo.processInfo.environment["REVEILLE_LONG_TESTS"] != nil ? 10_000 : 1_000
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
            // Either it still reads (a change inside a string, say) and stays, or it is kept aside whole.
            if FileManager.default.fileExists(atPath: store.file.string) {
                #expect(loaded.count == 5)
            } else {
                #expect(loaded.isEmpty)
            }
        }
        let aside = try FileManager.default.contentsOfDirectory(atPath: directory.string).filter { $0.contains("unreadable") }
        #expect(!aside.isEmpty, "damaged files were kept, not deleted")
    }
}
