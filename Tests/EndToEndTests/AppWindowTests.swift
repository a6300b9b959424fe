import Foundation
import Glibc
import ReveilleCore
import ReveilleModel
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// The app (reveille-app) under Xvfb, read and driven through AT-SPI as a screen reader does:
/// it opens at once, follows the agent's alarms as they change anywhere, counts timers down,
/// schedules what its dialog says, and stops what rings.
@Suite("App window", .drawsWindows)
struct AppWindowTests {
    /// A session on its own display with an accessibility bus, the agent running; `settings`,
    /// settings.json's text, written before the agent starts (which reads it then).
    func session(_ notifications: TestSession.NotificationPeer = .recording(), settings: String? = nil) throws -> TestSession {
        let session = try TestSession(notifications: notifications)
        try session.startDisplay()
        try AccessibleTree.prepare(session)
        if let settings {
            try FileManager.default.createDirectory(atPath: session.directory + "/config/reveille", withIntermediateDirectories: true)
            try settings.write(toFile: settingsFile(session), atomically: true, encoding: .utf8)
        }
        try session.startAgent()
        return session
    }

    func settingsFile(_ session: TestSession) -> String { session.directory + "/config/reveille/settings.json" }

    @Test func anAlarmAddedInTheDialogRingsAtItsTime() throws {
        // The agent's test clock (seconds added to the wall clock, read again on SIGUSR1, as
        // when the clock is set): the alarm is set in the dialog for a few minutes ahead, then
        // the agent's clock is moved to a moment before it, rather than the test waiting.
        let session = try TestSession(notifications: .recording())
        try session.startDisplay()
        try AccessibleTree.prepare(session)
        let offsetFile = session.directory + "/clock-offset"
        try "0".write(toFile: offsetFile, atomically: true, encoding: .utf8)
        try session.startAgent(["--test-clock-offset-file", offsetFile])
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")! // the session's TZ
        let due = utc.date(bySetting: .second, value: 0, of: Date().addingTimeInterval(180))!
        let (hour, minute) = (utc.component(.hour, from: due), utc.component(.minute, from: due))
        try withApp(session) { _, tree, _ in
            try addAlarm(session, tree, hour: String(hour), minute: String(minute), title: "Dialog alarm")
            try tree.press("push button", "Save")
            let alarm = try eventually("the alarm in the agent") { try session.cliJSON([Listed].self, "list").first { $0.title == "Dialog alarm" } }
            #expect(alarm.time == String(format: "%02d:%02d", hour, minute), "\(alarm)")
            #expect(try session.alerts(titled: "Dialog alarm").isEmpty, "not before its time")
            // Two seconds before it is due, as the agent's clock reads.
            try String(Int(due.timeIntervalSinceNow.rounded(.down)) - 2).write(toFile: offsetFile, atomically: true, encoding: .utf8)
            let pid = try #require(try session.ownerPID(of: AgentInterface.busName))
            kill(pid, SIGUSR1)
            _ = try eventually(timeout: 10, "the alert at its time") { try session.alerts(titled: "Dialog alarm").first }
            _ = try eventually("the window to show it ringing at the top") {
                try labels(tree).contains { $0.hasPrefix("Alarm · ") } ? true : nil
            }
        }
    }

    /// Starts the app; it is ended (SIGTERM) when `body` returns. `body` is given the process,
    /// its accessible tree, and when it was launched.
    func withApp<T>(_ session: TestSession, environment: [String: String]? = nil,
                    _ body: (Subprocess.Child, AccessibleTree, Date) throws -> T) throws -> T {
        let launched = Date()
        let app = try Subprocess.start(session.binaries + "/reveille-app", [], environment: environment ?? session.environment,
                                       stderr: session.directory + "/app.log")
        defer {
            kill(app.pid, SIGTERM)
            _ = app.wait()
        }
        return try body(app, AccessibleTree(session, application: "reveille-app"), launched)
    }

    /// Shows the page `name` by pressing its tab: the view switcher is in the header (wide; the
    /// header's switcher holds a wide and a narrow one) or in the bar at the bottom (narrow), so
    /// each tab of that name is pressed in turn until the page's tab is checked.
    func openPage(_ tree: AccessibleTree, _ name: String) throws {
        // The tabs are read anew for each press: GTK 4.18 takes a switcher that hides out of the
        // tree, so a tab counted a moment ago may be gone (CI's Debian 13 root: "no page tab").
        _ = try eventually("the page tab \(name) pressed") { () -> Bool? in
            let tabs = try tree.nodes().filter { $0.role == "page tab" && $0.name == name }
            if tabs.contains(where: \.checked) { return true }
            for index in tabs.indices {
                try? tree.press("page tab", name, index: index)
                if try tree.nodes().contains(where: { $0.role == "page tab" && $0.name == name && $0.checked }) { return true }
            }
            return nil
        }
    }

    /// The texts of the labels on the window's Alarms page (the History page has titles too).
    func labels(_ tree: AccessibleTree, page: String = "Alarms") throws -> [String] {
        try tree.nodes(inside: "panel", page).filter { $0.role == "label" }.map(\.name)
    }

    /// Alarms as `reveille list --json` shows them, with the fields the dialog sets.
    struct Listed: Decodable {
        var id: String
        var title: String
        var kind: String
        var state: String
        var time: String?
        var repeats: [String]?
        var snooze: Double?
        var volume: Double?
        var skipped: String?
        var fireDate: String?
        var ringLimit: Double?
        var wakes: Bool?
        var recurrence: Alarm.Schedule.Relative.Recurrence?
        var sound: String?
        var fade: Double?
        var timeRemaining: Double?
    }

    /// How long the app's window takes to appear: asked every 10 ms, not with eventually's
    /// growing pauses (up to 0.2 s), so that the time measured is the window's, not the asking's.
    func timeToWindow(_ session: TestSession, launched: Date) throws -> TimeInterval {
        while Date().timeIntervalSince(launched) < 10 {
            if try !session.windows(titled: "Reveille").isEmpty { return Date().timeIntervalSince(launched) }
            usleep(10_000)
        }
        throw Subprocess.Failure("no window within 10 s of launch")
    }

    /// Presses Add Alarm until the dialog opens; returns the dialog's window. Pressed once it can
    /// be (the window answers the agent first), and again if a press made while the window was
    /// still busy under load opened nothing (CI saw one in the bare roots of Debian 12 and 13).
    func openNewAlarmDialog(_ session: TestSession, _ tree: AccessibleTree) throws -> String {
        _ = try session.eventually(timeout: 10, "the window on screen") { try session.windows(titled: "Reveille").first }
        for attempt in 1...2 {
            _ = try eventually("Add Alarm pressable") {
                try tree.nodes().contains { $0.role == "push button" && $0.name == "Add Alarm" && $0.sensitive } ? true : nil
            }
            try tree.press("push button", "Add Alarm")
            if let opened = try? eventually(timeout: attempt == 1 ? 15 : 30, "the dialog", { try session.windows(titled: "New Alarm").first }) {
                return opened
            }
        }
        throw Subprocess.Failure("Add Alarm was pressed twice and no dialog opened")
    }

    /// Opens the dialog with the window's Add Alarm button and types a time and a title into it.
    func addAlarm(_ session: TestSession, _ tree: AccessibleTree, hour: String, minute: String, title: String) throws {
        _ = try openNewAlarmDialog(session, tree)
        try tree.set("spin button", "Hour", to: hour)
        try tree.set("spin button", "Minute", to: minute)
        try tree.set("text", "Title", to: title)
    }

    @Test func opensWithinTwoSecondsAndFollowsTheCLI() throws {
        let session = try session()
        _ = try session.cliJSON(AlarmJSON.self, "add", "07:30", "--title", "Before", "--days", "weekdays")
        // The fastest of up to three launches: tests that start their desktops at the same
        // moment (make test runs 16 at once on 2 cores) can hold a single launch up (2.1 s once,
        // under load average 27; 0.1-0.5 s otherwise).
        var times: [TimeInterval] = []
        while times.count < 3, times.allSatisfy({ $0 >= 2 }) {
            times.append(try withApp(session) { _, _, launched in try timeToWindow(session, launched: launched) })
            _ = try eventually("the window to go with its process") { try session.windows(titled: "Reveille").isEmpty ? true : nil }
        }
        #expect(times.min()! < 2, "the window took \(times) s to appear")
        try withApp(session) { _, tree, _ in
            _ = try eventually("the alarm set before launch in the window") { try labels(tree).contains("Before") ? true : nil }
            let shown = try labels(tree)
            #expect(shown.contains("07:30"), "\(shown)")
            #expect(shown.contains { $0.hasPrefix("Weekdays · Rings in ") }, "\(shown)")

            let added = try session.cliJSON(AlarmJSON.self, "add", "06:45", "--title", "Gym", "--days", "mon,wed")
            _ = try eventually("the alarm the CLI added to appear") { try labels(tree).contains("Gym") ? true : nil }
            #expect(try labels(tree).contains("06:45"))
            #expect(try session.cli("cancel", String(added.id.prefix(8))).status == 0)
            _ = try eventually("the alarm the CLI removed to disappear") { try labels(tree).contains("Gym") ? nil : true }
            #expect(try labels(tree).contains("Before"), "the other alarm stays")
        }
    }

    @Test func aTimersCountdownChangesAndAPresetStartsOne() throws {
        let session = try session()
        _ = try session.cliJSON(AlarmJSON.self, "timer", "10m", "--title", "Tea")
        try withApp(session) { _, tree, _ in
            let countdown = /^\d+:\d\d$/
            let first = try eventually("the timer's countdown") { try labels(tree).first { $0.wholeMatch(of: countdown) != nil } }
            #expect(try labels(tree).contains("Tea"))
            let later = try eventually("the countdown to change") {
                try labels(tree).first { $0.wholeMatch(of: countdown) != nil && $0 != first }
            }
            let seconds = { (clock: String) in clock.split(separator: ":").reduce(0) { $0 * 60 + (Int($1) ?? 0) } }
            #expect(seconds(later) < seconds(first), "counts down: \(first) then \(later)")

            try tree.press("push button", "5 min")
            let started = try eventually("the preset to start a timer") {
                try session.cliJSON([Listed].self, "list").first { $0.title == "5 min timer" }
            }
            #expect(started.kind == "timer" && started.state == "countdown")
            _ = try eventually("the new timer in the window") { try labels(tree).contains("5 min timer") ? true : nil }

            try tree.press("push button", "Pause Tea")
            _ = try eventually("Pause to pause a timer") { try session.cliJSON([Listed].self, "list").first { $0.state == "paused" } }
        }
    }

