import Foundation
import ReveilleCore
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// Apps on ReveilleKit (the reveille-test-app process): authorization, isolation, limits, metadata.
@Suite("Apps end to end", .waitsOnItsOwnThread)
struct AppTests {
    /// Runs one AlarmManager call as app `app`.
    func app(_ session: TestSession, _ app: String, usage: String? = "Kitchen timers for your recipes",
             _ command: String...) throws -> Subprocess.Result {
        try Subprocess.run(session.binaries + "/reveille-test-app", [app, usage ?? "-"] + command,
                           environment: session.environment, timeout: 30)
    }

    func startApp(_ session: TestSession, _ app: String, _ command: String..., output: String) throws -> Subprocess.Child {
        try Subprocess.start(session.binaries + "/reveille-test-app", [app, "Kitchen timers for your recipes"] + command,
                             environment: session.environment, stdout: output, stderr: output + ".err")
    }

    @Test func undecidedAppIsAskedAndDontAllowRefusesIt() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let output = session.directory + "/cook.out"
        let attempt = try startApp(session, "org.test.Cook", "timer", "60", output: output)
        let prompt = try eventually(timeout: 20, "the authorization prompt") {
            try session.notifications(titled: "org.test.Cook wants to schedule alarms").first
        }
        #expect(prompt.body == "Kitchen timers for your recipes\nTo answer: reveille auth allow org.test.Cook (or deny)")
        #expect(prompt.actions?.contains("Allow") == true && prompt.actions?.contains("Don't Allow") == true)
        try session.press(label: "Don't Allow", on: prompt.id)
        #expect(attempt.wait(timeout: 10) == 3)
        let error = (try? String(contentsOfFile: output + ".err", encoding: .utf8)) ?? ""
        #expect(error.contains("NotAuthorized") && error.contains("reveille auth allow org.test.Cook"), "\(error)")
        #expect(try session.cliJSON([AlarmJSON].self, "list").isEmpty)
        #expect(try app(session, "org.test.Cook", "state").stdout == "denied\n")
    }

    @Test func anAppThatLeavesBeforeTheUserDecidesSchedulesNothing() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let attempt = try startApp(session, "org.test.Gone", "timer", "60", output: session.directory + "/gone.out")
        let prompt = try eventually(timeout: 20, "the authorization prompt") {
            try session.notifications(titled: "org.test.Gone wants to schedule alarms").first
        }
        kill(attempt.pid, SIGKILL)
        attempt.wait()
        try session.press(label: "Allow", on: prompt.id)
        try session.waitForAgentLog("(org.test.Gone): the app left before the user decided (authorized); nothing was scheduled")
        #expect(try session.cliJSON([AlarmJSON].self, "list").isEmpty, "no alarm its app never heard of")
        let log = (try? String(contentsOfFile: session.agentLog, encoding: .utf8)) ?? ""
        #expect(!log.contains("gave no usage description"), "\(log)")
        // The user's answer stands.
        #expect(try session.cli("auth", "list").stdout.contains("org.test.Gone"))
    }

    @Test func allowIsAskedOnceAndPersistsAcrossAnAgentRestart() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let output = session.directory + "/baker.out"
        let request = try startApp(session, "org.test.Baker", "request-authorization", output: output)
        let prompt = try eventually(timeout: 20, "the prompt") {
            try session.notifications(titled: "org.test.Baker wants to schedule alarms").first
        }
        try session.press(label: "Allow", on: prompt.id)
        #expect(request.wait(timeout: 10) == 0)
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "authorized\n")

        try session.killAgent(signal: SIGTERM)
        try session.startAgent()
        #expect(try app(session, "org.test.Baker", "request-authorization").stdout == "authorized\n")
        let scheduled = try app(session, "org.test.Baker", "timer", "600")
        #expect(scheduled.status == 0, "\(scheduled.stderr)")
        #expect(try session.notifications(titled: "org.test.Baker wants to schedule alarms").count == 1, "asked once")
        let auth = try session.cli("auth", "list")
        #expect(auth.stdout.contains("org.test.Baker") && auth.stdout.contains("allowed"), "in a person's words: \(auth.stdout)")
        let mode = try FileManager.default.attributesOfItem(atPath: session.directory + "/config/reveille/authorizations.json")[.posixPermissions] as! NSNumber
        #expect(mode.intValue == 0o600)
    }

    @Test func appsSeeAndChangeOnlyTheirOwnAlarmsAndTheUserSeesAll() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        for name in ["org.test.A", "org.test.B"] { #expect(try session.cli("auth", "allow", name).status == 0) }
        let updates = session.directory + "/b-updates.out"
        let watcher = try startApp(session, "org.test.B", "updates", "2", output: updates)
        defer { watcher.terminate() }
        _ = try eventually(timeout: 20, "B's first update") { (try? String(contentsOfFile: updates, encoding: .utf8))?.isEmpty == false ? true : nil }
        let a = try JSONDecoder().decode([String: String].self, from: Data(try app(session, "org.test.A", "timer", "600").stdout.utf8))
        let b = try JSONDecoder().decode([String: String].self, from: Data(try app(session, "org.test.B", "timer", "600").stdout.utf8))
        #expect(try app(session, "org.test.B", "list").stdout == "[\"\(b["id"]!)\"]\n")
        let steal = try app(session, "org.test.B", "cancel", a["id"]!)
        #expect(steal.status == 3 && steal.stderr.contains("NotFound"), "\(steal.stderr)")
        #expect(watcher.wait(timeout: 10) == 0)
        let seen = try String(contentsOfFile: updates, encoding: .utf8).split(separator: "\n")
        #expect(seen == ["[]", "[\"\(b["id"]!)\"]"], "B's updates carry only B's alarms: \(seen)")
        let all = try session.cliJSON([AlarmJSON].self, "list").map { $0.id.uppercased() }
        #expect(Set(all) == [a["id"]!, b["id"]!])
    }

    @Test func anAppsUpdatesGoOnWithARestartedAgent() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        #expect(try session.cli("auth", "allow", "org.test.B").status == 0)
        let first = try JSONDecoder().decode([String: String].self, from: Data(try app(session, "org.test.B", "timer", "600").stdout.utf8))
        let updates = session.directory + "/b-updates.out"
        let watcher = try startApp(session, "org.test.B", "updates", "3", output: updates)
        defer { watcher.terminate() }
        let lines = { (try? String(contentsOfFile: updates, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? [] }
        _ = try eventually(timeout: 20, "B's first update") { lines().count == 1 ? true : nil }
        // A new agent knows nothing of the old one's subscribers: the stream subscribes again.
        try session.killAgent(signal: SIGTERM)
        try session.startAgent()
        _ = try eventually(timeout: 10, "the new agent's list") { lines().count == 2 ? true : nil }
        let second = try JSONDecoder().decode([String: String].self, from: Data(try app(session, "org.test.B", "timer", "900").stdout.utf8))
        #expect(watcher.wait(timeout: 10) == 0)
        #expect(lines() == ["[\"\(first["id"]!)\"]", "[\"\(first["id"]!)\"]", "[\"\(first["id"]!)\",\"\(second["id"]!)\"]"],
                "\(lines())")
    }

    @Test func anAppHearsWhenItsAlarmAlertsAndIsMissedAndNothingOfOthersAlarms() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        for name in ["org.test.A", "org.test.B"] { #expect(try session.cli("auth", "allow", name).status == 0) }
        let events = session.directory + "/events.out"
        let listener = try startApp(session, "org.test.A", "events", "2", output: events)
        defer { listener.terminate() }
        _ = try eventually(timeout: 20, "A to listen") { (try? String(contentsOfFile: events, encoding: .utf8))?.contains("listening") == true ? true : nil }
        _ = try app(session, "org.test.B", "timer", "1")  // another app's: A hears nothing of it
        let timer = try Subprocess.run(session.binaries + "/reveille-test-app", ["org.test.A", "Timers", "timer", "1"],
                                       environment: session.environment.merging(["REVEILLE_TEST_RING_LIMIT": "5"]) { $1 })
        let id = try JSONDecoder().decode([String: String].self, from: Data(timer.stdout.utf8))["id"]!
        #expect(listener.wait(timeout: 15) == 0, "both events within the ring limit")
        let heard = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(heard == ["listening", "alerting \(id)", "missed \(id) unanswered"], "\(heard)")
    }

    @Test func theHundredAndFirstAlarmOfAnAppIsRefused() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        #expect(try session.cli("auth", "allow", "org.test.Many").status == 0)
        let filled = try app(session, "org.test.Many", "fill", "100")
        #expect(filled.stdout == "100\n", "\(filled.stderr)")
        let over = try app(session, "org.test.Many", "timer", "60")
        #expect(over.status == 3 && over.stderr.contains("MaximumLimitReached"), "\(over.stderr)")
        #expect(try app(session, "org.test.Other", "state").stdout == "notDetermined\n")
    }

    @Test func anAppWithoutAUsageDescriptionCannotSchedule() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let result = try app(session, "org.test.Silent", usage: nil, "timer", "60")
        #expect(result.status == 3 && result.stderr.contains("org.test.Silent has no usage description"), "\(result.stderr)")
    }

    @Test func anAppUsingSharedWithoutConfiguringItIsToldHowOrRunsAsItsDesktopEntry() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let shared = session.binaries + "/reveille-test-app"
        // No configureShared, no environment: the first request names the call that is missing,
        // instead of an undecided state no prompt will change.
        let started = Date()
        let bare = try Subprocess.run(shared, ["-", "-", "shared"], environment: session.environment)
        #expect(bare.status == 3 && bare.stderr.contains("reveille-test-app has no usage description")
                && bare.stderr.contains("call AlarmManager.configureShared(appID:usageDescription:) before using AlarmManager.shared"),
                "\(bare.stdout)\(bare.stderr)")
        #expect(Date().timeIntervalSince(started) < 5, "refused at once")
        #expect(try session.events.allSatisfy { $0.summary?.contains("wants to schedule alarms") != true }, "no prompt without a reason")
        // Launched from its desktop entry with a usage description: it is that entry's app.
        #expect(try session.cli("auth", "allow", "org.test.Launched").status == 0)
        var launched = session.environment
        launched["GIO_LAUNCHED_DESKTOP_FILE"] = session.directory + "/home/.local/share/applications/org.test.Launched.desktop"
        launched["REVEILLE_USAGE_DESCRIPTION"] = "Kitchen timers"
        let scheduled = try Subprocess.run(shared, ["-", "-", "shared"], environment: launched)
        #expect(scheduled.status == 0 && scheduled.stdout.hasPrefix("authorized\n"), "\(scheduled.stdout)\(scheduled.stderr)")
        #expect(try session.cli("list", "--json").stdout.contains(#""app":"org.test.Launched""#), "filed under its desktop entry's id")
    }

    @Test func metadataTravelsWithTheAlarmAndSurvivesARestart() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        #expect(try session.cli("auth", "allow", "org.test.Chef").status == 0)
        #expect(try app(session, "org.test.Chef", "timer", "600", #"{"dish":"Risotto","minutes":18}"#).status == 0)
        try session.killAgent(signal: SIGKILL)
        try session.startAgent()
        #expect(try app(session, "org.test.Chef", "metadata").stdout == #"[{"dish":"Risotto","minutes":18}]"# + "\n")
    }
}

