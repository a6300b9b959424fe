import Foundation
import Testing
import ReveilleCore
import ReveilleTestSupport

/// What a packager and a desktop expect of the agent's logs.
@Suite("Logs end to end", .serialized)
struct LogTests {
    @Test func underSystemdEachLogLineCarriesItsPriorityForTheJournal() throws {
        let session = try TestSession(audio: .none)
        // systemd sets JOURNAL_STREAM when a service's stderr is the journal.
        try session.startAgent(environment: ["JOURNAL_STREAM": "8:12345"])
        #expect(try session.cli("timer", "1h").status == 0)
        _ = try session.cli("stop", "ffffffff")  // refused: a notice
        let lines = try eventually("the agent's log") { () -> [String]? in
            let log = (try? String(contentsOfFile: session.agentLog, encoding: .utf8)) ?? ""
            return log.contains("<5>") ? log.split(separator: "\n").map(String.init) : nil
        }
        #expect(lines.allSatisfy { $0.wholeMatch(of: /<[2-7]>.*/) != nil }, "every line starts with <N>: \(lines.prefix(3))")
        #expect(lines.contains { $0.hasPrefix("<6>") && $0.contains("owns io.github.reveille.Reveille") }, "info is 6")
        #expect(!lines.contains { $0.contains(" info reveille-agent") }, "no level word repeating the priority")
    }

    @Test func theLogOfAnAgentTheCLIStartsStaysBounded() throws {
        let session = try TestSession(audio: .none)
        try FileManager.default.createDirectory(atPath: session.stateDirectory, withIntermediateDirectories: true)
        let log = session.stateDirectory + "/agent.log"
        try Data(repeating: UInt8(ascii: "x"), count: 2 << 20).write(to: URL(fileURLWithPath: log))
        let started = try session.cli("list")
        #expect(started.stderr.contains("started reveille-agent"), "\(started.stderr)")
        let pid = try #require(started.stderr.firstMatch(of: /pid (\d+)/).flatMap { Int32($0.1) })
        defer { kill(pid, SIGTERM) }
        let old = try FileManager.default.attributesOfItem(atPath: log + ".1")[.size] as? Int
        #expect(old == 2 << 20, "the old log is kept once, as agent.log.1")
        let new = try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int ?? .max
        #expect(new < 64 << 10, "a new log begins: \(new) bytes")
    }
}

/// The agent in German and French: catalogs built from po/ by msgfmt, locales by localedef.
@Suite("Translations end to end", .serialized)
struct TranslationTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// A folder with the compiled catalogs and the locales, and the environment that selects `locale`.
    func environment(_ session: TestSession, _ locale: String) throws -> [String: String] {
        let root = session.directory + "/i18n"
        for language in ["de", "fr"] {
            try FileManager.default.createDirectory(atPath: "\(root)/\(language)/LC_MESSAGES", withIntermediateDirectories: true)
            let built = try Subprocess.run(try Subprocess.find("msgfmt", package: "gettext"),
                                           ["--check", "-o", "\(root)/\(language)/LC_MESSAGES/reveille.mo", "\(Self.repository)/po/\(language).po"],
                                           environment: session.environment)
            #expect(built.status == 0, "msgfmt --check po/\(language).po: \(built.stderr)")
        }
        let made = try Subprocess.run(try Subprocess.find("localedef", package: "libc-bin"),
                                      ["-i", String(locale.prefix(5)), "-f", "UTF-8", "\(root)/\(locale)"], environment: [:])
        #expect(made.status == 0, "localedef needs the locales package: \(made.stderr)")
        var environment = session.environment
        environment["LOCPATH"] = root
        environment["LC_ALL"] = locale
        environment["REVEILLE_LOCALEDIR"] = root
        return environment
    }

    @Test func notificationsSpeakGerman() throws {
        let session = try TestSession(audio: .none)
        let german = try environment(session, "de_DE.UTF-8")
        try session.startAgent(environment: german.mapValues { Optional($0) })
        _ = try session.cliJSON(AlarmJSON.self, "timer", "10m", "--title", "Tee")
        let countdown = try eventually(timeout: 5, "the countdown") { try session.notifications(titled: "Tee").first }
        #expect(countdown.body?.contains("· noch 10 Min.") == true && countdown.body?.hasPrefix("Klingelt um ") == true, "\(countdown.body ?? "")")
        #expect(countdown.body?.contains("Zum Anhalten: reveille pause") == true)
        #expect(countdown.actions?.contains("Pause") == true && countdown.actions?.contains("Abbrechen") == true, "\(countdown.actions ?? [])")
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Eier", "--ring-limit", "5s")
        let alert = try eventually(timeout: 5, "the alert") { try session.alerts(titled: "Eier").first }
        #expect(alert.actions?.contains("Stopp") == true && alert.actions?.contains("Schlummern") == true, "\(alert.actions ?? [])")
        let missed = try eventually(timeout: 10, "the missed notice") { try session.notifications(titled: "Verpasst: Eier").first }
        #expect(missed.body?.contains("eine Minute lang geklingelt") == true, "\(missed.body ?? "")")
    }

    @Test func thePromptSpeaksFrench() throws {
        let session = try TestSession(audio: .none)
        let french = try environment(session, "fr_FR.UTF-8")
        try session.startAgent(environment: french.mapValues { Optional($0) })
        let asking = try Subprocess.start(session.binaries + "/reveille-test-app", ["org.test.Cuisine", "Minuteurs de cuisine", "request-authorization"],
                                          environment: session.environment)
        defer { asking.terminate() }
        let prompt = try eventually(timeout: 5, "the prompt") { try session.notifications(titled: "org.test.Cuisine veut programmer des alarmes").first }
        #expect(prompt.actions?.contains("Autoriser") == true && prompt.actions?.contains("Ne pas autoriser") == true, "\(prompt.actions ?? [])")
    }

    @Test(arguments: [("de_DE.UTF-8", 0, "%@ Minuten"), ("de_DE.UTF-8", 1, "eine Minute"), ("de_DE.UTF-8", 2, "2 Minuten"),
                      ("fr_FR.UTF-8", 0, "0 minute "), ("fr_FR.UTF-8", 1, "1 minute "), ("fr_FR.UTF-8", 2, "2 minutes")])
    func pluralFormsFollowEachLanguagesRule(_ locale: String, _ count: Int, _ expected: String) throws {
        let session = try TestSession(notifications: .none, audio: .none)
        let environment = try environment(session, locale)
        let said = try Subprocess.run(session.binaries + "/reveille-test-app", ["org.test.Plural", "-", "plural", String(count)],
                                      environment: environment)
        #expect(said.stdout.contains(expected.replacing("%@", with: String(count))), "\(locale) \(count): \(said.stdout)")
    }
}
