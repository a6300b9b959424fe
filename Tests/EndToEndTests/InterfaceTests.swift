import Foundation
import ReveilleCore
import ReveilleRules
import ReveilleSystem
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

@Suite("D-Bus interface and CLI end to end", .waitsOnItsOwnThread)
struct InterfaceTests {
    @Test func introspectionShowsTheInterfaceAndMatchesTheCommittedXML() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let introspection = try session.gdbus(["introspect", "--session", "--dest", AgentInterface.busName,
                                               "--object-path", AgentInterface.objectPath])
        #expect(introspection.status == 0)
        for method in ["Schedule", "Cancel", "Stop", "Countdown", "Pause", "Resume", "Get", "List", "AlarmsUpdated"] {
            #expect(introspection.stdout.contains(method), "introspection lists \(method)")
        }
        let committed = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("desktop/io.github.reveille.Reveille1.xml")
        #expect(try String(contentsOf: committed, encoding: .utf8) == AgentInterface.introspectionXML,
                "regenerate desktop/io.github.reveille.Reveille1.xml with `reveille-agent --print-interface`")
    }

    @Test func malformedCallsGetNamedErrorsAndTheAgentStaysUp() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let call = { (method: String, arguments: [String]) in
            try session.gdbusCall(destination: AgentInterface.busName, path: AgentInterface.objectPath,
                                  method: "\(AgentInterface.interface).\(method)", arguments)
        }
        let cases: [(String, [String], String)] = [
            ("Schedule", ["", "{not json", "{}"], "InvalidConfiguration"),
            ("Schedule", ["not-a-uuid", "{}", "{}"], "is not a UUID"),
            ("Schedule", ["", #"{"presentation":{"alert":{"title":"x"}}}"#, "{}"],
             "needs countdownDuration.preAlert"),
            ("Stop", ["ffff"], "NotFound"),
            ("Pause", [""], "no alarm id given"),
            ("Schedule", ["only one argument"], "InvalidArgs"),
        ]
        for (method, arguments, expected) in cases {
            let result = try call(method, arguments)
            #expect(result.status != 0)
            #expect(result.stderr.contains(expected), "\(method) \(arguments): \(result.stderr)")
        }
        #expect(try call("List", []).stdout.contains("[]"))
        // An invalid transition names the state and what is allowed.
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1h")
        let resume = try session.cli("resume", timer.id)
        #expect(resume.status != 0)
        #expect(resume.stderr.contains("is counting down: resume works only while it is paused"), "\(resume.stderr)")
        #expect(resume.status == 1, "a state that does not allow it: status 1 (see the man page)")
    }

    @Test func cliReportsBadInputAndUnknownIDsClearly() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let badTime = try session.cli("add", "25:00")
        #expect(badTime.status != 0)
        #expect(badTime.stderr.contains("could not read '25:00'") && badTime.stderr.contains("accepted"))
        let badDuration = try session.cli("timer", "soon")
        #expect(badDuration.status != 0)
        #expect(badDuration.stderr.contains("accepted: 90s"))
        let unknown = try session.cli("cancel", "0000")
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("no alarm has an id starting with '0000'"))
        #expect(try session.cliJSON([AlarmJSON].self, "list").isEmpty, "nothing was stored by the failed commands")
    }

    /// Where the session's bus has no activation file for the agent, the CLI starts it itself and says why.
    @Test func cliStartsTheAgentWhenNoneRunsAndSaysSo() throws {
        let session = try TestSession(audio: .none)
        let result = try session.cli("list")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("No alarms"))
        #expect(result.stderr.contains("the session bus has no D-Bus activation file to start it"), "\(result.stderr)")
        let said = try #require(result.stderr.firstMatch(of: /started reveille-agent \(pid (\d+)\)/))
        let pid = Int32(said.1)!
        defer { kill(pid, SIGTERM) }
        try session.waitForName(AgentInterface.busName, owned: true)
        #expect(kill(pid, 0) == 0)
        // The CLI's readiness socket went with it.
        let runtime = try FileManager.default.contentsOfDirectory(atPath: session.directory + "/runtime")
        #expect(!runtime.contains { $0.hasPrefix("reveille-agent-starting-") }, "\(runtime)")
    }

    /// With the agent's activation file where the bus looks (as `make install` puts it), the bus
    /// starts the agent for the CLI's first call, which it then answers: the CLI starts nothing
    /// and says nothing of it.
    @Test func cliStartsTheAgentByDBusActivationWhereItsFileIsInstalled() throws {
        let session = try TestSession(audio: .none)
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let template = try String(contentsOfFile: repository.path + "/desktop/io.github.reveille.Reveille.service", encoding: .utf8)
        try template.replacingOccurrences(of: "@bindir@", with: session.binaries)
            .write(toFile: session.serviceDirectory + "/io.github.reveille.Reveille.service", atomically: true, encoding: .utf8)
        let result = try session.cli("list")
        let owner = try session.gdbusCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                          method: "org.freedesktop.DBus.GetConnectionUnixProcessID", [AgentInterface.busName])
        if let pid = owner.stdout.firstMatch(of: /uint32 (\d+)/).flatMap({ Int32($0.1) }) { kill(pid, SIGTERM) }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("No alarms"))
        #expect(!result.stderr.contains("started reveille-agent"), "the bus started it, not the CLI: \(result.stderr)")
        #expect(owner.status == 0, "the activated agent owns its name: \(owner.stderr)")
    }

    /// Started with `NOTIFY_SOCKET` (by systemd, or by the CLI, which waits on it instead of
    /// asking the bus again and again), the agent says `READY=1` there once it owns its name,
    /// and only then: a call made at once is answered.
    @Test func theAgentSaysItIsReadyWhereNotifySocketNames() throws {
        let session = try TestSession(audio: .none)
        let socket = try Readiness.Listener(path: session.directory + "/ready.socket")
        let agent = try Subprocess.start(session.binaries + "/reveille-agent", [],
                                         environment: session.environment.merging(["NOTIFY_SOCKET": socket.path]) { $1 },
                                         stderr: session.directory + "/agent-notify.log")
        defer { agent.terminate() }
        #expect(try socket.waitForReady(of: agent.pid, seconds: 30) == .ready, "\(session.directory)/agent-notify.log")
        let owner = try session.gdbusCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                          method: "org.freedesktop.DBus.GetNameOwner", [AgentInterface.busName])
        #expect(owner.status == 0, "the name is owned when it says so: \(owner.stderr)")
        #expect(try session.cliJSON([AlarmJSON].self, "list").isEmpty)
    }

    @Test func secondAgentRefusesUnlessReplacing() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let first = try #require(session.agent)
        let second = try Subprocess.run(session.binaries + "/reveille-agent", [], environment: session.environment)
        #expect(second.status == 1)
        #expect(second.stderr.contains("already owns io.github.reveille.Reveille") && second.stderr.contains("--replace"))
        #expect(first.isRunning)
        // --replace takes over; the first agent exits cleanly.
        let replacing = try Subprocess.start(session.binaries + "/reveille-agent", ["--replace"], environment: session.environment)
        defer { replacing.terminate() }
        #expect(first.wait(timeout: 10) == 0)
        try session.waitForName(AgentInterface.busName, owned: true)
    }

    @Test func watchPrintsEveryChange() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        // An alarm there before watch starts: its "present" line says watch has subscribed.
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "Existing")
        let output = session.directory + "/watch.jsonl"
        let watch = try Subprocess.start(session.binaries + "/reveille", ["watch", "--json"], environment: session.environment,
                                         stdout: output)
        defer { watch.terminate() }
        let text = { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
        _ = try eventually(timeout: 20, "watch to list what is there") { text().contains(#""change":"present""#) ? true : nil }
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Watched")
        _ = try eventually(timeout: 20, "watch to report the alert") { text().contains(#""state":"alerting""#) ? true : nil }
        try session.cli("cancel", timer.id)
        let lines = try eventually(timeout: 20, "watch to report the end") { () -> [String]? in
            text().contains(#""change":"ended""#) ? text().split(separator: "\n").map(String.init) : nil
        }
        #expect(lines.count == 4, "present, added, alerting, ended: \(lines)")
        #expect(lines.first?.contains(#""change":"present""#) == true && lines.first?.contains("Existing") == true)
        #expect(lines[1].contains(#""change":"added""#) && lines[1].contains("Watched"))
    }
}