@Suite("Custom actions end to end", .waitsOnItsOwnThread)
struct CustomActionTests {
    @Test func runActionRunsExactlyItsArgvWithoutAShellAndTheAppHearsIt() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        #expect(try session.cli("auth", "allow", "org.test.Runner").status == 0)
        let recordFile = session.directory + "/ran.json"
        let tricky = ["a b", "$HOME", ";rm -rf /tmp/x", "*", "'quoted'"]
        let argv = [session.binaries + "/reveille-test-app", "org.test.Recorder", "-", "record-argv", recordFile] + tricky
        let argvJSON = String(decoding: try JSONEncoder().encode(argv), as: UTF8.self)
        let listenOutput = session.directory + "/actions.out"
        let listener = try Subprocess.start(session.binaries + "/reveille-test-app", ["org.test.Runner", "Timers", "actions", "1"],
                                            environment: session.environment, stdout: listenOutput)
        defer { listener.terminate() }
        _ = try eventually(timeout: 20, "the app to listen") {
            (try? String(contentsOfFile: listenOutput, encoding: .utf8))?.contains("listening") == true ? true : nil
        }
        let scheduled = try Subprocess.run(session.binaries + "/reveille-test-app", ["org.test.Runner", "Timers", "timer-run", "1", argvJSON],
                                           environment: session.environment)
        #expect(scheduled.status == 0, "\(scheduled.stderr)")
        let alarmID = try JSONDecoder().decode([String: String].self, from: Data(scheduled.stdout.utf8))["id"]!
        let alert = try eventually(timeout: 20, "the Runner alert") { try session.alerts(titled: "Runner").first }
        try session.press(label: "Run", on: alert.id)

