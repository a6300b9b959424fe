import Foundation
import ReveilleCore
import ReveilleModel
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import ReveilleTimeZone
import SystemPackage
import Testing

/// A state folder the agent cannot write: it starts all the same, rings what it has, answers
/// Stop, and says once (log, notice, each refused change's error) that changes cannot be saved.
@Suite("Unwritable state folder end to end", .waitsOnItsOwnThread)
struct ReadOnlyStateTests {
    /// A timer stored by an earlier agent, due `seconds` from now.
    func storeTimer(_ title: String, dueIn seconds: TimeInterval, in state: String) throws -> AlarmRecord {
        let request = AlarmRequest(schedule: nil, countdownDuration: .init(preAlert: seconds, postAlert: nil),
                                   presentation: AlarmPresentation(alert: .init(title: title)))
        let record = try AlarmRecord(id: UUID(), request: request, appID: ClientIdentity.userAppID, now: Date(), timeZone: UTCTimeZone())
        try AlarmStore(directory: FilePath(state).appending("reveille")).save([record])
        return record
    }

    /// A tmpfs remounted read-only (root runs the tests: `mount` works, as for the full-folder
    /// test; modes would not stop root, a read-only file system does).
    @Test func anAgentOnAReadOnlyStateFolderRingsWhatItHasAndAnswersStop() throws {
        let session = try TestSession(audio: .none)
        let state = session.directory + "/read-only-state"
        let mounted = try session.mountTmpfs(at: state, options: "size=1m,mode=700")
        guard mounted.status == 0 else {
            Issue.record("this test needs to mount a tmpfs (root with CAP_SYS_ADMIN): \(mounted.stderr)"); return
        }
        let mount = try Subprocess.find("mount", package: "mount")
        let stored = try storeTimer("Read-only", dueIn: 4, in: state)
        let remount = try Subprocess.run(mount, ["-o", "remount,ro", state], environment: session.environment)
        try #require(remount.status == 0, "remount read-only: \(remount.stderr)")

        try session.startAgent(environment: ["XDG_STATE_HOME": state])
        let cli = { (arguments: [String]) in
            try Subprocess.run(session.binaries + "/reveille", arguments, environment: session.environment.merging(["XDG_STATE_HOME": state]) { $1 })
        }
        let notice = try eventually(timeout: 20, "the notice that changes cannot be saved") {
            try session.notifications(titled: "Reveille cannot save changes").first
        }
        #expect(notice.body?.contains("Read-only file system") == true, "it says why: \(notice.body ?? "")")
        _ = try eventually(timeout: 8, "the stored alarm to ring") { try session.alerts(titled: "Read-only").first }
        let refused = try cli(["timer", "1h", "--title", "New"])
        #expect(refused.status != 0 && refused.stderr.contains("could not write"), "a change is refused, saying why: \(refused.stderr)")
        let stop = try cli(["stop", stored.id.uuidString])
        #expect(stop.status == 0, "Stop is answered: \(stop.stderr)")
        #expect(try cli(["list", "--json"]).stdout.contains("\"alerting\"") == false)
        let log = try String(contentsOfFile: session.agentLog, encoding: .utf8)
        #expect(log.contains("cannot hold the agent's lock") && log.contains("/runtime/reveille/state-"), "the lock moved to XDG_RUNTIME_DIR: \(log)")
        #expect(try session.notifications(titled: "Reveille cannot save changes").count == 1, "told once")
        #expect(session.agent?.isRunning == true)
    }

    /// `XDG_STATE_HOME/reveille` a regular file, or a link to nowhere: both exited 1 at every start.
    @Test(arguments: ["a file", "a dangling link"])
    func aStateFolderThatIsNotAFolderStillLetsTheAgentStart(_ kind: String) throws {
        let session = try TestSession(audio: .none)
        let state = session.directory + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        if kind == "a file" {
            #expect(FileManager.default.createFile(atPath: state + "/reveille", contents: Data("not a folder\n".utf8)))
        } else {
            try FileManager.default.createSymbolicLink(atPath: state + "/reveille", withDestinationPath: session.directory + "/nowhere/reveille")
        }
        try session.startAgent()
        _ = try eventually(timeout: 20, "the notice that changes cannot be saved") {
            try session.notifications(titled: "Reveille cannot save changes").first
        }
        let refused = try session.cli("timer", "1h", "--title", "New")
        #expect(refused.status != 0 && refused.stderr.contains("could not write"), "\(refused.stderr)")
        #expect(try session.cliJSON([AlarmJSON].self, "list").isEmpty)
        #expect(session.agent?.isRunning == true)
    }
}
