import Foundation
import ReveilleCore
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// What a packager and a desktop expect of the agent's logs.
@Suite("Logs end to end", .waitsOnItsOwnThread)
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
@Suite("Translations end to end", .waitsOnItsOwnThread)
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
        var environment = session.environment
        environment["LOCPATH"] = try TestLocales.folder(with: locale)
        environment["LC_ALL"] = locale
        environment["REVEILLE_LOCALEDIR"] = root
        return environment
    }

    @Test func notificationsSpeakGerman() throws {
        let session = try TestSession(notifications: .recording(profile: "dunst"), audio: .none) // buttons in a menu: the terminal hints stay
        let german = try environment(session, "de_DE.UTF-8")
        try session.startAgent(environment: german.mapValues { Optional($0) })
        _ = try session.cliJSON(AlarmJSON.self, "timer", "10m", "--title", "Tee")
        let countdown = try eventually(timeout: 20, "the countdown") { try session.notifications(titled: "Tee").first }
        #expect(countdown.body?.contains("· noch 10 Min.") == true && countdown.body?.hasPrefix("Klingelt um ") == true, "\(countdown.body ?? "")")
        #expect(countdown.body?.contains("Zum Anhalten: reveille pause") == true)
        #expect(countdown.actions?.contains("Pause") == true && countdown.actions?.contains("Abbrechen") == true, "\(countdown.actions ?? [])")
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Eier", "--ring-limit", "5s")
        let alert = try eventually(timeout: 20, "the alert") { try session.alerts(titled: "Eier").first }
        #expect(alert.actions?.contains("Stopp") == true && alert.actions?.contains("Schlummern") == true, "\(alert.actions ?? [])")
        let missed = try eventually(timeout: 10, "the missed notice") { try session.notifications(titled: "Verpasst: Eier").first }
        #expect(missed.body?.contains("5 Sekunden lang geklingelt") == true, "\(missed.body ?? "")")
    }

    @Test func thePromptSpeaksFrench() throws {
        let session = try TestSession(audio: .none)
        let french = try environment(session, "fr_FR.UTF-8")
        try session.startAgent(environment: french.mapValues { Optional($0) })
        let asking = try Subprocess.start(session.binaries + "/reveille-test-app", ["org.test.Cuisine", "Minuteurs de cuisine", "request-authorization"],
                                          environment: session.environment)
        defer { asking.terminate() }
        let prompt = try eventually(timeout: 20, "the prompt") { try session.notifications(titled: "org.test.Cuisine veut programmer des alarmes").first }
        #expect(prompt.actions?.contains("Autoriser") == true && prompt.actions?.contains("Ne pas autoriser") == true, "\(prompt.actions ?? [])")
    }

    @Test func theCLISpeaksGerman() throws {
        let session = try TestSession(audio: .none)
        let german = try environment(session, "de_DE.UTF-8")
        try session.startAgent(environment: german.mapValues { Optional($0) })
        let help = try session.cli("add", "--help", environment: german)
        #expect(help.stdout.contains("Einen Wecker zu einer Uhrzeit oder einem Datum stellen."), "\(help.stdout)")
        #expect(help.stdout.contains("Der Titel der Benachrichtigung."), "\(help.stdout)")
        let started = try session.cli("timer", "10m", "--title", "Tee", environment: german)
        #expect(started.status == 0 && started.stdout.hasPrefix("Timer ") && started.stdout.contains(" \"Tee\" gestartet: klingelt "),
                "\(started.stdout)\(started.stderr)")
        #expect(started.stdout.contains("(in 10 Min. 00 Sek.)") || started.stdout.contains("(in 9 Min. 59 Sek.)"), "\(started.stdout)")
        let id = try #require(started.stdout.firstMatch(of: #/Timer ([0-9a-f]{8}) /#).map { String($0.1) })
        let list = try session.cli("list", environment: german)
        #expect(list.stdout.hasPrefix("ID        ZUSTAND    NÄCHSTES MAL"), "\(list.stdout)")
        #expect(list.stdout.contains("\(id)  Countdown  "), "\(list.stdout)")
        let show = try session.cli("show", id, environment: german)
        #expect(show.stdout.contains("Wiederholung: Timer") && show.stdout.contains("klingelt:     10 Min. 00 Sek. lang ohne Antwort"),
                "\(show.stdout)")
        // The agent's refusal, in the agent's language.
        let resume = try session.cli("resume", id, environment: german)
        #expect(resume.status == 1, "\(resume.stderr)")
        #expect(resume.stderr.contains("Timer \(id) \"Tee\" ist im Countdown: Fortsetzen geht nur, solange er angehalten ist"), "\(resume.stderr)")
        let refused = try session.cli("add", "25:00", environment: german)
        #expect(refused.status == 64)
        #expect(refused.stderr.hasPrefix("Fehler: „25:00“ ist nicht lesbar als Uhrzeit oder Datum; möglich: eine Uhrzeit (07:30"), "\(refused.stderr)")
        #expect(refused.stderr.contains("Aufruf: reveille add [<options>] <time>") && refused.stderr.contains("Mehr dazu mit 'reveille add --help'."), "\(refused.stderr)")
        let cancelled = try session.cli("cancel", id, environment: german)
        #expect(cancelled.stdout.contains(" \"Tee\" entfernt: er hätte "), "\(cancelled.stdout)")
        // JSON is for programs: its words stay as they are.
        let json = try session.cli("timer", "5m", "--json", environment: german)
        #expect(json.stdout.contains(#""state":"countdown""#) && json.stdout.contains(#""kind":"timer""#), "\(json.stdout)")
    }

    @Test func theCLISpeaksFrench() throws {
        let session = try TestSession(audio: .none)
        let french = try environment(session, "fr_FR.UTF-8")
        try session.startAgent(environment: french.mapValues { Optional($0) })
        let added = try session.cli("add", "7:30", "--days", "mon,tue", "--title", "Réveil", environment: french)
        #expect(added.stdout.hasPrefix("Alarme ") && added.stdout.contains(" \"Réveil\" programmée : sonne "), "\(added.stdout)\(added.stderr)")
        let list = try session.cli("list", environment: french)
        #expect(list.stdout.contains("  programmée  ") && list.stdout.contains("  lun,mar  "), "\(list.stdout)")
        // What the list shows can be typed back.
        let workdays = try session.cli("add", "8:15", "--days", "lun-ven", "--title", "Travail", environment: french)
        #expect(workdays.status == 0, "\(workdays.stderr)")
        #expect(try session.cli("list", environment: french).stdout.contains("  en semaine  "), "lun-ven is mon-fri")
        let none = try session.cli("show", "ffff", environment: french)
        #expect(none.status == 66 && none.stderr.contains("aucun identifiant d'alarme ne commence par « ffff »"), "\(none.stderr)")
        let volume = try session.cli("add", "8:00", "--volume", "2", environment: french)
        #expect(volume.stderr.contains("--volume : « 2 » n'est ni une fraction (0.1 à 1) ni un pourcentage ; écrivez 2% ou 0.02"), "\(volume.stderr)")
    }

    /// The app's UI files are compiled into it (a GResource bundle in AppResources.swift) as they
    /// are in Resources: the installed app reads none at run time.
    @Test func theAppsCompiledUIFilesAreItsUIFiles() throws {
        let check = try Subprocess.run("\(Self.repository)/scripts/app-resources", ["--check"], environment: ProcessInfo.processInfo.environment)
        #expect(check.status == 0, "scripts/app-resources --check: \(check.stderr)")
    }

    /// Every message the sources mark is in po/reveille.pot, and translated in each language.
    @Test func everyMessageIsTranslated() throws {
        let check = try Subprocess.run("\(Self.repository)/scripts/update-po", ["--check"], environment: ProcessInfo.processInfo.environment)
        #expect(check.status == 0, "scripts/update-po --check: \(check.stderr)")
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