        // The file appears before the command has finished writing it: wait for whole JSON.
        let record = try eventually(timeout: 20, "the command to run") {
            FileManager.default.contents(atPath: recordFile).flatMap { try? JSONDecoder().decode([String: [String]].self, from: $0) }
        }
        #expect(record["arguments"] == tricky, "exactly the argv, nothing expanded")
        #expect(record["alarm"] == [alarmID.lowercased(), "secondary"])
        #expect(listener.wait(timeout: 5) == 0)
        let heard = try String(contentsOfFile: listenOutput, encoding: .utf8)
        #expect(heard.contains(alarmID) && heard.contains("\"button\":\"secondary\""), "\(heard)")
        // As in AlarmKit, a custom button runs its intent and leaves the alarm ringing, its alert shown again.
        #expect(try session.cliJSON(AlarmJSON.self, "show", alarmID).state == "alerting")
        _ = try eventually(timeout: 20, "the alert shown again") { try session.alerts(titled: "Runner").count == 2 ? true : nil }
        #expect(try session.cli("stop", alarmID).status == 0)
    }

    @Test func cliSecondaryRunTakesAQuotedCommandLine() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let recordFile = session.directory + "/cli-ran.json"
        let command = "run:\(session.binaries)/reveille-test-app org.x - record-argv \(recordFile) 'two words' \"say \\\"hi\\\"\" plain"
        let timer = try session.cli("timer", "1s", "--title", "CLI run", "--secondary", command)
        #expect(timer.status == 0, "\(timer.stderr)")
        let alert = try eventually(timeout: 20, "the alert") { try session.alerts(titled: "CLI run").first }
        #expect(alert.actions?.contains("Run") == true)
        try session.press(label: "Run", on: alert.id)
        // The file appears before the command has finished writing it: wait for whole JSON.
        let ran = try eventually(timeout: 20, "the command to run") {
            FileManager.default.contents(atPath: recordFile).flatMap { try? JSONDecoder().decode([String: [String]].self, from: $0) }
        }
        #expect(ran["arguments"] == ["two words", #"say "hi""#, "plain"])
        let bad = try session.cli("timer", "1s", "--secondary", "run:relative/tool")
        #expect(bad.status != 0 && bad.stderr.contains("absolute program path"))
    }
}

