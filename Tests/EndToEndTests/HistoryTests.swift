import Foundation
import ReveilleCore
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

@Suite("History end to end", .waitsOnItsOwnThread)
struct HistoryEndToEndTests {
    struct Entry: Decodable {
        var alarm: String, title: String, app: String, due: String, rang: String?, seconds: Double, ended: String
        var outcome: String, by: String?
    }

    @Test func aStoppedAndAnUnansweredTimerAreKeptAndADamagedLineCostsOnlyItself() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let answered = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Answered")
        _ = try eventually(timeout: 20, "the first alert") { try session.alerts(titled: "Answered").first }
        #expect(try session.cli("stop", answered.id).status == 0)
        let beforeIgnored = ISO8601Local.millisecondString(from: Date(), in: UTCTimeZone())
        let ignored = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Ignored", "--ring-limit", "5s")
        _ = try eventually(timeout: 12, "the missed notice") { try session.notifications(titled: "Missed: Ignored").first }

        let entries = try eventually(timeout: 20, "both occurrences in the history") {
            let entries = try session.cliJSON([Entry].self, "history", "--json")
            return entries.count == 2 ? entries : nil
        }
        #expect(entries.map(\.title) == ["Answered", "Ignored"], "oldest first")
        #expect(entries[0].alarm == answered.id && entries[0].outcome == "stopped" && entries[0].by == "reveille")
        #expect(entries[0].rang != nil && entries[0].seconds < 5)
        #expect(entries[1].alarm == ignored.id && entries[1].outcome == "missedUnanswered" && entries[1].by == nil)
        #expect(entries[1].seconds >= 4.9 && entries[1].seconds < 8, "rang to its 5 s limit: \(entries[1].seconds)")
        #expect(try session.cliJSON([Entry].self, "history", "--missed", "--json").map(\.alarm) == [ignored.id])
        #expect(try session.cliJSON([Entry].self, "history", "--since", beforeIgnored, "--json").map(\.alarm) == [ignored.id])
        let ahead = try session.cli("history", "--since", "tomorrow")
        #expect(ahead.status == 64 && ahead.stderr.contains("has not come yet; give a past instant"), "\(ahead.stderr)")
        let table = try session.cli("history")
        #expect(table.status == 0 && table.stdout.contains("Answered") && table.stdout.contains("stopped"), "\(table.stdout)")
        #expect(table.stdout.contains("missed: rang unanswered"), "\(table.stdout)")
        let refused = try session.cli("history", "--since", "someday")
        #expect(refused.status == 64 && refused.stderr.contains("someday"), "\(refused.stderr)")

        let path = session.stateDirectory + "/history.jsonl"
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600, "mode \(String(mode, radix: 8))")

        // A damaged line, and a last line a crash cut short, cost only themselves.
        try session.killAgent(signal: SIGKILL)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        try (lines[0] + "\n{\"alarm\": damaged\n" + lines[1] + "\n{\"alarm\":\"").write(toFile: path, atomically: false, encoding: .utf8)
        try session.startAgent()
        #expect(try session.cliJSON([Entry].self, "history", "--json").map(\.title) == ["Answered", "Ignored"])
        let rewritten = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!rewritten.contains("damaged") && rewritten.hasSuffix("}\n") && rewritten.split(separator: "\n").count == 2)

        // An app stops its own timer as it rings: it sees that entry, and none of the user's.
        #expect(try session.cli("auth", "allow", "org.test.Cook").status == 0)
        let app = try Subprocess.run("/usr/bin/python3", ["-c", Self.appStoppingItsTimer], environment: session.environment)
        let seen = try JSONDecoder().decode([Entry].self, from: Data(app.stdout.utf8))
        #expect(seen.count == 1 && seen.first?.title == "Cook's" && seen.first?.outcome == "stopped", "\(app.stdout)\(app.stderr)")
        #expect(seen.first?.app == "org.test.Cook" && seen.first?.by == "org.test.Cook")
        #expect(try session.cliJSON([Entry].self, "history", "--json").map(\.title) == ["Answered", "Ignored", "Cook's"])
    }

    /// An app (one connection, after Hello) schedules a 1 s timer, stops it once it rings, and
    /// prints its History.
    static let appStoppingItsTimer = """
        import dbus, json, time
        agent = dbus.Interface(dbus.SessionBus().get_object("io.github.reveille.Reveille", "/io/github/reveille/Reveille"),
                               "io.github.reveille.Reveille1")
        agent.Hello("org.test.Cook", "Tests the history")
        request = {"countdownDuration": {"preAlert": 1, "postAlert": 60}, "presentation": {"alert": {"title": "Cook's"}}}
        alarm = json.loads(agent.Schedule("", json.dumps(request), dbus.Dictionary({}, signature="sv")))["alarm"]["id"]
        deadline = time.monotonic() + 10
        while json.loads(agent.Get(alarm))["alarm"]["state"] != "alerting" and time.monotonic() < deadline:
            time.sleep(0.05)
        agent.Stop(alarm)
        print(agent.History())
        """
}
