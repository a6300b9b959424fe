import Foundation
import ReveilleBus
import ReveilleCore
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import SystemPackage
import Testing

/// The one gate of every object the agent exports (issue 43: N1, N2): every door on a live
/// agent, listed by introspection, refuses a caller it cannot identify, the panel's doors refuse
/// a sandboxed app, and floods through them from connections that never read neither delay the
/// user's alarm nor grow the agent or the bus. Driven by `doors.py` (python3-dbus, python3-gi).
@Suite("The gate of every exported object end to end", .waitsOnItsOwnThread)
struct GateTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Support/hostile-client/doors.py").path
    static let hostileClient = URL(fileURLWithPath: script).deletingLastPathComponent().appendingPathComponent("hostile-client.py").path

    /// Who each interface is for; a door not named here is taken to be the user's (the panel's
    /// are): a new door meant for apps is added here, once it answers each app with its own view.
    static let forEveryone: Set<String> = [AgentInterface.interface]

    struct Door: Codable { var path: String; var interface: String; var methods: [[String]]; var properties: [String] }
    struct Knock: Decodable { var path: String; var interface: String; var member: String; var answer: String }

    func python(_ session: TestSession, sandbox: [String] = [], _ arguments: [String], timeout: TimeInterval = 60) throws -> Data {
        guard (try? Subprocess.run("/usr/bin/python3", ["-c", "import dbus, gi"], environment: session.environment).status) == 0 else {
            throw Subprocess.Failure("/usr/bin/python3 with dbus and gi is missing (Debian packages python3-dbus, python3-gi)")
        }
        let command = sandbox.isEmpty ? "/usr/bin/python3" : try Subprocess.find("bwrap", package: "bubblewrap")
        let result = try Subprocess.run(command, sandbox + (sandbox.isEmpty ? [] : ["/usr/bin/python3"]) + arguments,
                                        environment: session.environment, timeout: timeout)
        guard result.status == 0 else { throw Subprocess.Failure("\(arguments.prefix(2).joined(separator: " ")) failed (\(result.status)): \(result.stderr)") }
        return Data(result.stdout.utf8)
    }

    /// A bubblewrap sandbox (a fresh root with the system's /usr, /tmp where the bus is, and the
    /// scripts) whose `/.flatpak-info` holds `info`.
    func sandbox(_ session: TestSession, _ name: String, info: String) throws -> [String] {
        let file = session.directory + "/\(name).flatpak-info"
        try info.write(toFile: file, atomically: true, encoding: .utf8)
        let folder = URL(fileURLWithPath: Self.script).deletingLastPathComponent().path
        return ["--tmpfs", "/", "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
                "--symlink", "usr/bin", "/bin", "--bind", "/tmp", "/tmp", "--ro-bind", folder, folder,
                "--proc", "/proc", "--dev", "/dev", "--ro-bind", file, "/.flatpak-info", "--"]
    }

    func knock(_ session: TestSession, _ doors: [Door], from sandbox: [String]) throws -> [Knock] {
        let listed = String(decoding: try JSONEncoder().encode(doors), as: UTF8.self)
        return try JSONDecoder().decode([Knock].self, from: try python(session, sandbox: sandbox, [Self.script, "knock", listed], timeout: 120))
    }

    /// GDBus answers `GetAll` of an interface without properties itself, with nothing in it.
    func isRefusal(_ knock: Knock) -> Bool { !knock.answer.hasPrefix("ok") || knock.answer == "ok: ({},)" }

    @Test func everyDoorOnTheAgentsConnectionIsBehindTheGateAndASandboxGetsNothingOfTheUsersFromThePanel() throws {
        let session = try TestSession(audio: .none)
        try session.startStatusNotifierWatcher()
        try session.startAgent()
        let secret = "users private medication alarm"
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "10m", "--title", secret)
        _ = try eventually("the panel item to show the timer") {
            ((try? String(contentsOfFile: session.statusNotifierLog, encoding: .utf8)) ?? "").contains(secret) ? true : nil
        }

        let doors = try JSONDecoder().decode([Door].self, from: try python(session, [Self.script, "list"]))
        let exported = Set(doors.map { "\($0.path) \($0.interface)" })
        #expect(exported.isSuperset(of: ["/io/github/reveille/Reveille \(AgentInterface.interface)",
                                         "/StatusNotifierItem org.kde.StatusNotifierItem", "/MenuBar com.canonical.dbusmenu"]), "\(exported)")

        // A caller whose identity cannot be told is refused at every door, before any work.
        let nobody = try knock(session, doors, from: try sandbox(session, "garbled", info: "\u{1}not a key file"))
        #expect(nobody.count >= doors.count)
        let answeredNobody = nobody.filter { !isRefusal($0) || !($0.answer.hasPrefix("ok") || $0.answer.contains("cannot tell whether")) }
        #expect(answeredNobody.isEmpty, "\(answeredNobody.count) of \(nobody.count) answered a caller the agent cannot identify: \(answeredNobody.prefix(5).map { "\($0.path) \($0.interface).\($0.member): \($0.answer.prefix(160))" })")

        // A sandboxed app is refused at every door that is the user's, and reads nothing of the user's.
        let usersDoors = doors.filter { !Self.forEveryone.contains($0.interface) }
        #expect(!usersDoors.isEmpty)
        let boxed = try knock(session, usersDoors, from: try sandbox(session, "boxed", info: "[Application]\nname=org.test.Boxed\n"))
        let answeredBoxed = boxed.filter { !isRefusal($0) || !($0.answer.hasPrefix("ok") || $0.answer.contains("org.freedesktop.DBus.Error.AccessDenied")) }
        #expect(answeredBoxed.isEmpty, "\(answeredBoxed.count) of \(boxed.count) answered a sandboxed app: \(answeredBoxed.prefix(5).map { "\($0.path) \($0.interface).\($0.member): \($0.answer.prefix(160))" })")
        #expect(!boxed.contains { $0.answer.contains(secret) }, "the sandbox read the user's alarm's title")
        #expect(boxed.contains { $0.member == "Event(2)" }, "the sandbox clicked the menu's items")
        // Its clicks on Pause and Cancel reached nothing: the timer still counts down.
        #expect(try session.agentState(of: timer.id) == "countdown")
        // The desktop's panel host (an unconfined process, no app) still reads the item.
        let log = try String(contentsOfFile: session.statusNotifierLog, encoding: .utf8)
        #expect(!log.contains("AccessDenied"), "the panel host was refused: \(log.suffix(400))")
    }

    /// Peak resident memory of a process (`VmHWM`), in MiB.
    func peakMiB(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        return try #require(status.firstMatch(of: /VmHWM:\s+(\d+) kB/).flatMap { Int($0.1) }) / 1024
    }

    /// Floods `kind` through `connections` connections that never read, from 2 s before a timer of
    /// the user's is due to `seconds` after: returns how late its alert was, and the peaks of the
    /// agent and the bus daemon.
    func alarmDelay(under kind: String, connections: Int, seconds: Double, calls: Int = .max, _ session: TestSession) throws -> (delay: Double, agent: Int, bus: Int, sent: [Int]) {
        let title = "Flooded \(kind)"
        let due = Date().timeIntervalSince1970 + 3
        _ = try session.cliJSON(AlarmJSON.self, "timer", "3s", "--title", title)
        struct Sent: Decodable { var sent: [Int] }
        let flood = try JSONDecoder().decode(Sent.self, from: try python(session, [Self.script, "flood", kind, "\(connections)", "\(seconds)", "\(min(calls, 1 << 62))"],
                                                                          timeout: seconds + 30))
        let alert = try eventually(timeout: 60, "the flooded alarm's alert") { try session.alerts(titled: title).first }
        let agent = try #require(try session.ownerPID(of: AgentInterface.busName))
        let bus = try #require(try session.ownerPID(of: "org.freedesktop.DBus"))
        return (alert.time - due, try peakMiB(agent), try peakMiB(bus), flood.sent)
    }

    @Test func menuCallsFromConnectionsThatNeverReadNeitherDelayTheAlarmNorGrowTheAgent() throws {
        let session = try TestSession(audio: .none)
        try session.startStatusNotifierWatcher()
        try session.startAgent()
        // Four connections, GetGroupProperties with 15,000 ids each (under 64 KiB a call), as in N1.
        let flooded = try alarmDelay(under: "menu", connections: 4, seconds: 8, session)
        print("menu flood: sent \(flooded.sent); alert \(String(format: "%.2f", flooded.delay)) s after due; agent peak \(flooded.agent) MiB, bus daemon peak \(flooded.bus) MiB")
        #expect(flooded.sent.allSatisfy { $0 > 100 }, "the flood was sent: \(flooded.sent)")
        #expect(flooded.delay < 5, "the alert came \(flooded.delay) s after the alarm was due")
        #expect(flooded.agent < 150 && flooded.bus < 150, "agent \(flooded.agent) MiB, bus \(flooded.bus) MiB at the peak")
    }

    /// Introspect is answered with the agent's whole interface description, a hundred times
    /// the size of the call; GDBus answers it itself, outside the gate, and 8 connections that
    /// never read took the agent to 1.4-1.9 GB. The panel menu's EventGroup with 2,000 clicks
    /// from 200 connections grew it 500 MB a second. Each goes through the gate now: its
    /// identity, its budget of loop time and of unread replies.
    @Test(.serialized, arguments: [("introspect", 8), ("eventgroup", 200)])
    func floodsOfIntrospectionAndEventGroupsNeitherDelayTheAlarmNorGrowTheAgent(kind: String, connections: Int) throws {
        let session = try TestSession(audio: .none)
        try session.startStatusNotifierWatcher()
        try session.startAgent()
        let idle = try residentMiB(try #require(try session.ownerPID(of: AgentInterface.busName)))
        let flooded = try alarmDelay(under: kind, connections: connections, seconds: 10, session)
        print("\(kind) flood from \(connections) connections: sent \(flooded.sent.reduce(0, +)); alert \(String(format: "%.2f", flooded.delay)) s after due; agent peak \(flooded.agent) MiB (idle \(idle) MiB), bus daemon peak \(flooded.bus) MiB")
        #expect(flooded.sent.reduce(0, +) > 100, "the flood was sent: \(flooded.sent)")
        #expect(flooded.delay < 5, "the alert came \(flooded.delay) s after the alarm was due")
        #expect(flooded.agent - idle < Self.floodCeilingMiB, "agent \(flooded.agent) MiB at the peak, \(idle) MiB idle")
        // Introspection's answers wait in the bus for connections that do not read them: they
        // are counted against each caller's unread budget now (before: the daemon held 249 MiB).
        #expect(flooded.bus < 150, "the bus daemon \(flooded.bus) MiB at the peak")
    }

    /// What any flood may add to the agent's memory (the ceiling `make bench` reports against).
    static let floodCeilingMiB = 64

    /// Resident memory of a process now (`VmRSS`), in MiB.
    func residentMiB(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        return try #require(status.firstMatch(of: /VmRSS:\s+(\d+) kB/).flatMap { Int($0.1) }) / 1024
    }

    /// 200 connections flood a cheap answering call (Stop of no alarm) or the panel item's
    /// GetAll, each connection new to the agent: who each caller is, is asked of the bus without
    /// waiting on the loop, once, its refusal kept; answering calls have a budget of their own,
    /// and the waiting places go round. So the alarm due meanwhile sounds on time and the user's
    /// own `reveille stop` is answered. (Before: 50 such connections left an alarm silent 25 s
    /// after due, the identity look-ups timing out one after another on the loop.) The
    /// notification itself travels through the flooded bus daemon, which delivers it when it can.
    /// The EventGroup flood of 64 KiB calls fills the agent's queue in the bus daemon, which
    /// then drops the signals it owes the agent: the user's new connection was never heard
    /// appearing, and its `reveille stop` was refused as a reused process id (found by `make bench`).
    /// The user's stop goes by the agent's direct line, where no flood of the bus holds it back.
    @Test(.serialized, arguments: ["stop", "getall", "eventgroup", "direct-stop"])
    func aFloodOfNewConnectionsNeitherDelaysTheAlarmNorTheUsersStop(kind: String) throws {
        let session = try TestSession()
        try session.startStatusNotifierWatcher()
        try session.startAgent()
        let other = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "Other")
        let title = "Flooded \(kind)"
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "4s", "--title", title)
        // When the agent says it rings (a moment after the call, on a loaded machine).
        let due = try #require(timer.fireDate.flatMap { ISO8601Local.parse($0, defaultTimeZone: UTCTimeZone()) }).timeIntervalSince1970
        let output = session.directory + "/flood.json"
        // "direct-stop": the flood on the agent's direct line itself, the user's stop beside it there.
        let directLine = DirectLine.socketPath(runtimeDirectory: FilePath(session.directory + "/runtime"),
                                               busAddress: try #require(session.environment["DBUS_SESSION_BUS_ADDRESS"])).string
        let flood = try Subprocess.start("/usr/bin/python3", [Self.script, "flood", kind, "200", "10"],
                                         environment: session.environment.merging(["REVEILLE_DIRECT_LINE": directLine]) { $1 },
                                         stdout: output, stderr: session.directory + "/flood.log")
        // Heard through PulseAudio, which the flood does not touch: a stream that plays, not the
        // corked one opened ahead of the alarm (counted, it made a stalled agent look on time).
        do {
            _ = try eventually(timeout: 60, "the alarm due during the flood to sound") { try session.playsSound() ? true : nil }
        } catch {
            // Once, under CI's whole run in a fresh Debian 12 root, getall's alarm did not sound in
            // 60 s (alone: 0.17 s); what the agent and the sound server said then, for a repeat.
            let log = (try? String(contentsOfFile: session.agentLog, encoding: .utf8)) ?? "(no log)"
            let streams = (try? session.pactl("list", "short", "sink-inputs").stdout) ?? "(pactl failed)"
            Issue.record("the agent's log's last lines:\n\(log.split(separator: "\n").suffix(40).joined(separator: "\n"))\nstreams: \(streams)")
            throw error
        }
        let heard = Date().timeIntervalSince1970 - due
        // Beside it, a round trip to the bus daemon alone, for comparison: the flood's messages go
        // through the daemon too, and each call of the user's waits in its queue first (seen: 8 s).
        let roundTrip = session.directory + "/round-trip"
        let timing = "import subprocess, sys, time\nstart = time.monotonic()\nsubprocess.run(['gdbus', 'call', '--session', '--dest', 'org.freedesktop.DBus', '--object-path', '/org/freedesktop/DBus', '--method', 'org.freedesktop.DBus.GetId'], capture_output=True)\nprint(time.monotonic() - start)\n"
        let ping = try Subprocess.start("/usr/bin/python3", ["-c", timing], environment: session.environment, stdout: roundTrip)
        let asked = Date()
        let stop = try Subprocess.run(session.binaries + "/reveille", ["stop", other.id], environment: session.environment, timeout: 60)
        let answeredIn = Date().timeIntervalSince(asked)
        _ = ping.wait(timeout: 60)
        let busRoundTrip = try #require(Double(String(contentsOfFile: roundTrip, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        let alert = try eventually(timeout: 60, "the alert, through the flooded bus") { try session.alerts(titled: title).first }
        #expect(flood.wait(timeout: 60) == 0, "the flood ran: \((try? String(contentsOfFile: session.directory + "/flood.log", encoding: .utf8)) ?? "")")
        struct Sent: Decodable { var sent: [Int] }
        let sent = try JSONDecoder().decode(Sent.self, from: Data(contentsOf: URL(fileURLWithPath: output))).sent
        print("\(kind) flood from 200 new connections: \(sent.reduce(0, +)) calls; sound heard \(String(format: "%.2f", heard)) s after due (polled), the alert delivered \(String(format: "%.2f", alert.time - due)) s after; the user's stop answered in \(String(format: "%.2f", answeredIn)) s; a round trip to the bus daemon alone took \(String(format: "%.2f", busRoundTrip)) s")
        #expect(sent.count == 200 && sent.reduce(0, +) > (kind == "eventgroup" ? 100 : 1000), "the flood was sent: \(sent.reduce(0, +)) calls")
        // The bench measures it alone (≤ 50 ms); under CI's whole run, 16 tests at once beside the
        // flood's 200 processes on 2 cores, it has sounded 2.3 s after due. Before: silent 25 s and more.
        #expect(heard < 5, "the alarm sounded \(heard) s after it was due")
        #expect(stop.status == 0, "the user's stop during the flood: \(stop.stderr) \(stop.stdout)")
        // By the bus, it waited as long as any new connection waits for the flooded daemon to let
        // it in (6-8 s, 11-18 s under EventGroup's 64 KiB calls); by the agent's direct line it
        // waits for nobody's turn but its own (0.03-0.05 s alone, up to 2.5 s beside the whole
        // suite on two cores). The figures are `make bench`'s; this bound only tells the two ways
        // apart on a loaded machine.
        #expect(answeredIn < 5, "the user's stop took \(answeredIn) s (a bus round trip \(busRoundTrip) s)")
    }

    /// 300 PlaySound calls of 60 s from 50 connections in a moment filled PulseAudio's 256
    /// streams, and the next alarm was notified but silent. Previews are one a client and four
    /// in all, and an alarm that rings takes its stream back from them.
    @Test func previewsNeverTakeTheAlarmsStream() throws {
        let session = try TestSession()
        try session.startAgent()
        let flood = try JSONDecoder().decode([String: [Int]].self, from: try python(session, [Self.script, "flood", "playsound", "50", "8", "6"], timeout: 60))
        #expect(flood["sent"]?.reduce(0, +) == 300, "\(flood)")
        func streams(named name: String) throws -> Int {
            try session.pactl("list", "sink-inputs").stdout.components(separatedBy: "media.name = \"\(name)\"").count - 1
        }
        _ = try eventually("previews to play") { try streams(named: "Reveille preview") > 0 ? true : nil }
        let previews = try streams(named: "Reveille preview")
        #expect(previews <= 4, "previews at once: \(previews)")
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Bread")
        _ = try eventually("the alarm's own stream") { try streams(named: "Alarm: Bread") == 1 ? true : nil }
        _ = try eventually("the alarm to take its stream back from the previews") { try streams(named: "Reveille preview") == 0 ? true : nil }
    }

    @Test func pagesAClientNeverReadsAreRefusedNotBufferedAndTheAlarmRingsOnTime() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        // About 3.3 MB of alarms: each ListPage answers all of them.
        let stored = try Subprocess.run("/usr/bin/python3", [Self.hostileClient, "many", "300"], environment: session.environment, timeout: 120)
        #expect(stored.status == 0, "\(stored.stderr)")
        // 300 calls: answered, 1 GB of replies, which the bus would hold as long as it could.
        let flooded = try alarmDelay(under: "list", connections: 1, seconds: 10, calls: 300, session)
        print("ListPage flood: sent \(flooded.sent); alert \(String(format: "%.2f", flooded.delay)) s after due; agent peak \(flooded.agent) MiB, bus daemon peak \(flooded.bus) MiB")
        #expect(flooded.sent == [300], "the flood was sent: \(flooded.sent)")
        #expect(flooded.delay < 5, "the alert came \(flooded.delay) s after the alarm was due")
        #expect(flooded.agent < 150 && flooded.bus < 60, "agent \(flooded.agent) MiB, bus \(flooded.bus) MiB at the peak")
    }
}