@Suite("The example app end to end", .waitsOnItsOwnThread)
struct ExampleAppTests {
    @Test func cookingTimerExampleRunsAgainstALiveAgent() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        #expect(try session.cli("auth", "allow", "io.github.reveille.CookingTimer").status == 0)
        let result = try Subprocess.run(session.binaries + "/reveille-example-cooking", ["--seconds", "2"],
                                        environment: session.environment, timeout: 20)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("scheduled ") == true)
        #expect(lines.contains { $0.hasPrefix("update:") && $0.contains("countdown") })
        #expect(lines.contains { $0.hasPrefix("update:") && $0.contains("alerting") })
        #expect(lines.last == "metadata: Spaghetti, boil")
        // The example may end before the server has recorded the alert: notifications go out
        // from their own thread.
        let alert = try eventually(timeout: 20, "the alert recorded") { try session.alerts(titled: "Pasta is ready").first }
        #expect(alert.actions?.contains("Repeat") == true)
        #expect(try session.notifications(titled: "Cooking pasta").first?.actions?.contains("Pause") == true)
    }

    @Test func alarmKitCodePortedByItsImportLineRunsAgainstALiveAgent() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        #expect(try session.cli("auth", "allow", "io.github.reveille.AlarmKitPort").status == 0)
        let result = try Subprocess.run(session.binaries + "/reveille-example-alarmkit", [],
                                        environment: session.environment, timeout: 60)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").map(String.init) == [
            "authorized: true",
            "scheduled: [\"Boil 3 min eggs\", \"Call the baker\", \"Check the oven\", \"Wake up\"]",
            "eggs: paused", "eggs live activity: paused, time left of 2 s", "eggs: countdown", "eggs: alerting", "eggs: stopped",
            "alarms: 3, async agrees: true",
            "metadata methods: [\"oven\"]",
            "recipe timer: [\"Eggs are ready!\", \"Stop\", \"Repeat\", \"Eggs are cooking\", \"Timer paused\", \"Resume\"]",
            "alarms left: 0",
        ], "\(result.stdout)\(result.stderr)")
        // What the app's own button extension says is what the desktop shows.
        let alert = try #require(try session.alerts(titled: "Boil 3 min eggs").first)
        #expect(alert.actions?.contains("Done") == true && alert.actions?.contains("Repeat") == true, "\(alert.actions ?? [])")
        #expect(try session.notifications(titled: "Cooking").first?.actions?.contains("Pause") == true)
        // The app resumes as soon as it sees the timer paused: under load the agent may merge
        // "Paused" into the "Cooking" that follows before the server has answered (the latest
        // update wins), so "Paused" is checked where it was shown.
        for paused in try session.notifications(titled: "Paused") {
            #expect(paused.actions?.contains("Start") == true, "\(paused.actions ?? [])")
        }
        // iOS 26.1's alert has the system's Stop, whatever Stop the app defines for itself.
        let recipe = try #require(try session.alerts(titled: "Eggs are ready!").first)
        #expect(recipe.actions?.contains("Stop") == true && recipe.actions?.contains("Done") == false, "\(recipe.actions ?? [])")
    }
}
