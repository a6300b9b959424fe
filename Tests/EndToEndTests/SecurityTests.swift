import Foundation
import ReveilleCore
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// What a hostile or careless client or file must not achieve.
@Suite("Security end to end", .waitsOnItsOwnThread)
struct SecurityTests {
    @Test func controlCharactersAndMarkupInTitlesAreShownSafely() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let title = "<b>Tea</b> & \u{07}bell\u{1B}[31mred\ttab"
        #expect(try session.cli("timer", "1s", "--title", title).status == 0)
        let alert = try eventually(timeout: 20, "the alert") {
            try session.events.first { $0.event == "notify" && $0.hints?["urgency"] == .number(2) }
        }
        let summary = try #require(alert.summary)
        #expect(summary == "<b>Tea</b> & bell [31mred tab", "control characters become spaces: \(summary.debugDescription)")
        #expect(!summary.unicodeScalars.contains { CharacterSet.controlCharacters.contains($0) })
        // What an app writes that reaches a body (its usage description, on the prompt) arrives
        // escaped on a server that reads markup: no link, no image, no bold.
        let asking = try Subprocess.start(session.binaries + "/reveille-test-app",
                                          ["org.test.Markup", #"<a href="https://example.org">Click</a> & <img src="x"/><b>now</b>"#,
                                           "request-authorization"], environment: session.environment)
        defer { asking.terminate() }
        let prompt = try eventually(timeout: 20, "the prompt") { try session.notifications(titled: "org.test.Markup wants to schedule alarms").first }
        #expect(prompt.body == #"&lt;a href="https://example.org"&gt;Click&lt;/a&gt; &amp; &lt;img src="x"/&gt;&lt;b&gt;now&lt;/b&gt;\#nTo answer: reveille auth allow org.test.Markup (or deny)"#,
                "\(prompt.body ?? "")")
        let long = try session.cli("timer", "1s", "--title", String(repeating: "x", count: 501))
        #expect(long.status != 0 && long.stderr.contains("at most 500"))
    }

    @Test func stateAndConfigFilesArePrivate() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        #expect(try session.cli("timer", "1h").status == 0)
        #expect(try session.cli("auth", "allow", "org.test.Private").status == 0)
        func mode(_ path: String) throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! NSNumber).intValue
        }
        #expect(try mode(session.stateDirectory) == 0o700)
        #expect(try mode(session.stateDirectory + "/alarms.journal") == 0o600)
        // Every file the agent keeps there, whatever its name.
        for file in try FileManager.default.contentsOfDirectory(atPath: session.stateDirectory) {
            #expect(try mode(session.stateDirectory + "/" + file) == 0o600, "\(file)")
        }
        #expect(try mode(session.directory + "/config/reveille") == 0o700)
        #expect(try mode(session.directory + "/config/reveille/authorizations.json") == 0o600)
    }

    @Test func aCallerThatLeftBeforeItWasLookedAtIsNobodyNotTheUser() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let agent = try #require(session.agent)
        let kept = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "Kept")
        // The agent is stopped while the caller sends and disconnects: when it reads the call,
        // the caller's process is gone. A sandboxed app did this to be taken for the user.
        kill(agent.pid, SIGSTOP)
        let send = try Subprocess.run(try Subprocess.find("dbus-send", package: "dbus-bin"), [
            "--session", "--type=method_call", "--dest=\(AgentInterface.busName)", AgentInterface.objectPath,
            "\(AgentInterface.interface).Cancel",
            "string:\(kept.id)",
        ], environment: session.environment)
        kill(agent.pid, SIGCONT)
        #expect(send.status == 0, "\(send.stderr)")
        _ = try eventually("the agent to refuse the departed caller") {
            let log = (try? String(contentsOfFile: session.agentLog, encoding: .utf8)) ?? ""
            // Looked up once, when its first call came: the refusal names the connection.
            return log.contains("calls from :") && log.contains("cannot tell who is calling") ? true : nil
        }
        #expect(try session.cliJSON([AlarmJSON].self, "list").map(\.id) == [kept.id], "the user's alarm is still there")
    }
}
