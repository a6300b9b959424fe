import Foundation
import Testing
import ReveilleTestTraits
import ReveilleCore
import ReveilleTestSupport

/// Two machines: two agents in two private sessions with separate state folders, each with
/// its own Secret Service (gnome-keyring), syncing through a real Radicale on loopback.
@Suite("CalDAV sync end to end", .waitsOnItsOwnThread)
struct CalDAVSyncTests {
    struct Listed: Decodable { var id: String; var title: String; var state: String }

    static let interval = 2.0
    /// How long a wait may take on a loaded machine before it fails; the Stop's latency is
    /// measured and bounded on its own.
    static let patience = 30.0

    /// A machine: a session, its Secret Service, an agent whose clock reads `offsetFile`.
    final class Machine {
        let session: TestSession
        let keyring: Subprocess.Child
        init(offsetFile: String) throws {
            session = try TestSession(audio: .none)
            keyring = try session.startSecretService()
            try session.startAgent(["--test-clock-offset-file", offsetFile, "--verbose"], environment: ["REVEILLE_SYNC_INTERVAL": "\(CalDAVSyncTests.interval)"])
        }
        deinit { keyring.terminate() }

        func list() throws -> [Listed] { try session.cliJSON([Listed].self, "list") }
        func state(_ id: String) throws -> String? { try session.agentState(of: id) }

        /// `reveille sync add`, the password on standard input.
        func syncAdd(_ server: RadicaleServer) throws -> Subprocess.Result {
            try Subprocess.run("/bin/sh", ["-c", "printf '%s\\n' \"$PW\" | \"$REVEILLE\" sync add \"$URL\" --user \"$USER_NAME\""],
                               environment: session.environment.merging([
                                   "PW": server.password, "REVEILLE": session.binaries + "/reveille",
                                   "URL": server.collection("reveille"), "USER_NAME": server.user]) { $1 })
        }

        /// Re-reads the clock offset (SIGUSR1: as if the clock had been set).
        func clockSet() throws {
            let pid = try #require(try session.ownerPID(of: AgentInterface.busName))
            kill(pid, SIGUSR1)
        }
    }

