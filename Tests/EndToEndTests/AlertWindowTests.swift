import Foundation
import Glibc
import ReveilleCore
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// The alert window (reveille-alert) under Xvfb: opened by the agent while an alarm rings and
/// its notification cannot be seen or answered, answered with the keyboard through the
/// agent's D-Bus interface, closed when the alarm is answered anywhere.
@Suite("Alert window", .drawsWindows)
struct AlertWindowTests {
    /// A session on its own display, the agent started with `alertWindow` set when given.
    func session(_ notifications: TestSession.NotificationPeer, alertWindow: String? = nil) throws -> TestSession {
        let session = try TestSession(notifications: notifications)
        try session.startDisplay()
        if let alertWindow {
            try FileManager.default.createDirectory(atPath: session.directory + "/config/reveille", withIntermediateDirectories: true)
            try #"{"alertWindow": "\#(alertWindow)"}"#.write(toFile: session.directory + "/config/reveille/settings.json",
                                                            atomically: true, encoding: .utf8)
        }
        try session.startAgent()
        return session
    }

    func log(_ session: TestSession) -> String { (try? String(contentsOfFile: session.agentLog, encoding: .utf8)) ?? "" }

    /// The window process the agent says it opened for the alarm whose id starts with `id`.
    func windowProcess(_ session: TestSession, of id: String) throws -> Int32 {
        try eventually("the agent to open the alert window of \(id)") {
            log(session).firstMatch(of: /opened the alert window of (\S+) \(pid (\d+)\)/).flatMap {
                $0.1.lowercased().hasPrefix(id) ? Int32($0.2) : nil
            }
        }
    }

    /// What process `pid`'s descriptors from 3 up refer to (`socket:[123]`, a path).
    func descriptors(of pid: Int32) throws -> Set<String> {
        let folder = "/proc/\(pid)/fd"
        return Set(try FileManager.default.contentsOfDirectory(atPath: folder).filter { (Int($0) ?? 0) > 2 }
            .compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + $0) })
    }

    /// Whether process `pid` is gone, reaped (not a zombie left behind).
    func reaped(_ pid: Int32) -> Bool { kill(pid, 0) != 0 && errno == ESRCH }

    /// Types `key` into the alert `window` until `answered` says it answered the alarm: the
    /// window takes a key only once it has had the focus a moment (`AlertKeyGate.settling`),
    /// and a test's first key comes with the focus.
    func answer<T>(_ key: String, in window: String, _ session: TestSession, _ what: String, answered: () throws -> T?) throws -> T {
        try eventually(what) {
            if let done = try answered() { return done }
            try session.type(key, into: window)
            return try answered()
        }
    }

    @Test func withNoNotificationServerTheWindowOpensAndItsStopSilencesTheAlarm() throws {
        let session = try session(.none)
        let recorder = try SinkRecorder(session: session)
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Wake up")
        let window = try session.eventually(timeout: 60, "the alert window on screen") { try session.windows(titled: "Wake up").first }
        let process = try windowProcess(session, of: String(timer.id.prefix(8)))
        _ = try eventually("the alarm's sound") { recorder.firstAudible(after: Date(timeIntervalSinceNow: -10)) }
        // Nothing of the agent's is held by the window: its lock, its bus connection, its sound stream.
        let agentHolds = try descriptors(of: try #require(session.agent?.pid))
        #expect(agentHolds.contains { $0.hasPrefix(session.stateDirectory) }, "the agent holds its state folder's lock: \(agentHolds)")
        // Sockets by inode (unique), files by path; not anonymous inodes, named alike for all (`anon_inode:[eventfd]`).
        let shared = try descriptors(of: process).intersection(agentHolds).filter { !$0.hasPrefix("anon_inode:") }
        #expect(shared.isEmpty, "the window holds the agent's \(shared)")
        // Drawn with cairo: no GL driver loaded (on Xvfb, Mesa's llvmpipe and LLVM, twice the time to appear).
        let maps = try String(contentsOfFile: "/proc/\(process)/maps", encoding: .utf8)
        let drivers = Set(maps.split(separator: "\n").compactMap { $0.split(separator: " ").last }
            .filter { $0.contains("_dri.so") || $0.contains("libLLVM") || $0.contains("libGLX_mesa") || $0.contains("libEGL_mesa") })
        #expect(drivers.isEmpty, "the window loaded a GL driver: \(drivers)")

        _ = try answer("Return", in: window, session, "Stop in the window to end the timer") {
            try session.cliJSON([AlarmJSON].self, "list").isEmpty ? true : nil
        }
        let stopped = Date()
        _ = try eventually("the sound to stop") {
            recorder.chunks.last.map { $0.time > stopped.addingTimeInterval(0.5) } == true && !recorder.heard(from: stopped.addingTimeInterval(0.3), to: Date())
                ? true : nil
        }
        _ = try eventually("the window to close") { try session.windows(titled: "Wake up").isEmpty ? true : nil }
        _ = try eventually("the window's process to be reaped") { reaped(process) ? true : nil }
    }

    /// The window is drawn in libadwaita's style, light, or dark when the desktop prefers dark
    /// (its settings portal, as the app reads it): the background beside its title, where its
    /// margin is, and the Stop button drawn in libadwaita's red.
    @Test func theWindowFollowsTheDesktopsDarkStyle() throws {
        let session = try session(.none)
        /// The window's background, in its margin (top left), and the colour at its Stop button's middle row.
        func colours(_ title: String) throws -> (background: [UInt8], stop: [UInt8]) {
            let window = try session.eventually(timeout: 60, "the alert window \(title) on screen") {
                try session.windows(classname: "reveille-alert").first
            }
            let background = try session.pixel(x: window.x + 8, y: window.y + 8)
            // Stop is the first of the buttons, centred: look along the row below the middle for red.
            let picture = try session.xScreenshot(of: TestSession.Window(id: "alert", x: window.x, y: window.y, width: window.width, height: window.height))
            var stop: [UInt8] = []
            for y in stride(from: window.height / 2, to: window.height, by: 4) where stop.isEmpty {
                for x in stride(from: 0, to: window.width, by: 4) {
                    let colour = picture.pixel(x: x, y: y)
                    if colour[0] > 150 && colour[1] < 90 && colour[2] < 90 { stop = colour; break }
                }
            }
            return (background, stop)
        }
        for (scheme, title) in [(nil, "Tea"), (1, "Toast")] as [(Int?, String)] {
            if let scheme { try session.addSettingsPortal(colorScheme: scheme) }
            let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", title)
            let seen = try eventually("the \(scheme == nil ? "light" : "dark") window with a red Stop") { () -> (background: [UInt8], stop: [UInt8])? in
                let seen = try colours(title)
                let dark = seen.background.allSatisfy { $0 < 80 }, light = seen.background.allSatisfy { $0 > 180 }
                return !seen.stop.isEmpty && (scheme == nil ? light : dark) ? seen : nil
            }
            try session.saveScreenshot(to: session.directory + "/alert-\(scheme == nil ? "light" : "dark").png")
            print("alert window \(title): background \(seen.background), Stop \(seen.stop)")
            _ = try session.cli("stop", timer.id)
            _ = try eventually("the window to close") { try session.windows(classname: "reveille-alert").isEmpty ? true : nil }
        }
    }

    @Test func theWindowsStopIsTheAlarmsStopButtonAndRunsItsStopIntent() throws {
        // As AlarmKit runs an alarm's stop intent when the person stops it from the system's
        // alert, the window presses the alarm's Stop button (PressButton), not `reveille stop`.
        let session = try session(.none)
        let ran = try session.scheduleTimerWithStopIntent("Intent", in: 1)
        let window = try session.eventually(timeout: 60, "the alert window on screen") { try session.windows(titled: "Intent").first }
        _ = try answer("Return", in: window, session, "the alarm's stop intent to run") { FileManager.default.fileExists(atPath: ran) ? true : nil }
        #expect(try session.cliJSON([AlarmJSON].self, "list").isEmpty, "the Stop ended the timer")
        _ = try eventually("the window to close") { try session.windows(titled: "Intent").isEmpty ? true : nil }
    }

    @Test func withDunstTheWindowOpensAndAStopFromTheCLIClosesIt() throws {
        // dunst reaches its buttons only through a dmenu menu: seen, not answerable.
        let session = try session(.dunst)
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Tea")
        _ = try session.eventually(timeout: 60, "the alert window on screen") { try session.windows(titled: "Tea").first }
        let process = try windowProcess(session, of: String(timer.id.prefix(8)))
        _ = try eventually("dunst to show the alert too") { try session.dunstctl("count", "displayed").stdout.trimmed() == "1" ? true : nil }

        let stop = try session.cli("stop", String(timer.id.prefix(8)))
        #expect(stop.status == 0, "\(stop.stderr)")
        _ = try eventually("the window to close once answered elsewhere") { try session.windows(titled: "Tea").isEmpty ? true : nil }
        _ = try eventually("the window's process to be reaped") { reaped(process) ? true : nil }
        #expect(!log(session).contains("ended with"), "closed by the agent, not failed: \(log(session))")
    }

    @Test func aWindowWhoseAgentIsGoneClosesAndTheNextAgentOpensItsOwn() throws {
        let session = try session(.none)
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Kettle")
        _ = try session.eventually(timeout: 60, "the alert window on screen") { try session.windows(titled: "Kettle").first }
        let first = try windowProcess(session, of: String(timer.id.prefix(8)))
        try session.killAgent()
        _ = try eventually("the window of the killed agent to close") { try session.windows(titled: "Kettle").isEmpty ? true : nil }
        // The alarm still rings after a restart: one window again, the new agent's.
        try session.startAgent()
        _ = try session.eventually(timeout: 60, "the new agent's window") { try session.windows(titled: "Kettle").count == 1 ? true : nil }
        #expect(log(session).matches(of: /opened the alert window of/).count == 2)
        // Its parent gone, whoever adopted it reaps it: gone, or a zombie until then.
        _ = try eventually("the first window's process to end") {
            let stat = (try? String(contentsOfFile: "/proc/\(first)/stat", encoding: .utf8)) ?? ""
            return stat.isEmpty || stat.contains(") Z ") ? true : nil
        }
    }

    @Test func aWindowTheDisplayRefusesIsTriedAgainLater() throws {
        // X refuses a client whose cookie is not written yet (a session's first moments), or
        // while it restarts: the window could not connect, and is tried again later.
        let session = try TestSession(notifications: .none)
        try session.startDisplayRequiringCookie()
        let cookieLater = session.directory + "/home/.Xauthority-later"
        try session.startAgent(environment: ["XAUTHORITY": cookieLater])
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Back")
        try session.waitForAgentLog("could not connect (see its lines above); it opens again in 1 s", timeout: 30)
        #expect(log(session).contains("cannot open the display DISPLAY=\(session.display ?? "")"), "\(log(session))")
        try FileManager.default.copyItem(atPath: try #require(session.environment["XAUTHORITY"]), toPath: cookieLater)
        _ = try session.eventually(timeout: 60, "the window on screen once the display lets it in") { try session.windows(titled: "Back").first }
        #expect(!log(session).contains("it is not opened again"), "\(log(session))")
    }

    @Test func theWindowEndsWithItsStatusNeverASignal() throws {
        // It ends while GTK's thread may still be drawing: ending through exit(3) tore libX11
        // down under that thread, and about one ending in sixty was a SIGSEGV. Without a
        // session bus it opens the display and ends at once (status 4), eight at a time.
        let session = try TestSession(notifications: .none, audio: .none)
        try session.startDisplay()
        var environment = session.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(session.directory)/no-bus"
        let request = AlertWindowArguments(alarmID: UUID(), title: "Ends", detail: "", stopLabel: "Stop", secondaryLabel: nil)
        var endings: [Int32: Int] = [:]
        for _ in 0..<10 {
            let windows = try (0..<8).map { _ in
                try Subprocess.start(session.binaries + "/reveille-alert", request.arguments, environment: environment,
                                     stderr: session.directory + "/alert.log")
            }
            for window in windows { endings[window.wait(timeout: 30), default: 0] += 1 }
        }
        let said = (try? String(contentsOfFile: session.directory + "/alert.log", encoding: .utf8)) ?? ""
        #expect(endings == [4: 80], "exit statuses (128 + N: signal N) and how often: \(endings); \(said.prefix(600))")
    }

    @Test func theWindowSpeaksTheUsersLanguage() throws {
        let session = try TestSession(notifications: .none, audio: .none)
        try session.startDisplay()
        let german = try TranslationTests().environment(session, "de_DE.UTF-8")
        try session.startAgent(environment: german.mapValues { Optional($0) })
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Eier")
        _ = try session.eventually(timeout: 60, "the alert window on screen") { try session.windows(titled: "Eier").first }
        let process = try windowProcess(session, of: String(timer.id.prefix(8)))
        // What it shows is what the agent gave it, in the agent's (the user's) language.
        let shown = try String(contentsOfFile: "/proc/\(process)/cmdline", encoding: .utf8).split(separator: "\0").map(String.init)
        #expect(shown.contains("Stopp") && shown.contains("Schlummern"), "\(shown)")
        #expect(shown.contains { $0.hasPrefix("Timer · hat um ") }, "\(shown)")
    }

    @Test func withDunstPausedAndAlwaysTheWindowSnoozesWithS() throws {
        let session = try session(.dunst, alertWindow: "always")
        // Start dunst (D-Bus activation) and hold every notification back.
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "Warm-up")
        _ = try eventually("dunst to start") { try session.dunstctl("is-paused").status == 0 ? true : nil }
        #expect(try session.dunstctl("set-paused", "true").status == 0)
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Bread", "--snooze", "1h")
        let window = try session.eventually(timeout: 60, "the alert window on screen") { try session.windows(titled: "Bread").first }
        #expect(try session.dunstctl("count", "displayed").stdout.trimmed() == "0", "dunst paused shows nothing")

        _ = try answer("s", in: window, session, "S in the window to snooze the timer") {
            try session.cliJSON([AlarmJSON].self, "list").first { $0.id == timer.id && $0.state == "countdown" }
        }
        _ = try eventually("the window to close") { try session.windows(titled: "Bread").isEmpty ? true : nil }
    }

    /// Someone typing into another window as the alert takes the focus: the Enter of their
    /// sentence, pressed as the window becomes active, is not the alarm's Stop (before, it
    /// stopped the alarm unseen). A key pressed once the window settled answers it.
    @Test func aKeyTypedAsTheWindowTakesTheFocusDoesNotAnswerIt() throws {
        let session = try session(.dunst, alertWindow: "always")
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "Warm-up")
        _ = try eventually("dunst to start") { try session.dunstctl("is-paused").status == 0 ? true : nil }
        #expect(try session.dunstctl("set-paused", "true").status == 0)
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Kettle", "--snooze", "1h")
        let window = try session.eventually(timeout: 60, "the alert window on screen") { try session.windows(titled: "Kettle").first }
        let xdotool = try Subprocess.find("xdotool", package: "xdotool")
        // Focus and Enter in one go, as a person's typing reaches a window that just took the focus.
        let typed = try Subprocess.run(xdotool, ["windowfocus", "--sync", window, "key", "--clearmodifiers", "Return"], environment: session.environment)
        #expect(typed.status == 0, "\(typed.stderr)")
        // S once it settled: the timer is snoozed, so the Enter before it was not its Stop (a
        // stopped timer ends, and is listed no more).
        _ = try answer("s", in: window, session, "S in the settled window to snooze the timer") {
            try session.cliJSON([AlarmJSON].self, "list").first { $0.id == timer.id && $0.state == "countdown" }
        }
    }

    @Test func underAWindowManagerItStaysAboveOnEveryWorkspace() throws {
        // GNOME Shell's notifications answer, so only `always` opens the window there; mutter
        // is the window manager that honours what it asks.
        let session = try TestSession(notifications: .gnomeShell, audio: .none)
        try FileManager.default.createDirectory(atPath: session.directory + "/config/reveille", withIntermediateDirectories: true)
        try #"{"alertWindow": "always"}"#.write(toFile: session.directory + "/config/reveille/settings.json", atomically: true, encoding: .utf8)
        try session.startAgent()
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Standup")
        let window = try session.eventually(timeout: 60, "the alert window on screen") { try session.windows(titled: "Standup").first }
        let xprop = try Subprocess.find("xprop", package: "x11-utils"), wmctrl = try Subprocess.find("wmctrl", package: "wmctrl")
        _ = try eventually("the window manager to keep it above, on every workspace") {
            let state = try Subprocess.run(xprop, ["-id", window, "_NET_WM_STATE", "WM_CLASS"], environment: session.environment).stdout
            return state.contains("_NET_WM_STATE_ABOVE") && state.contains("_NET_WM_STATE_STICKY") && state.contains("\"reveille-alert\"") ? true : nil
        }
        // wmctrl -l: id, workspace (-1: every one), host, title.
        let listed = try Subprocess.run(wmctrl, ["-l"], environment: session.environment).stdout
        #expect(listed.split(separator: "\n").contains { $0.hasSuffix(" Standup") && $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first == "-1" },
                "\(listed)")
        #expect(try session.cli("stop", String(timer.id.prefix(8))).status == 0)
        _ = try eventually("the window to close") { try session.windows(titled: "Standup").isEmpty ? true : nil }
    }

    /// Someone typing into another window as the alert opens: the window is mapped without
    /// asking for the focus (`_NET_WM_USER_TIME` 0 for a window manager, no `XSetInputFocus`
    /// without one), so every key reaches what they type into and the alarm rings on; once they
    /// move to the window, its keys answer it. Before, `gtk_window_present` took the focus: the
    /// rest of the sentence went to the alert. Without a window manager (dunst paused, so only
    /// the window shows the alarm): under GNOME Shell the alarm's banner takes the keyboard
    /// itself, whatever the window does (see the helper's report on issue 49).
    @Test func typingIntoAnotherWindowAsItOpensKeepsTheKeysThereAndTheAlarmRinging() throws {
        let session = try session(.dunst, alertWindow: "always")
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "Warm-up")
        _ = try eventually("dunst to start") { try session.dunstctl("is-paused").status == 0 ? true : nil }
        #expect(try session.dunstctl("set-paused", "true").status == 0)
        // The other window: xev's (x11-utils), an X client of its own that prints each key it gets.
        let typedFile = session.directory + "/typed.txt"
        let notes = try Subprocess.start("/usr/bin/stdbuf", ["-oL", try Subprocess.find("xev", package: "x11-utils"), "-name", "Notes", "-event", "keyboard"],
                                         environment: session.environment, stdout: typedFile)
        defer { notes.terminate() }
        /// What reached Notes: the keys of its KeyPress events (`keysym 0x74, t`), a space as itself.
        func typed() -> String {
            let text = (try? String(contentsOfFile: typedFile, encoding: .utf8)) ?? ""
            return text.components(separatedBy: "KeyPress event").dropFirst().compactMap { event in
                event.firstMatch(of: /keysym 0x[0-9a-f]+, (\w+)\)/).map { $0.1 == "space" ? " " : String($0.1) }
            }.joined()
        }
        let notesWindow = try session.eventually(timeout: 30, "the Notes window") { try session.windows(titled: "Notes").first }
        let xdotool = try Subprocess.find("xdotool", package: "xdotool")
        _ = try eventually("Notes to have the focus") {
            _ = try Subprocess.run(xdotool, ["windowfocus", "--sync", notesWindow], environment: session.environment)
            return try Subprocess.run(xdotool, ["getwindowfocus"], environment: session.environment).stdout.trimmed() == notesWindow ? true : nil
        }
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Teatime", "--snooze", "1h")
        // A key every 0.15 s from before the alarm rings until well after its window is up.
        let sentence = "the quick brown fox jumps over the lazy dog and then it sleeps till noon"
        let typing = try Subprocess.start(xdotool, ["type", "--delay", "150", sentence], environment: session.environment)
        let window = try session.eventually(timeout: 60, "the alert window on screen") { try session.windows(titled: "Teatime").first }
        #expect(typing.wait(timeout: 60) == 0)
        _ = try? eventually(timeout: 5, "every key in Notes") { typed() == sentence ? true : nil }
        #expect(typed() == sentence, "every key reached Notes")
        #expect(try session.agentState(of: timer.id) == "alerting", "the alarm rings on")
        let focused = try Subprocess.run(xdotool, ["getwindowfocus", "getwindowname"], environment: session.environment).stdout
        let focusedID = try Subprocess.run(xdotool, ["getwindowfocus"], environment: session.environment).stdout.trimmed()
        #expect(focusedID == notesWindow, "Notes kept the focus; it is \(focusedID) \(focused.trimmed()), the alert \(window)")
        // The person moves to the window: its keys answer it (Enter: Stop).
        _ = try answer("Return", in: window, session, "Enter in the window once the person is there") {
            try session.cliJSON([AlarmJSON].self, "list").contains { $0.id == timer.id } ? nil : true
        }
    }

    @Test func neverOpensNoWindowAndAnAnswerableNotificationNeedsNone() throws {
        for (notifications, setting) in [(TestSession.NotificationPeer.none, "never"), (.recording(profile: "gnome"), "auto")] {
            let session = try session(notifications, alertWindow: setting)
            let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Quiet")
            // The window would be spawned in the same pass that makes the alarm alerting, and
            // logged before any client can see it alerting.
            _ = try eventually("the alarm to ring") { try session.cliJSON([AlarmJSON].self, "list").first { $0.state == "alerting" } }
            #expect(!log(session).contains("opened the alert window"), "\(setting): \(log(session))")
            #expect(try session.windows(titled: "Quiet").isEmpty)
            #expect(try session.cli("stop", String(timer.id.prefix(8))).status == 0)
        }
    }
}