    @Test func theWindowGoesOnWhileTheAgentHasNotAnswered() throws {
        let session = try session()
        _ = try session.cliJSON(AlarmJSON.self, "timer", "10m", "--title", "Tea")
        let agent = try #require(session.agent)
        try withApp(session) { _, tree, _ in
            let countdown = /^\d+:\d\d$/
            _ = try eventually("the timer's countdown") { try labels(tree).first { $0.wholeMatch(of: countdown) != nil } }
            // A call the stopped agent does not answer: the app waits for it off its loop.
            kill(agent.pid, SIGSTOP)
            defer { kill(agent.pid, SIGCONT) }
            try tree.press("push button", "5 min")
            let first = try #require(try labels(tree).first { $0.wholeMatch(of: countdown) != nil })
            _ = try session.eventually(timeout: 10, "the countdown to go on meanwhile") {
                try labels(tree).contains { $0.wholeMatch(of: countdown) != nil && $0 != first } ? true : nil
            }
            kill(agent.pid, SIGCONT)
            _ = try eventually("the answered call's timer") { try session.cliJSON([Listed].self, "list").first { $0.title == "5 min timer" } }
        }
    }

    @Test func theDialogSchedulesTheChosenTimeAndWeekdays() throws {
        let session = try session()
        try withApp(session) { _, tree, _ in
            try addAlarm(session, tree, hour: "6", minute: "15", title: "Run")
            try tree.set("text", "Snooze", to: "5m")
            try tree.set("text", "Ring for", to: "3m")
            try tree.press("check box", "Wake the computer") // GTK 4.8 exposes a switch as a check box
            // GTK 4.8 gives toggle buttons the role of a push button, pressed when on.
            try tree.press("push button", "mon")
            try tree.press("push button", "fri")
            _ = try eventually("the weekday toggles to be on") {
                try tree.nodes(inside: "panel", "Repeats on").filter { $0.role == "push button" && $0.checked }.map(\.name) == ["mon", "fri"] ? true : nil
            }
            try tree.press("push button", "Save")
            let alarm = try eventually("the alarm in the agent") { try session.cliJSON([Listed].self, "list").first { $0.title == "Run" } }
            #expect(alarm.time == "06:15" && alarm.repeats == ["mon", "fri"] && alarm.snooze == 300, "\(alarm)")
            #expect(alarm.ringLimit == 180 && alarm.wakes == false, "\(alarm)")
            _ = try eventually("the dialog to close") { try session.windows(titled: "New Alarm").isEmpty ? true : nil }
            _ = try eventually("the alarm in the window") { try labels(tree).contains("Run") ? true : nil }
        }
    }

