import Foundation
import ReveilleCore
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

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
        /// `interval`: REVEILLE_SYNC_INTERVAL's; `nil` leaves the default.
        init(offsetFile: String, interval: Double? = CalDAVSyncTests.interval) throws {
            session = try TestSession(audio: .none)
            keyring = try session.startSecretService()
            try session.startAgent(["--test-clock-offset-file", offsetFile, "--verbose"],
                                   environment: interval.map { ["REVEILLE_SYNC_INTERVAL": "\($0)"] } ?? [:])
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

        // A restarted agent finds the password in the Secret Service again, and syncs, though
        // its sync state was damaged meanwhile: `sync status` says when it was kept aside.
        try a.session.killAgent(signal: SIGTERM)
        try "{\"collection\": 7".write(toFile: a.session.stateDirectory + "/sync.json", atomically: true, encoding: .utf8)
        try a.session.startAgent(["--test-clock-offset-file", offsetFile], environment: ["REVEILLE_SYNC_INTERVAL": "\(Self.interval)"])
        let again = try b.session.cliJSON(Listed.self, "add", "5:00", "--title", "After the restart")
        _ = try eventually(timeout: Self.patience, "B's new alarm on the restarted A") { try a.state(again.id) }
        let afterDamage = try a.session.cli("sync", "status").stdout
        #expect(afterDamage.contains("the sync state was damaged: it was kept aside as sync.json.unreadable-"), "\(afterDamage)")
        // Removed on B: A takes it, and says so in `sync status` (counted over the last day).
        #expect(try b.session.cli("cancel", offline.id).status == 0)
        _ = try eventually(timeout: Self.patience, "the removal on A") { try a.state(offline.id) == nil ? true : nil }
        let afterRemoval = try a.session.cli("sync", "status").stdout
        #expect(afterRemoval.contains("In the last 24 hours, 1 alarm was removed here because it was deleted on the server or on another computer."),
                "\(afterRemoval)")

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

    struct Entry: Decodable { var alarm: String; var outcome: String }
    struct Rounds: Decodable { var rounds: Int }

    /// Issue 41: with default settings (rounds every 30 s), a Stop on one machine silences the
    /// other within 3 s: rounds come every 2 s while an alarm rings there, and the Stop is written
    /// at once. Before, it took 30.0–30.2 s, every time. A one-time alarm's Stop travels as
    /// ACKNOWLEDGED, so both histories say "stopped" (the other said "cancelled").
    @Test func withDefaultSettingsAStopSilencesTheOtherMachineWithinThreeSecondsAndBothHistoriesSayStopped() throws {
        let server = try RadicaleServer()
        let offsetFile = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-sync-clock-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: offsetFile) }
        let ring = ((Date().timeIntervalSince1970 / 60).rounded(.down) + 4) * 60
        try "0".write(toFile: offsetFile, atomically: true, encoding: .utf8)
        let a = try Machine(offsetFile: offsetFile, interval: nil), b = try Machine(offsetFile: offsetFile, interval: nil)
        #expect(try a.syncAdd(server).status == 0)
        // One-time: no --days.
        let hhmm = ISO8601Local.string(from: Date(timeIntervalSince1970: ring), in: UTCTimeZone()).dropFirst(11).prefix(5)
        let added = try a.session.cliJSON(Listed.self, "add", String(hhmm), "--title", "Once")
        _ = try eventually(timeout: Self.patience, "A's first round") {
            try a.session.cli("sync", "status").stdout.contains("The last round worked.") ? true : nil
        }
        // B's first round takes it (its later rounds come 30 s apart).
        #expect(try b.syncAdd(server).status == 0)
        _ = try eventually(timeout: Self.patience, "the alarm on B") { try b.state(added.id) }

        try "\(ring - 3 - Date().timeIntervalSince1970)".write(toFile: offsetFile, atomically: true, encoding: .utf8)
        try a.clockSet()
        try b.clockSet()
        _ = try eventually(timeout: 40, "both machines ringing") {
            try a.state(added.id) == "alerting" && b.state(added.id) == "alerting" ? true : nil
        }
        // Pressed once a round has run on each machine since both rang, as a person takes a moment:
        // the round the ring itself began has restarted the wait for the next.
        func rounds(_ machine: Machine) throws -> Int { try machine.session.cliJSON(Rounds.self, "sync", "status", "--json").rounds }
        let (roundsA, roundsB) = (try rounds(a), try rounds(b))
        _ = try eventually(timeout: 10, "a round on each machine since both rang") {
            try rounds(a) > roundsA && rounds(b) > roundsB ? true : nil
        }
        let stopped = Date()
        #expect(try a.session.cli("stop", added.id).status == 0)
        do {
            // Longer than the default interval: a regression is measured, not cut short.
            _ = try eventually(timeout: 40, "B silenced") { try b.state(added.id) != "alerting" ? true : nil }
        } catch {
            print("A LOG:", (try? String(contentsOfFile: a.session.agentLog, encoding: .utf8)) ?? "")
            print("B LOG:", (try? String(contentsOfFile: b.session.agentLog, encoding: .utf8)) ?? "")
            throw error
        }
        let latency = Date().timeIntervalSince(stopped)
        print("default settings: Stop on A to silence on B: \(String(format: "%.2f", latency)) s")
        #expect(latency < 3, "\(latency) s")

        for (name, machine) in [("A", a), ("B", b)] {
            let entries = try eventually(timeout: 10, "\(name)'s history") {
                let entries = try machine.session.cliJSON([Entry].self, "history", "--json").filter { $0.alarm == added.id }
                return entries.isEmpty ? nil : entries
            }
            #expect(entries.map(\.outcome) == ["stopped"], "\(name)")
            #expect(try machine.state(added.id) == nil, "\(name): a one-time alarm ends when stopped")
        }
    }

    /// A CalDAV server of the test's own listing `count` events (daily alarms far ahead) to
    /// every sync report, and giving each asked for in a multiget.
    static let manyEventsServer = #"""
        import http.server, re, sys
        count = int(sys.argv[2])
        def event(uid):
            return ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:%s\r\nDTSTAMP:20260101T000000Z\r\n"
                    "DTSTART:20300101T070000Z\r\nRRULE:FREQ=DAILY\r\nSUMMARY:Server %s\r\nBEGIN:VALARM\r\nACTION:DISPLAY\r\n"
                    "DESCRIPTION:x\r\nTRIGGER:PT0S\r\nEND:VALARM\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n") % (uid, uid[:8])
        def uid(n): return "%08x-0000-4000-8000-000000000000" % n
        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            def log_message(self, *args): pass
            def send(self, status, body=b""):
                self.send_response(status); self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
            def do_MKCALENDAR(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0)); self.send(201)
            def do_REPORT(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
                prefix = self.path.rstrip("/") + "/"
                if "sync-collection" in body:
                    items = "".join('<D:response><D:href>%s%s.ics</D:href><D:propstat><D:prop><D:getetag>"1"</D:getetag></D:prop>'
                                    '<D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>' % (prefix, uid(n)) for n in range(count))
                else:
                    hrefs = re.findall(r"<D:href>([^<]*)</D:href>", body)
                    items = "".join('<D:response><D:href>%s</D:href><D:propstat><D:prop><D:getetag>"1"</D:getetag><C:calendar-data>%s</C:calendar-data>'
                                    '</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>' % (h, event(h.split("/")[-1][:-4])) for h in hrefs)
                self.send(207, ('<?xml version="1.0"?><D:multistatus xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">%s'
                                '<D:sync-token>http://test/sync/1</D:sync-token></D:multistatus>' % items).encode())
        http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
        """#

    /// N5: a collection of 10,000 events is taken a batch at a time, the loop turning between
    /// batches: the user's own timer rings on time meanwhile (it was 35.5 s late when all were
    /// taken in one go).
    @Test func aCollectionOfTenThousandEventsNeitherDelaysTheUsersAlarmNorTakesItsQuota() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-many-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.manyEventsServer.write(toFile: directory + "/server.py", atomically: true, encoding: .utf8)
        let port = try RadicaleServer.freePort()
        let server = try Subprocess.start("/usr/bin/python3", [directory + "/server.py", String(port), "10000"],
                                          environment: ProcessInfo.processInfo.environment, stderr: directory + "/server.log")
        defer { server.terminate() }
        _ = try eventually(timeout: 10, "the server to listen") { RadicaleServer.accepts(port) ? true : nil }

        let session = try TestSession()
        let keyring = try session.startSecretService()
        defer { keyring.terminate() }
        try session.startAgent(["--verbose"], environment: ["REVEILLE_SYNC_INTERVAL": "\(Self.interval)"])
        let added = try Subprocess.run("/bin/sh", ["-c", "printf 'secret\\n' | \"$REVEILLE\" sync add \"$URL\" --user alice"],
                                       environment: session.environment.merging([
                                           "REVEILLE": session.binaries + "/reveille", "URL": "http://127.0.0.1:\(port)/alice/reveille/"]) { $1 },
                                       timeout: 60)
        #expect(added.status == 0, "\(added.stdout)\(added.stderr)")
        // Adoption under way: the user's timer, due in 3 s, rings on time.
        _ = try eventually(timeout: Self.patience, "the first events taken") { try session.cliJSON([AlarmJSON].self, "list").count > 0 ? true : nil }
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "3s", "--title", "Mine")
        let due = try #require(timer.fireDate.flatMap { ISO8601Local.parse($0, defaultTimeZone: UTCTimeZone()) })
        let alert = try eventually(timeout: 30, "the user's timer to ring") { try session.alerts(titled: "Mine").first }
        let late = alert.time - due.timeIntervalSince1970
        print("the user's timer, with 10,000 events being taken: notified \(String(format: "%.3f", late)) s after it was due")
        #expect(late < 1.5, "\(late) s late")

        // The collection's alarms have their own quota (2,000; SyncFollowerTests checks it to the
        // alarm): the user's tools add theirs while they come in.
        let mine = try session.cli("timer", "1h", "--title", "Mine too")
        #expect(mine.status == 0, "\(mine.stderr)")
    }
}