    @Test func twoMachinesShareAnAlarmSilenceEachOtherOnStopAndShareASnooze() throws {
        let server = try RadicaleServer()
        let offsetFile = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-sync-clock-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: offsetFile) }
        // The alarm rings at a whole minute a few minutes ahead; once it is on both machines,
        // both clocks are set to 5 s before it (however long the setting up took).
        let ring = ((Date().timeIntervalSince1970 / 60).rounded(.down) + 4) * 60
        try "0".write(toFile: offsetFile, atomically: true, encoding: .utf8)
        let a = try Machine(offsetFile: offsetFile), b = try Machine(offsetFile: offsetFile)

        // Nothing travels before `sync add`; then the password lives in the Secret Service only.
        for machine in [a, b] {
            let added = try machine.syncAdd(server)
            #expect(added.status == 0, "\(added.stdout)\(added.stderr)")
            #expect(try machine.session.cli("sync", "status").stdout.contains("The last round worked."))
        }
        let stateFiles = try FileManager.default.subpathsOfDirectory(atPath: a.session.stateDirectory)
        for file in stateFiles {
            let text = (try? String(contentsOfFile: a.session.stateDirectory + "/" + file, encoding: .utf8)) ?? ""
            #expect(!text.contains(server.password), "\(file) holds the password")
        }

        // Added on A, it appears on B.
        let hhmm = ISO8601Local.string(from: Date(timeIntervalSince1970: ring), in: UTCTimeZone()).dropFirst(11).prefix(5)
        let added = try a.session.cliJSON(Listed.self, "add", String(hhmm), "--days", "daily", "--title", "Travels")
        let appeared = try eventually(timeout: Self.patience, "the alarm on B") { try b.state(added.id) }
        #expect(appeared == "scheduled")

        // Both ring; Stop on A silences B within the interval.
        try "\(ring - 5 - Date().timeIntervalSince1970)".write(toFile: offsetFile, atomically: true, encoding: .utf8)
        try a.clockSet()
        try b.clockSet()
        _ = try eventually(timeout: 40, "both machines ringing") {
            try a.state(added.id) == "alerting" && b.state(added.id) == "alerting" ? true : nil
        }
        let stopped = Date()
        #expect(try a.session.cli("stop", added.id).status == 0)
        do {
            _ = try eventually(timeout: Self.patience, "B silenced") { try b.state(added.id) != "alerting" ? true : nil }
        } catch {
            print("A LOG:", (try? String(contentsOfFile: a.session.agentLog, encoding: .utf8)) ?? "")
            print("B LOG:", (try? String(contentsOfFile: b.session.agentLog, encoding: .utf8)) ?? "")
            print("A SYNC:", (try? String(contentsOfFile: a.session.stateDirectory + "/sync.json", encoding: .utf8)) ?? "")
            print("B SYNC:", (try? String(contentsOfFile: b.session.stateDirectory + "/sync.json", encoding: .utf8)) ?? "")
            throw error
        }
        let latency = Date().timeIntervalSince(stopped)
        print("Stop on A to silence on B: \(String(format: "%.2f", latency)) s (sync interval \(Self.interval) s)")
        // A sends its Stop at once; B hears it at its next round: at most an interval, and the
        // rounds' own time (slower on a loaded machine).
        #expect(latency < Self.interval + 5)

        // The next day's occurrence: both ring; snoozed on B, A snoozes too.
        try "\(ring + 86_400 - 5 - Date().timeIntervalSince1970)".write(toFile: offsetFile, atomically: true, encoding: .utf8)
        try a.clockSet()
        try b.clockSet()
        _ = try eventually(timeout: 30, "both machines ringing again") {
            try a.state(added.id) == "alerting" && b.state(added.id) == "alerting" ? true : nil
        }
        #expect(try b.session.cli("snooze", added.id).status == 0)
        _ = try eventually(timeout: Self.patience, "A snoozed") { try a.state(added.id) == "countdown" ? true : nil }

        // The server killed: a change on A is kept, reported, and arrives once it is back.
        server.stop()
        let offline = try a.session.cliJSON(Listed.self, "add", "6:00", "--title", "Made offline")
        _ = try eventually(timeout: Self.patience, "A to report the server down") {
            try a.session.cli("sync", "status").stdout.contains("Last problem:") ? true : nil
        }
        #expect(try a.state(offline.id) == "scheduled", "nothing local is lost")
        try server.start()
        _ = try eventually(timeout: Self.patience, "the offline alarm on B") { try b.state(offline.id) }

        // A restarted agent finds the password in the Secret Service again, and syncs.
        try a.session.killAgent(signal: SIGTERM)
        try a.session.startAgent(["--test-clock-offset-file", offsetFile], environment: ["REVEILLE_SYNC_INTERVAL": "\(Self.interval)"])
        let again = try b.session.cliJSON(Listed.self, "add", "5:00", "--title", "After the restart")
        _ = try eventually(timeout: Self.patience, "B's new alarm on the restarted A") { try a.state(again.id) }

        // Removed: the account and the password are forgotten; the alarms stay.
        let removed = try b.session.cli("sync", "remove")
        #expect(removed.status == 0 && removed.stdout.contains("Sync is off"), "\(removed.stderr)")
        #expect(try b.session.cli("sync", "status").stdout.contains("Sync is off: nothing is sent anywhere."))
        #expect(!FileManager.default.fileExists(atPath: b.session.stateDirectory + "/sync.json"))
        #expect(try b.state(again.id) == "scheduled")
        let lookup = try Subprocess.run("/usr/bin/secret-tool", ["lookup", "url", server.collection("reveille"), "user", server.user],
                                        environment: b.session.environment)
        #expect(lookup.stdout.isEmpty, "the password left the Secret Service")
        let kept = try Subprocess.run("/usr/bin/secret-tool", ["lookup", "url", server.collection("reveille"), "user", server.user],
                                      environment: a.session.environment)
        #expect(kept.stdout == server.password, "A's password is in its Secret Service")
    }
}