    @Test func theDialogSchedulesAMonthlyAlarmWithTheChosenSoundWhosePreviewPlays() throws {
        let session = try session()
        let recorder = try SinkRecorder(session: session)
        try withApp(session) { _, tree, _ in
            try addAlarm(session, tree, hour: "6", minute: "30", title: "Rent")
            try tree.press("push button", "Monthly")
            _ = try eventually("the day of the month to show") { try tree.names("spin button").contains("Day of the month") ? true : nil }
            try tree.set("spin button", "Day of the month", to: "15")
            // The agent's sounds, listed as it names them.
            _ = try eventually("the agent's sounds in the list") {
                try tree.nodes(inside: "list", "Sound").contains { $0.name == "Bell" } ? true : nil
            }
            let dialog = try #require(try session.windows(titled: "New Alarm").first)
            try choose("Bell", in: "Sound", mnemonic: "alt+o", session, tree, window: dialog)
            _ = try eventually("Bell chosen") { try rows(tree, "Sound").filter(\.selected).map(\.name) == ["Bell"] ? true : nil }
            let pressed = Date()
            try tree.press("push button", "Play")
            // Pressed while it plays (a screen reader says so); pressed again, it stops the preview.
            _ = try eventually("Play pressed while it plays") {
                try tree.nodes().contains { $0.role == "push button" && $0.name == "Play" && $0.checked } ? true : nil
            }
            let heard = try eventually("the preview to be heard") { recorder.firstAudible(after: pressed) }
            try tree.press("push button", "Play")
            let stopped = Date()
            // Left alone, the preview would still be heard until `heard` + its 10 s.
            let until = heard.addingTimeInterval(9.8)
            #expect(stopped.addingTimeInterval(0.5) < until.addingTimeInterval(-0.5),
                    "pressed again while the preview had seconds left, or the check below proves nothing")
            try recorder.waitUntilRecorded(until)
            #expect(!recorder.heard(from: stopped.addingTimeInterval(0.5), to: until), "the preview stopped when its button was pressed again")
            #expect(try session.cliJSON([Listed].self, "list").isEmpty, "a preview schedules nothing")
            try tree.set("spin button", "Volume (%)", to: "80")
            try tree.set("text", "Fade-in", to: "20s")
            try tree.press("push button", "Save")
            let alarm = try eventually("the alarm in the agent") { try session.cliJSON([Listed].self, "list").first { $0.title == "Rent" } }
            #expect(alarm.time == "06:30" && alarm.recurrence == .monthly(day: 15), "\(alarm)")
            #expect(alarm.sound == "bell" && alarm.volume == 0.8 && alarm.fade == 20, "\(alarm)")
            _ = try eventually("the alarm in the window") { try labels(tree).contains { $0.hasPrefix("Monthly on day 15 · ") } ? true : nil }
        }
    }

    @Test func theDialogRefusesWhatTheCLIRefusesNamingTheField() throws {
        let session = try session()
        try withApp(session) { _, tree, _ in
            try addAlarm(session, tree, hour: "7", minute: "0", title: "Birthday")
            try tree.set("text", "Snooze", to: "2d")
            try tree.press("push button", "Save")
            _ = try eventually("the refusal in the dialog") {
                try tree.names("label").contains("Snooze: '2d' is longer than 24h; accepted: 1s to 24h") ? true : nil
            }
            try tree.set("text", "Snooze", to: "5m")
            try tree.press("push button", "Yearly")
            // The page's fields reach AT-SPI when it is shown (GTK 4.18 a moment after the press).
            _ = try eventually("the yearly fields") { try tree.names("spin button").contains("Month") ? true : nil }
            try tree.set("spin button", "Month", to: "2")
            try tree.set("spin button", "Day", to: "30")
            try tree.press("push button", "Save")
            _ = try eventually("the day of the year refused") {
                try tree.names("label").contains { $0.hasPrefix("Day of the year: could not read '2-30' as a day of the year") } ? true : nil
            }
            #expect(try session.windows(titled: "New Alarm").count == 1, "the dialog stays open with what was typed")
            #expect(try session.cliJSON([Listed].self, "list").isEmpty, "nothing was scheduled")
            try tree.set("spin button", "Day", to: "29")
            try tree.press("push button", "Save")
            let alarm = try eventually("the alarm in the agent") { try session.cliJSON([Listed].self, "list").first }
            #expect(alarm.recurrence == .yearly(month: 2, day: 29) && alarm.snooze == 300, "\(alarm)")
        }
    }

    @Test func anUnchangedSaveChangesNothing() throws {
        let session = try session()
        let added = try session.cliJSON(AlarmJSON.self, "add", "07:30", "--title", "Odd", "--every", "3", "--volume", "72.5%", "--fade", "7s",
                                        "--ring-limit", "90s", "--snooze", "45s", "--sound", "bell", "--no-wake")
        #expect(try session.cli("skip", String(added.id.prefix(8))).status == 0)
        let before = try session.cli("list", "--json").stdout
        try withApp(session) { _, tree, _ in
            _ = try eventually("the alarm in the window") { try labels(tree).contains("Odd") ? true : nil }
            try tree.press("push button", "Edit Odd")
            _ = try eventually("the dialog") { try session.windows(titled: "Edit Alarm").first }
            _ = try eventually("the alarm's sound chosen in the list") {
                try tree.nodes(inside: "list", "Sound").contains { $0.name == "Bell" } ? true : nil
            }
            try tree.press("push button", "Save")
            _ = try eventually("the dialog to close") { try session.windows(titled: "Edit Alarm").isEmpty ? true : nil }
            #expect(try session.cli("list", "--json").stdout == before, "the volume, lengths, skip and every-3-days start kept as they were")
            // A change of the title alone changes only the title.
            try tree.press("push button", "Edit Odd")
            _ = try eventually("the dialog") { try session.windows(titled: "Edit Alarm").first }
            try tree.set("text", "Title", to: "Even")
            try tree.press("push button", "Save")
            _ = try eventually("the new title in the agent") { try session.cliJSON([Listed].self, "list").first { $0.title == "Even" } }
            #expect(try session.cli("list", "--json").stdout == before.replacing("\"Odd\"", with: "\"Even\""))
        }
    }

    @Test func aTimerOfANewLengthBecomesARecentPreset() throws {
        let session = try session()
        try withApp(session) { _, tree, _ in
            _ = try session.eventually(timeout: 10, "the window on screen") { try session.windows(titled: "Reveille").first }
            // Started elsewhere (the CLI) while the window is open.
            _ = try session.cliJSON(AlarmJSON.self, "timer", "7m", "--title", "Eggs")
            _ = try eventually("7 min among the recent timers") {
                try tree.nodes(inside: "panel", "Recent timers").contains { $0.role == "push button" && $0.name == "7 min" } ? true : nil
            }
            // Typed beside the presets, read as `reveille timer` reads a length.
            try tree.set("text", "Timer length", to: "0s")
            try tree.press("push button", "Start")
            _ = try eventually("the zero length refused") { try tree.names("label").contains("Timer length: '0s': durations are positive: 5m, 90s") ? true : nil }
            try tree.set("text", "Timer length", to: "2m30s")
            try tree.press("push button", "Start")
            let started = try eventually("the typed timer in the agent") {
                try session.cliJSON([Listed].self, "list").first { $0.title == "2 min 30 s timer" }
            }
            #expect(started.kind == "timer" && (140...150).contains(started.timeRemaining ?? 0), "\(started)")
            _ = try eventually("2 min 30 s first among the recent timers") {
                try tree.nodes(inside: "panel", "Recent timers").filter { $0.role == "push button" }.map(\.name) == ["2 min 30 s", "7 min"] ? true : nil
            }
            // A preset's length is not repeated among the recent ones.
            try tree.press("push button", "5 min")
            _ = try eventually("the preset's timer") { try session.cliJSON([Listed].self, "list").first { $0.title == "5 min timer" } }
            #expect(try tree.nodes(inside: "panel", "Recent timers").filter { $0.role == "push button" }.map(\.name) == ["2 min 30 s", "7 min"])
        }
        // Kept in the app's own file (0600), never the agent's: a new window offers them again.
        let file = session.directory + "/state/reveille/app-recent-timers.json"
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
        #expect(mode == 0o600, "mode \(String(mode, radix: 8))")
        try withApp(session) { _, tree, _ in
            _ = try eventually("the recent timers after a restart") {
                try tree.nodes(inside: "panel", "Recent timers").filter { $0.role == "push button" }.map(\.name) == ["2 min 30 s", "7 min"] ? true : nil
            }
            try tree.press("push button", "7 min")
            _ = try eventually("a recent preset to start its timer") { try session.cliJSON([Listed].self, "list").first { $0.title == "7 min timer" } }
        }
    }

    @Test func aTimerIsNamedInTheWindowAndTheSoundPickerSaysReadableTranslatedNames() throws {
        let session = try session()
        try withApp(session) { _, tree, _ in
            _ = try session.eventually(timeout: 10, "the window on screen") { try session.windows(titled: "Reveille").first }
            try tree.set("text", "Timer name", to: "Pasta")
            try tree.set("text", "Timer length", to: "9m")
            // Both fields hold what was set before Start reads them (CI's bare root once started
            // the timer with the name not yet there: "9 min timer").
            _ = try eventually("the name and length in their fields") { () -> Bool? in
                let nodes = try tree.nodes()
                return nodes.first { $0.role == "text" && $0.name == "Timer name" }?.text == "Pasta"
                    && nodes.first { $0.role == "text" && $0.name == "Timer length" }?.text == "9m" ? true : nil
            }
            try tree.press("push button", "Start")
            let pasta = try eventually("the named timer in the agent") { try session.cliJSON([Listed].self, "list").first { $0.kind == "timer" } }
            #expect(pasta.title == "Pasta", "\(pasta)")
            _ = try eventually("the name field emptied") {
                try tree.nodes().first { $0.role == "text" && $0.name == "Timer name" }?.text == "" ? true : nil
            }
            // The sound picker: Reveille's own sounds first, then the theme's, by readable names.
            try tree.press("push button", "Add Alarm")
            _ = try eventually("the dialog") { try session.windows(titled: "New Alarm").first }
            let names = try eventually("the agent's sounds in the list") { () -> [String]? in
                let names = try rows(tree, "Sound").map(\.name)
                return names.contains("Bell") ? names : nil
            }
            #expect(names.first == "Reveille’s alarm (default)", "\(names)")
            for name in ["Handbell", "Chime", "Alarm clock", "Incoming call", "Power disconnected"] { #expect(names.contains(name), "\(name) in \(names)") }
            #expect(!names.contains { $0.contains("-") || $0 != $0.trimmingCharacters(in: .whitespaces) || $0.first?.isLowercase == true }, "no file names: \(names)")
            let own = ["Reveille’s alarm", "Chime", "Gentle", "Handbell"].compactMap { names.firstIndex(of: $0) }
            #expect(own.count == 4 && own.allSatisfy { $0 < names.firstIndex(of: "Alarm clock")! }, "Reveille's own first: \(names)")
        }
        // In German.
        try withApp(session, environment: try TranslationTests().environment(session, "de_DE.UTF-8")) { _, tree, _ in
            _ = try session.eventually(timeout: 10, "the window on screen") { try session.windows(titled: "Reveille").first }
            try tree.press("push button", "Wecker stellen")
            let names = try eventually("the agent's sounds in the list, in German") { () -> [String]? in
                let names = try tree.nodes(inside: "list", "Klang").filter { $0.role == "list item" }.map(\.name)
                return names.count > 5 ? names : nil
            }
            #expect(names.contains("Glocke") && names.contains("Eingehender Anruf"), "\(names)")
        }
    }

    @Test func theKeyboardAloneAddsAnAlarm() throws {
        let session = try session()
        try withApp(session) { process, tree, _ in
            let window = try session.eventually(timeout: 10, "the window on screen") { try session.windows(titled: "Reveille").first }
            try session.type("ctrl+n", into: window)
            let dialog = try eventually("Ctrl+N to open the dialog") { try session.windows(titled: "New Alarm").first }
            try session.type("Escape", into: dialog)
            _ = try eventually("Escape to close it") { try session.windows(titled: "New Alarm").isEmpty ? true : nil }
            try session.type("ctrl+n", into: window)
            let again = try eventually("the dialog again") { try session.windows(titled: "New Alarm").first }
            // The hour field has the focus: type over it; Alt+M repeats monthly, Alt+H goes to the
            // day of the month; then Enter saves.
            for key in ["ctrl+a", "5", "Tab", "ctrl+a", "4", "5", "alt+m", "alt+h", "ctrl+a", "9", "Return"] { try session.type(key, into: again) }
            let alarm = try eventually("Enter to schedule the alarm") { try session.cliJSON([Listed].self, "list").first }
            #expect(alarm.time == "05:45" && alarm.title == "Alarm" && alarm.recurrence == .monthly(day: 9), "\(alarm)")
            _ = try eventually("the dialog to close") { try session.windows(titled: "New Alarm").isEmpty ? true : nil }
            // A refused field takes the focus: typed anew there, Enter saves.
            try session.type("ctrl+n", into: window)
            let third = try eventually("the dialog a third time") { try session.windows(titled: "New Alarm").first }
            for key in ["alt+n", "ctrl+a", "2", "d", "alt+i", "Return"] { try session.type(key, into: third) }
            _ = try eventually("the refusal") { try tree.names("label").contains { $0.hasPrefix("Snooze: '2d'") } ? true : nil }
            for key in ["ctrl+a", "5", "m", "Return"] { try session.type(key, into: third) }
            let snoozing = try eventually("the alarm with the snooze typed anew") { try session.cliJSON([Listed].self, "list").first { $0.snooze == 300 } }
            #expect(snoozing.title == "Alarm", "what was typed went into the refused field, not the title: \(snoozing)")
            // Alt+L goes to the timer's length; Enter starts it.
            for key in ["alt+l", "4", "m", "Return"] { try session.type(key, into: window) }
            _ = try eventually("Enter to start the typed timer") { try session.cliJSON([Listed].self, "list").first { $0.title == "4 min timer" } }
            try session.type("ctrl+w", into: window)
            #expect(process.wait(timeout: 10) == 0, "Ctrl+W closes the window, and the app ends")
        }
    }

    @Test func editingChangesTheTimeKeepsTheRestAndDeleteRemovesItWithUndo() throws {
        let session = try session()
        _ = try session.cliJSON(AlarmJSON.self, "add", "07:30", "--title", "Swim", "--days", "tue", "--volume", "50%")
        try withApp(session) { _, tree, _ in
            _ = try eventually("the alarm in the window") { try labels(tree).contains("Swim") ? true : nil }
            try tree.press("push button", "Edit Swim")
            _ = try eventually("the dialog") { try session.windows(titled: "Edit Alarm").first }
            try tree.set("spin button", "Hour", to: "8")
            try tree.press("push button", "Save")
            let edited = try eventually("the new time in the agent") {
                try session.cliJSON([Listed].self, "list").first { $0.title == "Swim" && $0.time == "08:30" }
            }
            #expect(edited.repeats == ["tue"] && edited.volume == 0.5, "what the dialog does not show stays: \(edited)")
            #expect(edited.ringLimit == 600 && edited.wakes == true, "the defaults, shown and kept: \(edited)")
            _ = try eventually("the new time in the window") { try labels(tree).contains("08:30") ? true : nil }

            try tree.press("push button", "Edit Swim")
            _ = try eventually("the dialog") { try session.windows(titled: "Edit Alarm").first }
            try tree.press("push button", "Delete Alarm")
            _ = try eventually("Delete to remove the alarm") { try session.cliJSON([Listed].self, "list").isEmpty ? true : nil }
            // One reading of the tree for all that is checked before Undo: the toast lasts 10 s, and
            // under CI's load each reading through AT-SPI has taken seconds.
            let shown = try eventually("the alarm to leave the window") { () -> [AccessibleTree.Node]? in
                let all = try tree.nodes()
                guard let page = AccessibleTree.nodes(of: all, inside: "panel", "Alarms") else { return nil }
                return page.contains { $0.role == "label" && $0.name == "Swim" } ? nil : all
            }
            #expect(shown.contains { $0.role == "label" && $0.name == "Deleted “Swim”" }, "the toast says what Undo undoes")
            // libadwaita's toast, its buttons named for a screen reader.
            let buttons = shown.filter { $0.role == "push button" }.map(\.name)
            #expect(buttons.contains("Undo") && buttons.contains("Dismiss") && !buttons.contains { $0.contains("_") || $0.hasPrefix("Gtk") }, "\(buttons)")
            try tree.press("push button", "Undo")
            let back = try eventually("Undo to bring the alarm back") { try session.cliJSON([Listed].self, "list").first { $0.title == "Swim" } }
            #expect(back.time == "08:30" && back.repeats == ["tue"] && back.volume == 0.5, "as it was: \(back)")
            _ = try eventually("the alarm back in the window, the toast gone") {
                try labels(tree).contains("Swim") && !tree.names("label").contains("Deleted “Swim”") ? true : nil
            }
        }
    }

    /// A screen reader hears an alarm that starts ringing while the window is open, by its title,
    /// and a toast (a refusal is said in one, as Undo is offered in one): AT-SPI's announcements,
    /// which GTK sends from 4.14 (`gtk_accessible_announce`) and libadwaita for its toasts from
    /// 1.6. Debian 12's GTK 4.8 and libadwaita 1.2 have no way to announce; there the alarm's
    /// notification is what a screen reader says.
    @Test func aScreenReaderHearsAnAlarmStartRingingAndAToast() throws {
        let session = try session()
        _ = try session.cliJSON(AlarmJSON.self, "add", "07:30", "--title", "Swim")
        try withApp(session) { _, tree, _ in
            _ = try eventually("the alarm in the window") { try labels(tree).contains("Swim") ? true : nil }
            let announcements = try Announcements.start(session, application: "reveille-app")
            let tea = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Tea")
            _ = try session.eventually("Tea to ring") { try session.agentState(of: tea.id) == "alerting" ? true : nil }
            _ = try eventually("Tea in the window's ringing area") { try labels(tree).contains("Tea") ? true : nil }
            try withKnownIssue("GTK 4.8 (Debian 12) has no way to announce") {
                _ = try eventually(timeout: 10, "the window to announce Tea") {
                    announcements.heard().contains("Tea is ringing") ? true : nil
                }
            } when: { !DesktopRelease.version(of: "libgtk-4-1", isAtLeast: [4, 14]) }
            #expect(announcements.heard().filter { $0 == "Tea is ringing" }.count <= 1, "said once: \(announcements.heard())")
            _ = try session.cli("stop", tea.id)

            try tree.press("push button", "Edit Swim")
            _ = try eventually("the dialog") { try session.windows(titled: "Edit Alarm").first }
            try tree.press("push button", "Delete Alarm")
            _ = try eventually("the toast") { try tree.names("label").contains("Deleted “Swim”") ? true : nil }
            try withKnownIssue("libadwaita 1.2 (Debian 12) does not announce its toasts") {
                _ = try eventually(timeout: 10, "the toast announced") {
                    announcements.heard().contains { $0.contains("Deleted “Swim”") } ? true : nil
                }
            } when: { !DesktopRelease.version(of: "libadwaita-1-0", isAtLeast: [1, 6]) }
        }
    }

    @Test func aSnoozedAlarmShowsItsSnoozeAndDeleteWithUndoAndItsSwitchWorkOnIt() throws {
        // Rung and snoozed: set three minutes ahead, the agent's clock moved to just before it
        // (as in anAlarmAddedInTheDialogRingsAtItsTime), then `reveille snooze`.
        let session = try TestSession(notifications: .recording())
        try session.startDisplay()
        try AccessibleTree.prepare(session)
        let offsetFile = session.directory + "/clock-offset"
        try "0".write(toFile: offsetFile, atomically: true, encoding: .utf8)
        try session.startAgent(["--test-clock-offset-file", offsetFile])
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")! // the session's TZ
        let due = utc.date(bySetting: .second, value: 0, of: Date().addingTimeInterval(180))!
        let time = String(format: "%02d:%02d", utc.component(.hour, from: due), utc.component(.minute, from: due))
        let added = try session.cliJSON(AlarmJSON.self, "add", time, "--title", "Wake up")
        try String(Int(due.timeIntervalSinceNow.rounded(.down)) - 2).write(toFile: offsetFile, atomically: true, encoding: .utf8)
        kill(try #require(try session.ownerPID(of: AgentInterface.busName)), SIGUSR1)
        _ = try eventually(timeout: 10, "the alarm ringing") { try session.agentState(of: added.id) == "alerting" ? true : nil }
        #expect(try session.cli("snooze", String(added.id.prefix(8)), "9m").status == 0)
        let snoozed = try #require(try session.cliJSON([Listed].self, "list").first)
        #expect(snoozed.state == "countdown", "\(snoozed)")
        // The list's instants are local (the session's TZ is UTC): its hour and minute.
        let until = String(try #require(snoozed.fireDate).dropFirst(11).prefix(5))
        try withApp(session) { _, tree, _ in
            _ = try eventually("the alarm in the window") { try labels(tree).contains("Wake up") ? true : nil }
            let shown = try eventually("its row to say until when it is snoozed") {
                try labels(tree).first { $0.contains("Snoozed until \(until)") }
            }
            #expect(shown == "Once · Snoozed until \(until)")

            // Deleted, then Undo: back exactly as it was, snooze and all.
            try tree.press("push button", "Edit Wake up")
            _ = try eventually("the dialog") { try session.windows(titled: "Edit Alarm").first }
            try tree.press("push button", "Delete Alarm")
            _ = try eventually("Delete to remove the alarm") { try session.cliJSON([Listed].self, "list").isEmpty ? true : nil }
            try tree.press("push button", "Undo")
            let back = try eventually("Undo to bring the alarm back") { try session.cliJSON([Listed].self, "list").first }
            #expect(back.id == snoozed.id && back.state == "countdown" && back.fireDate == snoozed.fireDate, "as it was: \(back), before \(snoozed)")
            _ = try eventually("the row snoozed again") { try labels(tree).contains("Once · Snoozed until \(until)") ? true : nil }

            // Its switch turns it off: the snooze ends, nothing is refused.
            try tree.press("check box", "Wake up")
            let off = try eventually("the switch to turn the snoozed alarm off") {
                try session.cliJSON([Listed].self, "list").first { $0.state == "scheduled" }
            }
            #expect(off.id == snoozed.id, "\(off)")
            _ = try eventually("the row to say it is off") { try labels(tree).contains("Once · Off") ? true : nil }
            let words = try tree.names("label")
            #expect(!words.contains { $0.contains("counting down") || $0.contains(String(added.id.prefix(8))) }, "no agent's words: \(words)")
        }
    }

    @Test func theWindowFollowsTheDesktopsDarkStyle() throws {
        let session = try session()
        /// The page's background, left of the lists (the window is at the screen's top left:
        /// Xvfb has no window manager to place it).
        func background() throws -> [UInt8] {
            _ = try session.eventually(timeout: 10, "the window on screen") { try session.windows(titled: "Reveille").first }
            return try session.pixel(x: 8, y: 400)
        }
        try withApp(session) { _, _, _ in
            _ = try eventually("a light window") { try background().allSatisfy { $0 > 180 } ? true : nil }
        }
        _ = try eventually("the first window to go") { try session.windows(titled: "Reveille").isEmpty ? true : nil }
        // The desktop's choice as libadwaita reads it: the settings portal (GNOME's Appearance
        // sets it through GSettings, which xdg-desktop-portal-gnome serves). libadwaita 1.2 also
        // read GSettings where no portal ran; later releases (1.7 on Debian 13) read only the
        // portal (GSettings only with ADW_DISABLE_PORTAL), so the portal is what both are given.
        try session.addSettingsPortal(colorScheme: 1)
        try withApp(session) { _, _, _ in
            _ = try eventually("a dark window") {
                let colour = try background()
                return colour.allSatisfy { $0 < 80 } ? colour : nil
            }
        }
    }

    @Test func emptyListsSayWhatGoesThereAddAlarmIsOnTheAlarmsPageAndMaximizedTheListsKeepAReadableWidth() throws {
        let session = try session()
        try withApp(session) { _, tree, _ in
            let window = try session.eventually(timeout: 10, "the window on screen") { try session.windows(titled: "Reveille").first }
            _ = try eventually("the empty alarms' status page") { try labels(tree).contains("No Alarms") ? true : nil }
            #expect(try tree.names("push button").contains("Add Alarm"))
            try openPage(tree, "History")
            _ = try eventually("the empty history's status page") {
                try tree.nodes(inside: "panel", "History").contains { $0.role == "label" && $0.name == "Nothing Rang Yet" } ? true : nil
            }
            _ = try eventually("Add Alarm to leave the header on History") { try tree.names("push button").contains("Add Alarm") ? nil : true }
            _ = try openSettings(session, tree)
            #expect(try !tree.names("push button").contains("Add Alarm"), "nor on Settings")
            try openPage(tree, "Alarms")
            _ = try eventually("Add Alarm back on Alarms") { try tree.names("push button").contains("Add Alarm") ? true : nil }

            // Wide (a maximized window's width), the rows stay at a readable width, centred.
            _ = try session.cliJSON(AlarmJSON.self, "add", "07:30", "--title", "Wake up")
            _ = try eventually("the alarm in the window") { try labels(tree).contains("Wake up") ? true : nil }
            let xdotool = try Subprocess.find("xdotool", package: "xdotool")
            #expect(try Subprocess.run(xdotool, ["windowsize", window, "1000", "700"], environment: session.environment).status == 0)
            let list = try eventually("the window 1000 px wide") { () -> AccessibleTree.Node? in
                let nodes = try tree.nodes(withExtents: true)
                guard let frame = nodes.first(where: { $0.role == "frame" && $0.name == "Reveille" })?.area, frame.width >= 990 else { return nil }
                return nodes.first { $0.role == "list" && $0.name == "Alarms" }
            }
            let width = try #require(list.area?.width)
            #expect(width <= 640 && width >= 400, "the alarms' list is \(width) px wide in a 1000 px window")
        }
    }

    /// Resizes `window` with xdotool and waits until AT-SPI sees the frame `width` px wide (less
    /// the 10 px GTK draws no window in on X11 without a window manager); gives the tree with
    /// extents. A window narrower than its content allows stays wider: the wait times out.
    func resize(_ session: TestSession, _ tree: AccessibleTree, _ window: String, width: Int, height: Int) throws -> [AccessibleTree.Node] {
        let xdotool = try Subprocess.find("xdotool", package: "xdotool")
        #expect(try Subprocess.run(xdotool, ["windowsize", window, String(width), String(height)], environment: session.environment).status == 0)
        return try eventually("the window \(width) px wide") { () -> [AccessibleTree.Node]? in
            let nodes = try tree.nodes(withExtents: true)
            guard let frame = nodes.first(where: { $0.role == "frame" && $0.name == "Reveille" })?.area, frame.width <= width, frame.width >= width - 12 else { return nil }
            return nodes
        }
    }

    /// Saves a picture of `area` as NAME.png, in REVEILLE_TEST_PICTURES (a folder to look at them
    /// in) when it is set, else in the session's folder (removed with it).
    func picture(_ session: TestSession, _ area: TestSession.Window, _ name: String) throws {
        let folder = ProcessInfo.processInfo.environment["REVEILLE_TEST_PICTURES"] ?? session.directory
        try session.savePicture(of: area, to: folder + "/" + name + ".png")
    }

    /// Where the main window is, as AT-SPI says.
    func frame(_ nodes: [AccessibleTree.Node], _ name: String = "Reveille") throws -> TestSession.Window {
        try #require(nodes.first { $0.role == "frame" && $0.name == name }?.area)
    }

    @Test func at360PixelsTheSwitcherMovesToABarAndEveryRowsButtonsFit() throws {
        let session = try session()
        _ = try session.cliJSON(AlarmJSON.self, "add", "06:30", "--title", "Wake up for the early train", "--days", "weekdays")
        _ = try session.cliJSON(AlarmJSON.self, "timer", "30m", "--title", "Tea")
        try withApp(session) { _, tree, _ in
            let window = try session.eventually(timeout: 10, "the window on screen") { try session.windows(titled: "Reveille").first }
            _ = try eventually("the rows") { try tree.names("push button").contains("Pause Tea") ? true : nil }
            /// The page switchers' History tabs; those in the lower half of the window (the bar's).
            func switchers(_ nodes: [AccessibleTree.Node]) -> [AccessibleTree.Node] { nodes.filter { $0.role == "page tab" && $0.name == "History" } }
            func switchersBelow(_ nodes: [AccessibleTree.Node]) throws -> [AccessibleTree.Node] {
                let window = try self.frame(nodes)
                return switchers(nodes).filter { $0.area.map { $0.y > window.y + window.height / 2 } == true }
            }
            // GTK 4.18 tells AT-SPI each object's size but not where it is (x and y are 0):
            // positions are checked where the toolkit gives them.
            func placed(_ nodes: [AccessibleTree.Node]) -> Bool { nodes.contains { ($0.area?.y ?? 0) > 0 } }
            let wide = try resize(session, tree, window, width: 700, height: 600)
            if placed(wide) { #expect(try switchersBelow(wide).isEmpty, "wide, the switcher is in the header") }
            let narrow = try resize(session, tree, window, width: 360, height: 600)
            try picture(session, self.frame(narrow), "narrow")
            // Narrow, a switcher is there (the header's hides, the bar's shows: where GTK gives
            // positions, the bar's is checked to be at the bottom).
            #expect(!switchers(narrow).isEmpty, "narrow, a page switcher: \(switchers(narrow)), wide \(switchers(wide))")
            if placed(narrow) { #expect(try !switchersBelow(narrow).isEmpty, "narrow, the switcher bar at the bottom shows") }
            let frame = try #require(narrow.first { $0.role == "frame" && $0.name == "Reveille" }?.area)
            for list in ["Alarms", "Timers"] {
                let start = try #require(narrow.firstIndex { $0.role == "list" && $0.name == list })
                let controls = narrow[(start + 1)...].prefix { $0.depth > narrow[start].depth }.filter { ["push button", "check box"].contains($0.role) }
                #expect(!controls.isEmpty, "\(list)'s controls")
                for control in controls {
                    let area = try #require(control.area, "\(control) on screen")
                    #expect(area.x >= frame.x && area.x + area.width <= frame.x + frame.width && area.width > 0, "\(control) at \(area) within the window \(frame)")
                }
            }
        }
    }

    @Test func at2xTheDialogFitsTheScreenAndItsLastFieldScrollsIntoView() throws {
        let session = try session()
        var environment = session.environment
        environment["GDK_SCALE"] = "2"
        try withApp(session, environment: environment) { _, tree, _ in
            let dialog = try openNewAlarmDialog(session, tree)
            let xdotool = try Subprocess.find("xdotool", package: "xdotool")
            let screen = try Subprocess.run(xdotool, ["getdisplaygeometry"], environment: session.environment).stdout
                .split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            // Alt+R to the field before the last, then Tab, as a person at the keyboard goes, to
            // the last field, Wake the computer (a switch: a check box to AT-SPI); the dialog
            // scrolls it into view.
            try session.type("alt+r", into: dialog)
            let (wake, area) = try session.eventually(timeout: 120, "Tab to reach the last field, scrolled into view") { () -> (TestSession.Window, TestSession.Window)? in
                let nodes = try tree.nodes(withExtents: true)
                guard let wake = nodes.first(where: { $0.role == "check box" && $0.name == "Wake the computer" }),
                      let area = nodes.first(where: { ["frame", "dialog"].contains($0.role) && $0.name == "New Alarm" })?.area else { return nil }
                guard wake.focused else {
                    try session.type("Tab", into: dialog)
                    return nil
                }
                return wake.area.map { ($0, area) }
            }
            #expect(wake.y >= area.y && wake.y + wake.height <= area.y + area.height, "the switch \(wake) within the dialog \(area)")
            try picture(session, TestSession.Window(id: area.id, x: 2 * area.x, y: 2 * area.y, width: 2 * area.width, height: 2 * area.height), "dialog-2x")
            // AT-SPI says GTK's pixels, the screen's are twice as many.
            #expect(2 * (area.x + area.width) <= screen[0] && 2 * (area.y + area.height) <= screen[1], "the dialog \(area) within the screen \(screen)")
        }
    }

    @Test func thePrimaryMenuOpensKeyboardShortcutsAndAbout() throws {
        let session = try session()
        try withApp(session) { _, tree, _ in
            let window = try session.eventually(timeout: 10, "the window on screen") { try session.windows(titled: "Reveille").first }
            #expect(try tree.names("push button").contains("Main Menu"))
            /// F10 opens the primary menu (GTK 4.8 gives the menu button itself no action to
            /// press), then its item `index` is chosen: GTK 4.8 names the items, which are pressed
            /// by name; GTK 4.18 names them nothing (seen on Debian 13: a screen reader hears
            /// unnamed items, GTK's), and focuses the first: there the keys choose, as a person
            /// at the keyboard does.
            func choose(_ index: Int, _ name: String) throws {
                let items = try eventually("F10 to open the menu") { () -> [AccessibleTree.Node]? in
                    try session.type("F10", into: window)
                    let items = try tree.nodes().filter { $0.role == "menu item" }
                    return items.count == 2 && (items.allSatisfy { !$0.name.isEmpty } || items.first?.focused == true) ? items : nil
                }
                if items.allSatisfy({ !$0.name.isEmpty }) {
                    #expect(items.map(\.name) == ["Keyboard Shortcuts", "About Reveille"])
                    try tree.press("menu item", name)
                } else {
                    for key in Array(repeating: "Down", count: index) + ["Return"] { try session.type(key, into: window) }
                }
            }
            try choose(0, "Keyboard Shortcuts")
            // GTK 4.8 shows the shortcuts window to AT-SPI as a frame named Keyboard Shortcuts,
            // GTK 4.18 as an unnamed panel (seen on Debian 13): found by its X window's title.
            let shortcuts = try eventually("the keyboard shortcuts, Add Alarm's among them") {
                try tree.nodes().contains { $0.role == "label" && $0.name == "Add an alarm" }
                    ? try session.windows(titled: "Keyboard Shortcuts").first : nil
            }
            try session.type("Escape", into: shortcuts)
            _ = try eventually("Escape to close them") { try session.windows(titled: "Keyboard Shortcuts").isEmpty ? true : nil }
            try choose(1, "About Reveille")
            _ = try eventually("the About window, with Reveille's version") {
                try tree.nodes().contains { $0.role == "label" && $0.name == ReveilleVersion.current } ? true : nil
            }
        }
    }

    @Test func eachButtonIsNamedWithWhatItActsOnAndEachRowWithItsTitle() throws {
        let session = try session()
        _ = try session.cliJSON(AlarmJSON.self, "add", "06:30", "--title", "Wake up", "--days", "weekdays")
        _ = try session.cliJSON(AlarmJSON.self, "timer", "12m", "--title", "Pasta")
        try withApp(session) { _, tree, _ in
            let alarms = try eventually("the alarm's row") {
                let rows = try tree.nodes(inside: "list", "Alarms")
                return rows.contains { $0.role == "list item" && $0.name == "Wake up" } ? rows : nil
            }
            let names = alarms.filter { $0.role == "push button" }.map(\.name)
            #expect(names == ["Skip the next ring of Wake up", "Edit Wake up"], "\(names)")
            let timers = try eventually("the timer's row") {
                let rows = try tree.nodes(inside: "list", "Timers")
                return rows.contains { $0.role == "list item" && $0.name == "Pasta" } ? rows : nil
            }
            #expect(timers.filter { $0.role == "push button" }.map(\.name) == ["Pause Pasta", "Cancel Pasta"], "\(timers)")
            try tree.press("push button", "Pause Pasta")
            _ = try eventually("Pause Pasta to pause it, and its button to say Resume Pasta") {
                try tree.names("push button").contains("Resume Pasta") ? true : nil
            }
            #expect(try session.cliJSON([Listed].self, "list").first { $0.title == "Pasta" }?.state == "paused")
        }
    }

    /// The focused object of the app's windows, as a screen reader follows it.
    func focused(_ tree: AccessibleTree) throws -> AccessibleTree.Node? { try tree.nodes().first(where: \.focused) }

    @Test func theFocusStaysOnItsRowWhenTheListChanges() throws {
        let session = try session()
        _ = try session.cliJSON(AlarmJSON.self, "add", "06:30", "--title", "Wake up", "--days", "weekdays")
        _ = try session.cliJSON(AlarmJSON.self, "timer", "30m", "--title", "Tea")
        try withApp(session) { _, tree, _ in
            let window = try session.eventually(timeout: 10, "the window on screen") { try session.windows(titled: "Reveille").first }
            _ = try eventually("the timer's row") { try tree.names("push button").contains("Pause Tea") ? true : nil }
            // Tab to the timer's Pause button, as a person at the keyboard goes there (from the
            // timer's length, Alt+L, the field above the timers).
            try session.type("alt+l", into: window)
            _ = try session.eventually(timeout: 60, "Tab to reach Pause Tea") {
                if try focused(tree)?.name == "Pause Tea" { return true }
                try session.type("Tab", into: window)
                return nil
            }
            // A timer added from a terminal, shown before Tea (it ends sooner), and an alarm.
            _ = try session.cliJSON(AlarmJSON.self, "timer", "5m", "--title", "Eggs")
            _ = try session.cliJSON(AlarmJSON.self, "add", "05:00", "--title", "Early")
            _ = try eventually("the new timer and alarm in the window") {
                let shown = try labels(tree)
                return shown.contains("Eggs") && shown.contains("Early") ? true : nil
            }
            let after = try focused(tree)
            #expect(after?.role == "push button" && after?.name == "Pause Tea", "the focus stays on Tea's Pause: \(String(describing: after))")
            // Pause (Space): the row changes, and the focus stays at its place, now Resume.
            try session.type("space", into: window)
            _ = try eventually("Tea paused") { try session.cliJSON([Listed].self, "list").first { $0.title == "Tea" && $0.state == "paused" } }
            let paused = try eventually("Tea's row to offer Resume, focused") { () -> AccessibleTree.Node? in
                guard try tree.names("push button").contains("Resume Tea") else { return nil }
                return try focused(tree)
            }
            #expect(paused.role == "push button" && paused.name == "Resume Tea", "the focus stays in Tea's row: \(paused)")
        }
    }

    @Test func theAgentsAbsenceIsSaidInWordsAndTheWindowFollowsItWhenItReturns() throws {
        // No agent runs, and the session's bus cannot start one.
        let session = try TestSession(notifications: .recording())
        try session.startDisplay()
        try AccessibleTree.prepare(session)
        let absent = "The alarm service is not running: alarms do not ring until it starts again."
        try withApp(session) { _, tree, _ in
            _ = try eventually("the absence said") { try tree.names("label").contains(absent) ? true : nil }
            let words = try tree.names("label")
            #expect(!words.contains { $0.contains("io.github") || $0.contains(".service") || $0.contains("reveille-agent") || $0.contains("(reveille ") },
                    "no bus names, no command-line hints: \(words)")
            // Started: the window follows it by itself.
            try session.startAgent()
            _ = try session.cliJSON(AlarmJSON.self, "add", "07:30", "--title", "Back")
            _ = try eventually("the window to follow the agent once it runs") {
                try labels(tree).contains("Back") && !tree.names("label").contains(absent) ? true : nil
            }
            // Gone while the window shows its alarms: said; started again: followed again.
            try session.killAgent()
            _ = try eventually("the agent's end said") { try tree.names("label").contains(absent) ? true : nil }
            try session.startAgent()
            _ = try session.cliJSON(AlarmJSON.self, "add", "08:00", "--title", "Again")
            _ = try eventually("the window to follow the new agent") {
                try labels(tree).contains("Again") && !tree.names("label").contains(absent) ? true : nil
            }
        }
    }

    @Test func skipNextAndUnskip() throws {
        let session = try session()
        let alarm = try session.cliJSON(AlarmJSON.self, "add", "07:30", "--title", "Daily", "--days", "daily")
        try withApp(session) { _, tree, _ in
            _ = try eventually("the alarm in the window") { try labels(tree).contains("Daily") ? true : nil }
            try tree.press("push button", "Skip the next ring of Daily")
            let skipped = try eventually("the agent to skip its next ring") {
                try session.cliJSON([Listed].self, "list").first { $0.id == alarm.id && $0.skipped != nil }
            }
            #expect(skipped.fireDate != alarm.fireDate, "the next ring is the one after: \(skipped)")
            _ = try eventually("the row to say so") { try labels(tree).contains { $0.hasPrefix("Every day · Skips ") } ? true : nil }
            try tree.press("push button", "Unskip Daily")
            let back = try eventually("the agent to ring it after all") {
                try session.cliJSON([Listed].self, "list").first { $0.id == alarm.id && $0.skipped == nil }
            }
            #expect(back.fireDate == alarm.fireDate)
            _ = try eventually("the row to offer Skip Next again") { try tree.names("push button").contains("Skip the next ring of Daily") ? true : nil }
        }
    }

    @Test func stopOnWhatRingsSilencesIt() throws {
        let session = try session()
        let recorder = try SinkRecorder(session: session)
        try withApp(session) { _, tree, _ in
            _ = try session.eventually(timeout: 10, "the window on screen") { try session.windows(titled: "Reveille").first }
            _ = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Bread")
            _ = try eventually("the ringing alarm at the top") { try labels(tree).contains("Timer done") ? true : nil }
            _ = try eventually("the alarm's sound") { recorder.firstAudible(after: Date(timeIntervalSinceNow: -10)) }
            try tree.press("push button", "Stop Bread")
            _ = try eventually("Stop to end the timer") { try session.cliJSON([Listed].self, "list").isEmpty ? true : nil }
            let stopped = Date()
            _ = try eventually("the sound to stop") {
                recorder.chunks.last.map { $0.time > stopped.addingTimeInterval(0.5) } == true
                    && !recorder.heard(from: stopped.addingTimeInterval(0.3), to: Date()) ? true : nil
            }
            _ = try eventually("the banner to go") { try labels(tree).contains("Timer done") ? nil : true }
            // The History page says what rang and how it ended.
            try openPage(tree, "History")
            let history = try eventually("the stopped timer in the history") {
                let shown = try tree.nodes(inside: "panel", "History").filter { $0.role == "label" }.map(\.name)
                return shown.contains("Bread") ? shown : nil
            }
            // How long it rang is the test's own pace (15 s once, under CI's load): its form is what is checked.
            #expect(history.contains { $0.hasPrefix("Due ") && $0.contains(#/ · rang \d+:\d\d · /#) && $0.hasSuffix(" · stopped") }, "\(history)")
        }
    }

    @Test func theWindowSpeaksTheUsersLanguage() throws {
        let session = try session()
        _ = try session.cliJSON(AlarmJSON.self, "add", "07:30", "--title", "Aufstehen", "--days", "weekdays")
        let german = try TranslationTests().environment(session, "de_DE.UTF-8")
        try withApp(session, environment: german) { _, tree, _ in
            _ = try eventually("the alarm in the window") { try labels(tree, page: "Wecker").contains("Aufstehen") ? true : nil }
            let shown = try tree.nodes()
            // Both the UI files' words (GtkBuilder's translation domain) and the code's.
            #expect(shown.contains { $0.role == "label" && $0.name == "Wecker" }, "\(shown)")
            #expect(shown.contains { $0.role == "push button" && $0.name == "Wecker stellen" }, "\(shown)")
            #expect(shown.contains { $0.role == "label" && $0.name.hasPrefix("Werktags · Klingelt in ") }, "\(shown)")
            #expect(shown.contains { $0.role == "push button" && $0.name == "5 Min." }, "\(shown)")
            // The Settings page, its controls named in German, the ring-on choices the code's words.
            try openPage(tree, "Einstellungen")
            let settings = try eventually("the agent's settings on the page") {
                let page = try tree.nodes(inside: "panel", "Einstellungen")
                return page.contains { $0.role == "check box" && $0.name == "Symbol in der Leiste" && $0.sensitive } ? page : nil
            }
            #expect(settings.contains { $0.role == "text" && $0.name == "Weckvorlauf" && $0.text == "1m" }, "\(settings)")
            #expect(settings.contains { $0.role == "push button" && $0.name == "Immer" }, "\(settings)")
            #expect(settings.contains { $0.name == "Das Standard-Ausgabegerät" && $0.selected }, "\(settings)")
        }
    }

    @Test func appsAlarmsShowApartReadOnlyAndStopRunsAStopIntent() throws {
        let session = try session()
        #expect(try session.cli("auth", "allow", "org.test.Kitchen").status == 0)
        let scheduled = try Subprocess.run(session.binaries + "/reveille-test-app",
                                           ["org.test.Kitchen", "Timers", "timer", "3600", #"{"dish": "Oven", "minutes": 60}"#], environment: session.environment)
        #expect(scheduled.status == 0, "\(scheduled.stderr)")
        try withApp(session) { _, tree, _ in
            let apps = try eventually("the app's timer on its own list") {
                let shown = try tree.nodes(inside: "list", "Apps' alarms")
                return shown.contains { $0.role == "label" && $0.name.hasPrefix("Oven · ") } ? shown : nil
            }
            #expect(!apps.contains { $0.role == "push button" }, "no Edit, no Skip on an app's alarm: \(apps)")
            #expect(try tree.nodes(inside: "list", "Timers").isEmpty, "not among the person's timers")
            let countdown = try #require(apps.first { $0.role == "label" && $0.name.wholeMatch(of: /\d+(:\d\d)+/) != nil }?.name)
            _ = try eventually("its countdown to go down") {
                try tree.nodes(inside: "list", "Apps' alarms").contains { $0.role == "label" && $0.name.wholeMatch(of: /\d+(:\d\d)+/) != nil && $0.name != countdown } ? true : nil
            }

            // What rings shows at the top; Stop there is the alarm's Stop button (PressButton),
            // so the app's stop intent runs, as from the notification.
            let ran = try session.scheduleTimerWithStopIntent("Pizza", in: 1)
            _ = try eventually("the ringing timer at the top") {
                let shown = try labels(tree)
                return shown.contains("Pizza") && shown.contains("Timer done") ? true : nil
            }
            try tree.press("push button", "Stop Pizza")
            _ = try session.eventually(timeout: 10, "the app's stop intent to run") { FileManager.default.fileExists(atPath: ran) ? true : nil }
        }
    }

    // MARK: Settings

    /// The agent's settings as `reveille settings --json` shows them.
    struct Settings: Decodable, Equatable {
        var unmuteMutedSink: Bool
        var wakeFromSuspend: Bool
        var wakeLead: Double
        var panelItem: Bool
        var alertWindow: String
        var ringOn: String
        var pauseMediaPlayers: Bool
        var repeatUnanswered: String?
        var upcomingNotice: String?
    }

    /// A second sound output besides the session's default (`testsink`), as a person reads it.
    func addHeadphones(_ session: TestSession) throws {
        let loaded = try session.pactl("load-module", "module-null-sink", "sink_name=othersink", "sink_properties=device.description=Headphones")
        #expect(loaded.status == 0, "\(loaded.stderr)")
    }

    /// Opens the Settings page and waits for it shown with the agent's settings (its controls
    /// are insensitive until the agent has answered); returns the page's objects. The tab is
    /// pressed until it is the one pressed: AT-SPI lists a hidden page's objects too, and
    /// GTK 4.8 says of none whether it shows.
    func openSettings(_ session: TestSession, _ tree: AccessibleTree) throws -> [AccessibleTree.Node] {
        _ = try session.eventually(timeout: 10, "the window on screen") { try session.windows(titled: "Reveille").first }
        return try eventually("the Settings page shown with the agent's settings") {
            try openPage(tree, "Settings")
            let shown = try tree.nodes().contains { $0.role == "page tab" && $0.name == "Settings" && $0.checked }
            let page = try tree.nodes(inside: "panel", "Settings")
            return shown && page.contains { $0.role == "check box" && $0.name == "Panel item" && $0.sensitive } ? page : nil
        }
    }

    /// Alt+L, the wake lead's mnemonic, until the field has the focus: keys typed just as the
    /// window first takes the keyboard can go unheard (Xvfb without a window manager).
    func focusWakeLead(_ session: TestSession, _ tree: AccessibleTree, _ window: String) throws {
        _ = try eventually("Alt+L to reach the wake lead") {
            try session.type("alt+l", into: window)
            return try control(tree.nodes(inside: "panel", "Settings"), "text", "Wake lead").focused ? true : nil
        }
    }

    /// The object on the Settings page with `role` and `name`.
    func control(_ page: [AccessibleTree.Node], _ role: String, _ name: String) throws -> AccessibleTree.Node {
        try #require(page.first { $0.role == role && $0.name == name }, "no \(role) \(name) among \(page)")
    }

    @Test func theSettingsPageShowsWhatSettingsJSONHolds() throws {
        let session = try session(settings: """
            {"alertWindow": "never", "panelItem": false, "ringOn": "othersink", "wakeFromSuspend": true,
             "wakeLead": 90, "pauseMediaPlayers": false, "unmuteMutedSink": false,
             "repeatUnanswered": "3x10m", "upcomingNotice": "off", "upcomingLead": 3600,
             "sound": "chime", "snooze": 900, "ringLimit": 300}
            """)
        try addHeadphones(session)
        try withApp(session) { _, tree, _ in
            let page = try openSettings(session, tree)
            #expect(try page.filter { $0.role == "push button" && $0.checked }.map(\.name) == ["Never", "3 × 10 min", "Off", "1 hour", "15 min", "5 min"])
            let sounds = try eventually("the agent's sounds in the new alarms' list") { () -> [AccessibleTree.Node]? in
                let rows = try tree.nodes(inside: "list", "New alarms' sound").filter { $0.role == "list item" }
                return rows.count > 5 ? rows : nil
            }
            #expect(sounds.first?.name == "Reveille’s alarm" && sounds.filter(\.selected).map(\.name) == ["Chime"], "\(sounds)")
            #expect(try control(page, "check box", "Panel item").checked == false)
            #expect(try control(page, "check box", "Wake from suspend").checked == true)
            #expect(try control(page, "check box", "Pause media players").checked == false)
            #expect(try control(page, "check box", "Unmute a muted output").checked == false)
            #expect(try control(page, "text", "Wake lead").text == "90s")
            // Where alarms ring: the choices by the outputs' descriptions, the file's chosen.
            let outputs = try tree.nodes(inside: "list", "Ring on").filter { $0.role == "list item" }
            #expect(outputs.count == 4 && outputs.prefix(2).map(\.name) == ["The default output", "Every output"], "\(outputs)")
            #expect(outputs.filter(\.selected).map(\.name) == ["Headphones"], "\(outputs)")
            // Every control is named for a screen reader.
            #expect(!page.contains { ["check box", "push button", "text", "list"].contains($0.role) && $0.name.isEmpty }, "\(page)")
        }
    }

    @Test func aChangeAnotherToolMakesShowsOnTheOpenSettingsPage() throws {
        let session = try session()
        try withApp(session) { _, tree, _ in
            let page = try openSettings(session, tree)
            #expect(try control(page, "check box", "Panel item").checked == true)
            try session.cli("settings", "panelItem=off", "wakeLead=2m")
            _ = try eventually("the page to show the change made with the CLI") {
                let page = try tree.nodes(inside: "panel", "Settings")
                return try !control(page, "check box", "Panel item").checked && control(page, "text", "Wake lead").text == "2m" ? true : nil
            }
        }
    }

    @Test func changesOnTheSettingsPageReachTheAgentAndItsFile() throws {
        let session = try session()
        try addHeadphones(session)
        let file = settingsFile(session)
        try withApp(session) { _, tree, _ in
            _ = try openSettings(session, tree)
            try tree.press("check box", "Panel item")
            _ = try eventually("the panel item off in the agent") { try session.cliJSON(Settings.self, "settings").panelItem ? nil : true }
            try tree.press("push button", "Always")
            let changed = try eventually("the alert window always in the agent") {
                let settings = try session.cliJSON(Settings.self, "settings")
                return settings.alertWindow == "always" ? settings : nil
            }
            #expect(!changed.panelItem && changed.ringOn == "default" && changed.wakeLead == 60, "the rest as it was: \(changed)")
            // Written by the agent, which the app asked.
            let written = try JSONDecoder().decode(Settings.self, from: Data(contentsOf: URL(fileURLWithPath: file)))
            #expect(written == changed)
            // The page shows the agent's answer.
            _ = try eventually("the page to show the answer") {
                let page = try tree.nodes(inside: "panel", "Settings")
                let panelItem = try control(page, "check box", "Panel item")
                return page.filter { $0.role == "push button" && $0.checked }.map(\.name) == ["Always", "Once", "Wake-up", "30 min", "9 min", "10 min"]
                    && !panelItem.checked ? true : nil
            }
            // The choices of issue 52: unanswered alarms ring again, the notice for all alarms.
            try tree.press("push button", "3 × 5 min")
            try tree.press("push button", "All")
            _ = try eventually("the repeat and the notice in the agent") {
                let settings = try session.cliJSON(Settings.self, "settings")
                return settings.repeatUnanswered == "3x5m" && settings.upcomingNotice == "all" ? true : nil
            }
            try choose("Headphones", in: "Ring on", mnemonic: "alt+r", session, tree, window: try #require(try session.windows(titled: "Reveille").first))
            _ = try eventually("ringOn the headphones' output in the agent") { try session.cliJSON(Settings.self, "settings").ringOn == "othersink" ? true : nil }

            // The keyboard: Alt+L goes to the wake lead, Enter sets it.
            let window = try #require(try session.windows(titled: "Reveille").first)
            try focusWakeLead(session, tree, window)
            for key in ["ctrl+a", "2", "m", "Return"] { try session.type(key, into: window) }
            _ = try eventually("a wake lead of 2 min in the agent") { try session.cliJSON(Settings.self, "settings").wakeLead == 120 ? true : nil }
        }
    }

    /// Issue 50, fault 10: the defaults for new alarms chosen on the Settings page (snooze, ring
    /// length, sound) are what the dialog shows for a new alarm and what the alarm gets when
    /// saved as shown; an alarm set before keeps what it had.
    @Test func theDefaultsChosenOnTheSettingsPageAreWhatANewAlarmGets() throws {
        let session = try session()
        let before = try session.cliJSON(AlarmJSON.self, "add", "6:00", "--title", "Before")
        try withApp(session) { _, tree, _ in
            _ = try openSettings(session, tree)
            // "15 min" and "30 min" are also timer presets and the upcoming notice's lead.
            try press("15 min", after: "New alarms' snooze", tree)
            try press("30 min", after: "New alarms ring for", tree)
            _ = try eventually("the agent's sounds in the new alarms' list") {
                try tree.nodes(inside: "list", "New alarms' sound").contains { $0.role == "list item" && $0.name == "Chime" } ? true : nil
            }
            try choose("Chime", in: "New alarms' sound", mnemonic: "alt+d", session, tree, window: try #require(try session.windows(titled: "Reveille").first))
            _ = try eventually("the new alarms' defaults in the agent") {
                let shown = try JSONSerialization.jsonObject(with: Data(session.cli("settings", "--json").stdout.utf8)) as? [String: Any]
                return shown?["snooze"] as? Double == 900 && shown?["ringLimit"] as? Double == 1800
                    && shown?["sound"] as? String == "chime" ? true : nil
            }
            try openPage(tree, "Alarms")
            try addAlarm(session, tree, hour: "8", minute: "15", title: "Gym")
            let fields = try eventually("the dialog's fields") { () -> [AccessibleTree.Node]? in
                let nodes = try tree.nodes()
                return nodes.contains { $0.role == "text" && $0.name == "Snooze" } ? nodes : nil
            }
            #expect(try control(fields, "text", "Snooze").text == "15m" && control(fields, "text", "Ring for").text == "30m")
            _ = try eventually("the dialog's sound list to show Chime chosen") {
                try tree.nodes(inside: "list", "Sound").contains { $0.role == "list item" && $0.name == "Chime" && $0.selected } ? true : nil
            }
            try tree.press("push button", "Save")
            let made = try eventually("the alarm saved as shown") { () -> [String: Any]? in
                let list = try JSONSerialization.jsonObject(with: Data(session.cli("list", "--json").stdout.utf8)) as? [[String: Any]]
                return list?.first { ($0["title"] as? String) == "Gym" }
            }
            let shown = try session.cli("show", try #require(made["id"] as? String)).stdout
            #expect(shown.contains("snooze:    15m") && shown.contains("sound:     chime") && shown.contains("rings for: 30m"), "\(shown)")
        }
        let kept = try session.cli("show", before.id).stdout
        #expect(kept.contains("snooze:    9m") && kept.contains("rings for: 10m") && !kept.contains("chime"), "the alarm set before keeps its own: \(kept)")
    }

    /// Presses the first button `name` after the label `heading` (in the tree's order, as a screen
    /// reader goes), where other buttons elsewhere share its name. GTK 4.18 leaves the box around
    /// the buttons out of the tree, so the heading before them is what places them.
    func press(_ name: String, after heading: String, _ tree: AccessibleTree) throws {
        let all = try tree.nodes()
        let start = try #require(all.firstIndex { $0.role == "label" && $0.name == heading }, "no label \(heading)")
        let target = try #require(all[start...].firstIndex { $0.role == "push button" && $0.name == name }, "no \(name) after \(heading)")
        try tree.press("push button", name, index: all[..<target].filter { $0.role == "push button" && $0.name == name }.count)
    }

    @Test func theSettingsPageWorksFromTheKeyboard() throws {
        let session = try session()
        try withApp(session) { _, tree, _ in
            _ = try openSettings(session, tree)
            let window = try #require(try session.windows(titled: "Reveille").first)
            let settings = { try session.cliJSON(Settings.self, "settings") }
            // Leaving the wake lead (Tab) sets it.
            try focusWakeLead(session, tree, window)
            for key in ["ctrl+a", "4", "5", "s", "Tab"] { try session.type(key, into: window) }
            _ = try eventually("a wake lead of 45 s in the agent") { try settings().wakeLead == 45 ? true : nil }
            // Alt+W chooses Always, Alt+P flips the panel item.
            try session.type("alt+w", into: window)
            _ = try eventually("Alt+W to choose Always") { try settings().alertWindow == "always" ? true : nil }
            try session.type("alt+p", into: window)
            _ = try eventually("Alt+P to turn the panel item off") { try settings().panelItem ? nil : true }
            // Alt+R goes to where alarms ring, on the chosen one; Down goes to the next, Enter chooses it.
            for key in ["alt+r", "Down", "Return"] { try session.type(key, into: window) }
            let changed = try eventually("Down and Enter to choose every output") {
                let now = try settings()
                return now.ringOn == "all" ? now : nil
            }
            #expect(changed.alertWindow == "always" && !changed.panelItem && changed.wakeLead == 45, "\(changed)")
        }
    }

    /// Chooses `item` in the list `list` as a person at the keyboard does: `mnemonic` (the list
    /// label's Alt key) goes to the chosen row, the arrow keys to `item`, Enter chooses it.
    func choose(_ item: String, in list: String, mnemonic: String, _ session: TestSession, _ tree: AccessibleTree, window: String) throws {
        _ = try eventually("\(mnemonic) to reach the list \(list)") {
            try session.type(mnemonic, into: window)
            return try rows(tree, list).contains(where: \.focused) ? true : nil
        }
        let names = try rows(tree, list).map(\.name)
        guard let target = names.firstIndex(of: item) else { throw Subprocess.Failure("no \(item) in \(list): \(names)") }
        _ = try eventually("the arrow keys to reach \(item)") {
            let focused = try #require(try rows(tree, list).firstIndex(where: \.focused))
            if focused == target { return true }
            try session.type(focused < target ? "Down" : "Up", into: window)
            return nil
        }
        try session.type("Return", into: window)
    }

    /// The rows of the list named `name` (the Settings page's "Ring on", the dialog's "Sound").
    func rows(_ tree: AccessibleTree, _ name: String) throws -> [AccessibleTree.Node] {
        try tree.nodes(inside: "list", name).filter { $0.role == "list item" }
    }

    @Test func tabAndArrowsThroughRingOnOnlyMoveTheFocusEnterSpaceOrAClickChoose() throws {
            let session = try session()
            try addHeadphones(session)
            try withApp(session) { _, tree, _ in
                _ = try openSettings(session, tree)
                let window = try #require(try session.windows(titled: "Reveille").first)
                let settings = { try session.cliJSON(Settings.self, "settings") }
                // Alt+R goes to the chosen row; the keys then walk the list and out of it.
                _ = try eventually("Alt+R to reach the ring-on list") {
                    try session.type("alt+r", into: window)
                    return try rows(tree, "Ring on").contains(where: \.focused) ? true : nil
                }
                for key in ["Down", "Down", "Up", "Down", "Tab", "Tab", "Tab"] { try session.type(key, into: window) }
                // A change sent after the keys: the page sends its changes in order, so once the agent
                // has this one, it has had any the keys made.
                try tree.press("check box", "Panel item")
                let after = try eventually("the panel item off in the agent") {
                    let now = try settings()
                    return now.panelItem ? nil : now
                }
                #expect(after.ringOn == "default", "moving the focus chose nothing: \(after)")
                #expect(try rows(tree, "Ring on").filter(\.selected).map(\.name) == ["The default output"])
                // Enter on a row chooses it.
                _ = try eventually("Alt+R to reach the ring-on list again") {
                    try session.type("alt+r", into: window)
                    return try rows(tree, "Ring on").first(where: \.focused)?.name == "The default output" ? true : nil
                }
                for key in ["Down", "Return"] { try session.type(key, into: window) }
                _ = try eventually("Enter to choose every output") { try settings().ringOn == "all" ? true : nil }
                _ = try eventually("the row shown as chosen") {
                    try rows(tree, "Ring on").filter(\.selected).map(\.name) == ["Every output"] ? true : nil
                }
                // A click on a row chooses it.
                // GTK 4.8 tells AT-SPI where a row's label is, not the row. GTK 4.18 (Debian 13)
                // tells each object's size but x = y = 0 for all (seen in the whole tree): the
                // click would land on the header bar, so there the click is a known issue of
                // the test's way of finding the row, not of the app (the keys above choose).
                try withKnownIssue("GTK 4.18 gives AT-SPI no positions (x = y = 0): the test cannot find where to click") {
                    let first = try #require(try tree.nodes(withExtents: true).first { $0.role == "label" && $0.name == "The default output" && ($0.area?.y ?? 0) > 0 })
                    try session.click(first)
                    _ = try eventually("a click to choose the default output") { try settings().ringOn == "default" ? true : nil }
                } when: { DesktopRelease.version(of: "libgtk-4-1", isAtLeast: [4, 10]) }
            }
    }

    @Test func tabAndArrowsThroughTheSoundListOnlyMoveTheFocusSpaceChooses() throws {
        let session = try session()
        _ = try session.cliJSON(AlarmJSON.self, "add", "07:30", "--title", "Wake up", "--sound", "bell")
        try withApp(session) { _, tree, _ in
            _ = try eventually("the alarm in the window") { try labels(tree).contains("Wake up") ? true : nil }
            /// Opens the dialog and walks the sound list from its chosen row with `keys`.
            func walkSounds(_ keys: [String]) throws -> [String] {
                try tree.press("push button", "Edit Wake up")
                let dialog = try eventually("the dialog") { try session.windows(titled: "Edit Alarm").first }
                let names = try eventually("the agent's sounds, bell chosen") {
                    let shown = try rows(tree, "Sound")
                    return shown.count > 2 && shown.filter(\.selected).map(\.name) == ["Bell"] ? shown.map(\.name) : nil
                }
                _ = try eventually("Alt+O to reach the chosen sound") {
                    try session.type("alt+o", into: dialog)
                    return try rows(tree, "Sound").first(where: \.focused)?.name == "Bell" ? true : nil
                }
                for key in keys { try session.type(key, into: dialog) }
                return names
            }
            _ = try walkSounds(["Down", "Down", "Tab", "Tab", "Tab", "Up"])
            try tree.press("push button", "Save")
            _ = try eventually("the dialog to close") { try session.windows(titled: "Edit Alarm").isEmpty ? true : nil }
            let kept = try #require(try session.cliJSON([Listed].self, "list").first)
            #expect(kept.sound == "bell", "moving the focus chose no sound: \(kept)")
            // Space on a row chooses it.
            let names = try walkSounds(["Down", "space"])
            let next = names[try #require(names.firstIndex(of: "Bell")) + 1]
            _ = try eventually("Space to choose \(next)") { try rows(tree, "Sound").filter(\.selected).map(\.name) == [next] ? true : nil }
            try tree.press("push button", "Save")
            // Shown by its readable name (Complete), sent by the agent's (complete).
            _ = try eventually("the chosen sound in the agent") {
                try session.cliJSON([Listed].self, "list").first { $0.sound.map { $0 != "bell" && $0.lowercased() == next.lowercased() } == true }
            }
        }
    }

    @Test func aWakeLeadOutOfRangeIsRefusedNamingTheFieldAndChangesNothing() throws {
        let session = try session(settings: #"{"wakeLead": 300}"#)
        let file = settingsFile(session)
        let before = try String(contentsOfFile: file, encoding: .utf8)
        try withApp(session) { _, tree, _ in
            _ = try openSettings(session, tree)
            let window = try #require(try session.windows(titled: "Reveille").first)
            try focusWakeLead(session, tree, window)
            for key in ["ctrl+a", "3", "6", "0", "1", "Return"] { try session.type(key, into: window) }
            _ = try eventually("the refusal on the page") {
                try tree.names("label").contains("Wake lead: '3601' is longer than 1h; accepted: 0s to 1h") ? true : nil
            }
            _ = try eventually("the field back at the agent's value") {
                try control(tree.nodes(inside: "panel", "Settings"), "text", "Wake lead").text == "5m" ? true : nil
            }
            #expect(try session.cliJSON(Settings.self, "settings").wakeLead == 300)
            #expect(try String(contentsOfFile: file, encoding: .utf8) == before, "settings.json as it was")
        }
    }

    @Test func anAgentsRefusalIsSaidNamingTheFieldAndTheControlShowsTheAgentsValue() throws {
        let session = try session(settings: "{}")
        let file = settingsFile(session)
        try withApp(session) { _, tree, _ in
            _ = try openSettings(session, tree)
            // Edited behind the agent's back into what it cannot read: it refuses to write over it.
            let broken = #"{"wakeLead": "soon"}"#
            try broken.write(toFile: file, atomically: true, encoding: .utf8)
            try tree.press("check box", "Panel item")
            let refusal = try eventually("the agent's refusal on the page") {
                try tree.names("label").first { $0.hasPrefix("Panel item: ") && $0.contains("settings.json could not be read, so it was not changed") }
            }
            #expect(refusal.contains("wakeLead"), "the agent says what is wrong: \(refusal)")
            _ = try eventually("the switch back on, as the agent holds it") {
                try control(tree.nodes(inside: "panel", "Settings"), "check box", "Panel item").checked ? true : nil
            }
            #expect(try String(contentsOfFile: file, encoding: .utf8) == broken, "the person's file stays as it was")
        }
    }

    @Test func aSecondLaunchRaisesTheFirstAndEnds() throws {
        let session = try session()
        try withApp(session) { first, _, _ in
            _ = try session.eventually(timeout: 10, "the window on screen") { try session.windows(titled: "Reveille").first }
            let second = try Subprocess.start(session.binaries + "/reveille-app", [], environment: session.environment,
                                              stderr: session.directory + "/app2.log")
            #expect(second.wait(timeout: 10) == 0)
            #expect(first.isRunning)
            #expect(try session.windows(titled: "Reveille").count == 1)
        }
    }
}
