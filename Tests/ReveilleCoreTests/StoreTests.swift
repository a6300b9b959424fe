import Foundation
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
        #expect(text.contains(#""version" : 1"#))
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
        let store = AlarmStore(directory: directory)
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

    @Test func xdgStateHomeIsHonouredAndRelativeValuesIgnored() {
        let paths = ReveillePaths(environment: ["HOME": "/home/ann", "XDG_STATE_HOME": "/tmp/state"])
        #expect(paths.stateDirectory == "/tmp/state/reveille")
        #expect(paths.configDirectory == "/home/ann/.config/reveille")
        let fallback = ReveillePaths(environment: ["HOME": "/home/ann", "XDG_STATE_HOME": "relative"])
        #expect(fallback.stateDirectory == "/home/ann/.local/state/reveille")
    }
}
