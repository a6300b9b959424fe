import Foundation
import ReveilleCore
import ReveilleModel
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// The commands a person reaches for, end to end: what each says it did, the new commands,
/// and one exit-status convention.
@Suite("The CLI end to end", .waitsOnItsOwnThread)
struct CLITests {
    struct FullJSON: Decodable {
        var id: String, title: String, state: String, fireDate: String?, enabled: Bool, secondary: String
        var sound: String, volume: Double?, fade: Double?, ringLimit: Double, wakes: Bool, snooze: Double?
    }

    @Test func everydayTimeFormsScheduleAndNextShowsHowTheyResolve() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        for form in ["in 10 minutes", "+1h30m", "tomorrow noon", "fri 18:00", "next mon 9:00", "12/24 18:00", "0730", "midnight"] {
            let added = try session.cli("add", form, "--title", form)
            #expect(added.status == 0, "\(form): \(added.stderr)")
            let next = try session.cli("next", form, "--count", "1")
            #expect(next.status == 0 && next.stdout.count >= 25, "\(form): \(next.stdout)\(next.stderr)")
        }
        let duration = try session.cli("add", "10m")
        #expect(duration.status == 64 && duration.stderr.contains("`reveille timer 10m`"), "\(duration.status) \(duration.stderr)")
        #expect(duration.stderr.contains("Usage: reveille add"), "the usage of the command given, not the root's: \(duration.stderr)")
    }

    @Test func actionsNameTheAlarmAndShortPrefixesAreShownFirst() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let pizza = try session.cliJSON(FullJSON.self, "timer", "25m", "--title", "Pizza")
        let short = String(pizza.id.prefix(1))
        let refused = try session.cli("cancel", short)
        #expect(refused.status == 64 && refused.stderr.contains("matches timer \(pizza.id.prefix(8)) \"Pizza\""), "\(refused.stderr)")
        #expect(try session.cliJSON([FullJSON].self, "list").count == 1, "nothing cancelled")
        let cancelled = try session.cli("cancel", short, "--yes")
        #expect(cancelled.stdout.hasPrefix("Cancelled timer \(pizza.id.prefix(8)) \"Pizza\": it would have rung "),
                "\(cancelled.stdout)")
        // --all asks, or takes --yes.
        for title in ["One", "Two"] { _ = try session.cli("timer", "1h", "--title", title) }
        #expect(try session.cli("cancel", "--all").status == 64)
        let all = try session.cli("cancel", "--all", "--yes")
        #expect(all.stdout.split(separator: "\n").count == 2 && all.stdout.contains("\"One\"") && all.stdout.contains("\"Two\""))
        #expect(try session.cliJSON([FullJSON].self, "list").isEmpty)
    }

    @Test func editKeepsTheIDAndChangesOnlyWhatIsGiven() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let alarm = try session.cliJSON(FullJSON.self, "add", "7:00", "--days", "weekdays", "--title", "Up", "--volume", "80%")
        let edited = try session.cliJSON(FullJSON.self, "edit", alarm.id, "7:30", "--sound", "bell", "--json")
        #expect(edited.id == alarm.id && edited.title == "Up" && edited.volume == 0.8 && edited.sound == "bell")
        #expect(edited.fireDate?.contains("T07:30:00.000") == true, "\(edited.fireDate ?? "")")
        let retitled = try session.cli("edit", alarm.id.prefix(8).description, "--title", "Stand-up")
        #expect(retitled.stdout.hasPrefix("Changed alarm \(alarm.id.prefix(8)) \"Stand-up\": rings "), "\(retitled.stdout)")
        // Every field the user can set is in show --json.
        let run = try session.cliJSON(FullJSON.self, "timer", "5m", "--secondary", "run:/usr/bin/notify-send 'Tea ready'",
                                      "--fade", "30s", "--ring-limit", "2m", "--no-wake")
        #expect(run.secondary == "run:/usr/bin/notify-send 'Tea ready'" && run.snooze == nil)
        #expect(run.fade == 30 && run.ringLimit == 120 && !run.wakes)
        // Apps may edit their own alarms; the same validation as Schedule.
        #expect(try session.cli("edit", alarm.id, "2020-01-01 10:00").stderr.contains("not in the future"))
    }

    @Test func skipDisableAndEnableAlarms() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let daily = try session.cliJSON(FullJSON.self, "add", "6:00", "--days", "daily", "--title", "Run")
        let skipped = try session.cliJSON(FullJSON.self, "skip", daily.id)
        let first = try #require(daily.fireDate.flatMap { ISO8601Local.parse($0, defaultTimeZone: UTCTimeZone()) })
        let after = try #require(skipped.fireDate.flatMap { ISO8601Local.parse($0, defaultTimeZone: UTCTimeZone()) })
        #expect(after.timeIntervalSince(first) == 86_400, "the next day's, one day later")
        let off = try session.cli("disable", daily.id)
        #expect(off.stdout.hasPrefix("Disabled alarm \(daily.id.prefix(8)) \"Run\": off until `reveille enable \(daily.id.prefix(8))`"), "\(off.stdout)")
        #expect(try session.cli("list").stdout.contains("off"))
        #expect(try session.cliJSON(FullJSON.self, "show", daily.id).enabled == false)
        let on = try session.cliJSON(FullJSON.self, "enable", daily.id)
        #expect(on.enabled && on.fireDate != nil)
        let timer = try session.cliJSON(FullJSON.self, "timer", "1h")
        let refused = try session.cli("skip", timer.id)
        #expect(refused.status == 1 && refused.stderr.contains("only an alarm waiting for its time can skip it"), "\(refused.stderr)")
    }

    @Test func optionsMeanOneThingAndExitStatusesFollowSysexits() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let ambiguous = try session.cli("timer", "1m", "--volume", "2")
        #expect(ambiguous.status == 64 && ambiguous.stderr.contains("write 2% or 0.02"), "\(ambiguous.stderr)")
        let both = try session.cli("timer", "1m", "--repeat", "1m", "--secondary", "none")
        #expect(both.status == 64 && both.stderr.contains("leave out --secondary"))
        #expect(try session.cli("show", "ffffffff").status == 66)
        #expect(try session.cli("add", "2020-01-01 10:00").status == 65)
        for binary in ["reveille", "reveille-agent"] {
            let version = try Subprocess.run(session.binaries + "/" + binary, ["--version"], environment: session.environment)
            #expect(version.status == 0 && version.stdout == ReveilleVersion.current + "\n", "\(binary): \(version.stdout)")
        }
        let help = try session.cli("timer", "--help")
        #expect(help.stdout.contains("1:30 is 1 minute 30 seconds"))
    }

    @Test func completionsOfferAlarmIDsWithTitlesSoundsAndWeekdays() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let tea = try session.cliJSON(FullJSON.self, "timer", "1h", "--title", "Tea")
        // As the generated scripts ask: the argument, the word's index, the cursor in it, the words.
        let ids = try session.cli("---completion", "cancel", "--", "positional@0", "2", "0", "reveille", "cancel", "")
        #expect(ids.stdout.contains(String(tea.id.prefix(8))), "\(ids.stdout)\(ids.stderr)")
        let sounds = try session.cli("---completion", "timer", "--", "--sound", "3", "1", "reveille", "timer", "--sound", "b")
        #expect(sounds.stdout.contains("bell"), "\(sounds.stdout)\(sounds.stderr)")
        for shell in ["bash", "zsh", "fish"] {
            let script = try session.cli("--generate-completion-script", shell).stdout
            #expect(script.contains("weekdays") && script.contains("weekends") && script.contains("---completion cancel"), "\(shell)")
        }
    }

    static let watchDriver = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Support/pty-driver/watch-pty.py").path

    struct WatchRun: Decodable {
        var status: Int32, rawWhileRunning: Bool, echoRestored: Bool, cursorShown: Bool, screens: [String], clearedWholeScreen: Bool
        enum CodingKeys: String, CodingKey {
            case status, screens
            case rawWhileRunning = "raw_while_running", echoRestored = "echo_restored", cursorShown = "cursor_shown"
            case clearedWholeScreen = "cleared_whole_screen"
        }
    }

    @Test(arguments: [("INT", 130), ("TERM", 143), ("HUP", 129)])
    func watchLeavesTheTerminalAsItWasAndAsksBeforeCancelling(_ signal: String, _ status: Int32) throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let pizza = try session.cliJSON(FullJSON.self, "timer", "25m", "--title", "Pizza")
        _ = try session.cliJSON(FullJSON.self, "add", "7:00", "--title", "A longer alarm title")
        let result = try Subprocess.run("/usr/bin/python3", [Self.watchDriver, session.binaries + "/reveille", signal, "c", "n", "c"],
                                        environment: session.environment, timeout: 40)
        let run = try JSONDecoder().decode(WatchRun.self, from: Data(result.stdout.utf8))
        #expect(run.status == status && run.rawWhileRunning && run.echoRestored && run.cursorShown, "\(result.stdout)\(result.stderr)")
        #expect(!run.clearedWholeScreen, "redrawn in place, without clearing the screen each time")
        #expect(run.screens[1].contains("Cancel timer \(pizza.id.prefix(8)) \"Pizza\"? y/n"), "\(run.screens[1])")
        #expect(run.screens[2].contains("Not cancelled"))
        #expect(try session.cliJSON([FullJSON].self, "list").count == 2, "n cancels nothing")
        // Columns line up: the titles start at the same column on both rows.
        let rows = run.screens[0].components(separatedBy: "\r\n").filter { $0.contains("Pizza") || $0.contains("A longer alarm") }
        let starts = rows.compactMap { row in (row.range(of: "Pizza") ?? row.range(of: "A longer alarm")).map { row.distance(from: row.startIndex, to: $0.lowerBound) } }
        #expect(starts.count == 2 && Set(starts).count == 1, "\(rows)")
    }

    @Test func timesFollowTheLocalesClockAndISOStaysInJSON() throws {
        // A locale built for the tests (glibc's localedef), as a user's en_US.UTF-8 would be.
        let locales = try TestLocales.folder(with: "en_US.UTF-8")
        let session = try TestSession(audio: .none)
        try session.startAgent()
        var american = session.environment
        american["LOCPATH"] = locales
        american["LC_ALL"] = "en_US.UTF-8"
        let added = try Subprocess.run(session.binaries + "/reveille", ["add", "19:30", "--title", "Dinner"], environment: american)
        #expect(added.stdout.contains(" 7:30 PM (in "), "\(added.stdout)\(added.stderr)")
        #expect(try session.cli("list").stdout.contains(" 19:30 (in "), "24 hours in the C locale")
        let json = try Subprocess.run(session.binaries + "/reveille", ["list", "--json"], environment: american)
        #expect(json.stdout.contains("T19:30:00.000+00:00"), "ISO 8601 in JSON whatever the locale: \(json.stdout)")
    }

    /// What an app or a file wrote, as hostile as it gets: set the clipboard (OSC 52), clear
    /// the screen (CSI 2J), a one-byte CSI (0x9B, C1), reverse what follows (U+202E), a newline.
    static let hostile = "\u{1B}]52;c;cmVib290\u{07}Wake\u{1B}[2J\u{9B}31m\u{202E}gnp.exe\nFAKE"
    /// Characters none of it may reach the terminal with.
    static let raw: [Unicode.Scalar] = ["\u{1B}", "\u{07}", "\u{9B}", "\u{202E}"]

    func expectNothingRaw(_ result: Subprocess.Result, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        expectNothingRaw(result.stdout + result.stderr, what, sourceLocation: sourceLocation)
    }

    func expectNothingRaw(_ printed: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for scalar in Self.raw {
            #expect(!printed.unicodeScalars.contains(scalar),
                    "\(what) printed U+\(String(scalar.value, radix: 16)) raw: \(printed.debugDescription)", sourceLocation: sourceLocation)
        }
    }

    @Test func textFromAppsAndFilesReachesTheTerminalEscaped() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let added = try session.cli("add", "7:30", "--title", Self.hostile)
        #expect(added.status == 0, "\(added.stderr)")
        expectNothingRaw(added, "add")
        let id = String(try #require(session.cliJSON([FullJSON].self, "list").first).id.prefix(8))
        let escaped = #"\u{1B}]52;c;cmVib290\u{07}Wake\u{1B}[2J\u{9B}31m\u{202E}gnp.exe\nFAKE"#
        for arguments in [["list"], ["show", id]] {
            let result = try Subprocess.run(session.binaries + "/reveille", arguments, environment: session.environment)
            expectNothingRaw(result, arguments[0])
            #expect(result.stdout.contains(escaped), "\(arguments[0]): \(result.stdout)")
            #expect(!result.stdout.split(separator: "\n").contains { $0.hasPrefix("FAKE") }, "a newline in a title makes no line")
        }
        // A sound file's name, in `sounds` and in the alarm that rings it (by its path).
        let sounds = session.directory + "/home/.local/share/sounds"
        try FileManager.default.createDirectory(atPath: sounds, withIntermediateDirectories: true)
        let sound = "alarm\u{1B}]52;c;eA==\u{07}\u{202E}"
        try FileManager.default.copyItem(atPath: "/usr/share/sounds/freedesktop/stereo/bell.oga", toPath: sounds + "/" + sound + ".oga")
        let listed = try session.cli("sounds")
        expectNothingRaw(listed, "sounds")
        #expect(listed.stdout.contains(#"alarm\u{1B}]52;c;eA==\u{07}\u{202E}"#), "\(listed.stdout)")
        let ringing = try session.cliJSON(FullJSON.self, "add", "8:00", "--sound", sounds + "/" + sound + ".oga")
        let shown = try session.cli("show", ringing.id)
        expectNothingRaw(shown, "show's sound")
        #expect(shown.stdout.contains(#"alarm\u{1B}]52;c;eA==\u{07}\u{202E}"#), "\(shown.stdout)")

        // Messages that quote what was typed or what the agent answered.
        let unreadable = try session.cli("add", Self.hostile)
        #expect(unreadable.status == 64 && unreadable.stderr.contains(#"\u{1B}]52"#), "\(unreadable.stderr)")
        expectNothingRaw(unreadable, "an input error")
        let unknown = try session.cli("show", "\u{1B}[2J\u{9B}")
        #expect(unknown.status != 0 && !unknown.stderr.isEmpty)
        expectNothingRaw(unknown, "an agent's refusal")

        // watch, as lines (not a terminal) and full screen (a pseudo-terminal).
        let output = session.directory + "/watch.txt"
        let watch = try Subprocess.start(session.binaries + "/reveille", ["watch"], environment: session.environment, stdout: output)
        defer { watch.terminate() }
        let lines = try eventually(timeout: 20, "watch's first line") { () -> String? in
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            return text.contains("\n") ? text : nil
        }
        expectNothingRaw(lines, "watch")
        #expect(lines.contains(escaped), "\(lines)")
        let result = try Subprocess.run("/usr/bin/python3", [Self.watchDriver, session.binaries + "/reveille", "INT"],
                                        environment: session.environment, timeout: 40)
        let screen = try JSONDecoder().decode(WatchRun.self, from: Data(result.stdout.utf8))
        #expect(!screen.clearedWholeScreen && screen.screens[0].contains(#"\u{1B}]52;c;"#), "\(screen.screens)")
        for sequence in ["\u{1B}]", "\u{07}", "\u{9B}", "\u{202E}"] {
            #expect(!screen.screens[0].contains(sequence), "watch's screen: \(screen.screens[0].debugDescription)")
        }
    }

    @Test func anAppsUsageDescriptionReachesAuthListEscaped() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let output = session.directory + "/hostile.out"
        let app = try Subprocess.start(session.binaries + "/reveille-test-app", ["org.test.Hostile", Self.hostile, "request-authorization"],
                                       environment: session.environment, stdout: output, stderr: output + ".err")
        let prompt = try eventually(timeout: 20, "the authorization prompt") {
            try session.notifications(titled: "org.test.Hostile wants to schedule alarms").first
        }
        try session.press(label: "Allow", on: prompt.id)
        #expect(app.wait(timeout: 10) == 0)
        let auth = try session.cli("auth", "list")
        expectNothingRaw(auth, "auth list")
        #expect(auth.stdout.contains(#"\u{1B}]52;c;cmVib290\u{07}Wake"#) && auth.stdout.contains("org.test.Hostile"), "\(auth.stdout)")
    }

    /// Issue 40: `timer 400d` had said "the countdown before it rings (preAlert) is 400 days" and
    /// `--ring-limit 4s` "ringLimit is 4.0 seconds", in English whatever the language. The CLI
    /// says its options, in English, German and French; an app on the bus keeps the agent's words.
    @Test(arguments: [
        ("C.UTF-8", ["duration: '400d' is longer than 366d; accepted: up to 366d", "--ring-limit: '4s' is shorter than 5s; accepted: 5s to 24h",
                     "'-5m': durations are positive: 5m, 90s"]),
        ("de_DE.UTF-8", ["Dauer: „400d“ ist länger als 366d; möglich: bis 366d", "--ring-limit: „4s“ ist kürzer als 5s; möglich: 5s bis 24h",
                         "„-5m“: Dauern sind positiv: 5m, 90s"]),
        ("fr_FR.UTF-8", ["durée : « 400d » dépasse 366d ; acceptés : jusqu'à 366d", "--ring-limit : « 4s » est inférieur à 5s ; acceptés : 5s à 24h",
                         "« -5m » : les durées sont positives : 5m, 90s"]),
    ])
    func aLengthOutOfBoundsIsRefusedInTheOptionsWordsInEachLanguage(_ locale: String, _ said: [String]) throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let environment = locale == "C.UTF-8" ? session.environment : try TranslationTests().environment(session, locale)
        let commands = [["timer", "400d"], ["add", "7:30", "--ring-limit", "4s"], ["timer", "-5m"]]
        for (arguments, expected) in zip(commands, said) {
            let refused = try Subprocess.run(session.binaries + "/reveille", arguments, environment: environment)
            #expect(refused.status == 64 && refused.stderr.contains(expected), "\(arguments): \(refused.stderr)")
            for field in ["preAlert", "ringLimit", "fadeIn", "countdownDuration"] {
                #expect(!refused.stderr.contains(field), "\(arguments) names \(field): \(refused.stderr)")
            }
        }
        #expect(try session.cliJSON([FullJSON].self, "list").isEmpty, "nothing was added")
    }
}
