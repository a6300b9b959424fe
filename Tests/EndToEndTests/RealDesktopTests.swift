import Foundation
import ReveilleCore
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// The alert path against real notification servers, started by D-Bus activation on a
/// private bus and display as Debian starts them: what the recording server cannot show.
@Suite("Real dunst", .serialized, .waitsOnItsOwnThread)
struct DunstTests {
    @Test func activatedByTheFirstCallThenSnoozeAndStopThroughItsMenu() throws {
        let session = try TestSession(notifications: .dunst, audio: .none)
        try session.startAgent()
        #expect(try session.ownerPID(of: "org.freedesktop.Notifications") == nil, "nothing runs dunst yet")
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "2s", "--title", "Tea", "--snooze", "2s")
        // The countdown's Notify starts dunst: the agent does not wait for an owner that never comes.
        try session.waitForName("org.freedesktop.Notifications", owned: true)
        _ = try eventually(timeout: 20, "the timer to ring") {
            try session.agentState(of: timer.id) == "alerting" ? true : nil
        }
        _ = try eventually("dunst to show one notification: the alert (the countdown closed)") {
            try session.dunstctl("count", "displayed").stdout.trimmed() == "1" ? true : nil
        }
        try session.pressInDunst(label: "Snooze", summary: "Tea")
        _ = try eventually("Snooze, pressed in dunst's menu, to start the snooze countdown") {
            try session.agentState(of: timer.id) == "countdown" ? true : nil
        }
        _ = try eventually(timeout: 20, "the second alert") {
            try session.agentState(of: timer.id) == "alerting" ? true : nil
        }
        try session.pressInDunst(label: "Stop", summary: "Tea")
        _ = try eventually("Stop to end the timer") { try session.cliJSON([AlarmJSON].self, "list").isEmpty ? true : nil }
        _ = try eventually("nothing left on screen") {
            try session.dunstctl("count", "displayed").stdout.trimmed() == "0" ? true : nil
        }
        // dunst keeps what it closed: the alert said how to stop it from a terminal.
        let history = try session.dunstctl("history").stdout
        #expect(history.contains("To stop: reveille stop \(timer.id.prefix(8))"), "\(history)")
    }

    @Test func customRunButtonRunsItsCommandAndTheAlarmRingsOn() throws {
        let session = try TestSession(notifications: .dunst, audio: .none)
        try session.startAgent()
        let marker = session.directory + "/ran"
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Brew", "--secondary", "run:/usr/bin/touch \(marker)")
        _ = try eventually(timeout: 20, "the alert") {
            try session.agentState(of: timer.id) == "alerting" ? true : nil
        }
        _ = try eventually("the alert on screen") { try session.dunstctl("count", "displayed").stdout.trimmed() == "1" ? true : nil }
        try session.pressInDunst(label: "Run", summary: "Brew")
        _ = try eventually("the Run button's command to run") { FileManager.default.fileExists(atPath: marker) ? true : nil }
        // The alarm rings on (AlarmKit's .custom), and its alert is on screen again to stop it.
        #expect(try session.cliJSON(AlarmJSON.self, "show", timer.id).state == "alerting")
        _ = try eventually("the alert back on screen") { try session.dunstctl("count", "displayed").stdout.trimmed() == "1" ? true : nil }
        try session.pressInDunst(label: "Stop", summary: "Brew")
        _ = try eventually("Stop to end it") { try session.cliJSON([AlarmJSON].self, "list").isEmpty ? true : nil }
    }

    @Test func twoAlarmsWithTheSameTitleStayTwoAndADismissedAlertComesBackOnce() throws {
        let session = try TestSession(notifications: .dunst, audio: .none)
        try session.startAgent()
        let first = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Alarm")
        let second = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Alarm")
        _ = try eventually(timeout: 20, "both to ring") {
            try session.cliJSON([AlarmJSON].self, "list").allSatisfy { $0.state == "alerting" } ? true : nil
        }
        // dunst stacks notifications with the same text and closes the older as expired; each
        // alert's text names its alarm, so both stay, and nothing is shown again and again.
        _ = try eventually("two alerts on screen") { try session.dunstctl("count", "displayed").stdout.trimmed() == "2" ? true : nil }
        let log = { (try? String(contentsOfFile: session.agentLog, encoding: .utf8)) ?? "" }
        #expect(!log().contains("while still ringing"), "no alert was closed under the agent: \(log())")

        // A click dismisses in dunst (its actions need a menu): the alert comes back.
        #expect(try session.dunstctl("close").status == 0)
        _ = try eventually("the dismissed alert to come back") {
            try session.dunstctl("count", "displayed").stdout.trimmed() == "2" && log().contains("showing it again") ? true : nil
        }
        for alarm in [first, second] { #expect(try session.cli("stop", alarm.id).status == 0) }
        _ = try eventually("both withdrawn") { try session.dunstctl("count", "displayed").stdout.trimmed() == "0" ? true : nil }
    }

    @Test func alertSurvivesDunstRestartingAndIsShownByTheNewOne() throws {
        let session = try TestSession(notifications: .dunst, audio: .none)
        try session.startAgent()
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Crash")
        _ = try eventually(timeout: 20, "the alert on screen") {
            try session.cliJSON([AlarmJSON].self, "list").first?.state == "alerting"
                && session.dunstctl("count", "displayed").stdout.trimmed() == "1" ? true : nil
        }
        try session.stopNotificationServer()
        // No one else starts dunst again: the agent's next call does.
        _ = try eventually(timeout: 20, "the alert on a new dunst") {
            try session.ownerPID(of: "org.freedesktop.Notifications") != nil
                && session.dunstctl("count", "displayed").stdout.trimmed() == "1" ? true : nil
        }
    }
}

@Suite("Real xfce4-notifyd", .serialized, .waitsOnItsOwnThread)
struct XfceNotifydTests {
    @Test func labelsAndTextNotAGaugeAndSnoozeThenCancelLeavesNothingBehind() throws {
        let session = try TestSession(notifications: .xfce4Notifyd, audio: .none)
        try session.startAgent()
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "3s", "--title", "Tea", "--snooze", "1m")
        // A countdown with a `value` hint would be a bare gauge here; without it, a bubble with text and buttons.
        let countdown = try eventually(timeout: 15, "the countdown bubble (xfce4-notifyd started by activation)") { try session.xfceBubbles().first }
        #expect(countdown.height > 90, "a bubble with title, text and buttons, not a gauge: \(countdown)")
        _ = try eventually(timeout: 20, "the timer to ring") {
            try session.agentState(of: timer.id) == "alerting" ? true : nil
        }
        let alert = try eventually("one bubble: the alert (the countdown closed)") {
            let bubbles = try session.xfceBubbles()
            return bubbles.count == 1 && bubbles[0] != countdown ? bubbles[0] : nil
        }
        // xfce4-notifyd closes a bubble after its button is pressed, and reuses ids.
        try session.clickXfceButton(alert, fromRight: 0)
        _ = try eventually("Snooze to start the snooze countdown") {
            try session.agentState(of: timer.id) == "countdown" ? true : nil
        }
        let snoozing = try eventually("the snooze countdown's bubble") { () -> TestSession.Window? in
            let bubbles = try session.xfceBubbles()
            return bubbles.count == 1 ? bubbles[0] : nil
        }
        try session.clickXfceButton(snoozing, fromRight: 0)
        _ = try eventually("Cancel to end the timer") { try session.cliJSON([AlarmJSON].self, "list").isEmpty ? true : nil }
        _ = try eventually("no countdown left frozen on screen") { try session.xfceBubbles().isEmpty ? true : nil }
    }

    @Test func stopButtonStopsTheAlarm() throws {
        let session = try TestSession(notifications: .xfce4Notifyd, audio: .none)
        try session.startAgent()
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Eggs", "--snooze", "1h") // two buttons: no longer snooze
        _ = try eventually(timeout: 20, "the timer to ring") {
            try session.agentState(of: timer.id) == "alerting" ? true : nil
        }
        let alert = try eventually("the alert's bubble alone") { () -> TestSession.Window? in
            let bubbles = try session.xfceBubbles()
            return bubbles.count == 1 ? bubbles[0] : nil
        }
        try session.clickXfceButton(alert, fromRight: 1)
        _ = try eventually("Stop to end the timer") { try session.cliJSON([AlarmJSON].self, "list").isEmpty ? true : nil }
        _ = try eventually("the bubble gone") { try session.xfceBubbles().isEmpty ? true : nil }
    }
}

/// The alert path against the recording server started by D-Bus activation.
@Suite("Activation", .serialized, .waitsOnItsOwnThread)
struct ActivationTests {
    @Test func alertStartsAnActivatableServerAndComesBackAfterItDies() throws {
        let session = try TestSession(notifications: .activatableRecording(profile: "mako"), audio: .none)
        try session.startAgent()
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Wake")
        let alert = try eventually(timeout: 20, "the alert on the activated server") { try session.alerts(titled: "Wake").first }
        #expect(alert.actions?.prefix(4) == ["stop", "Stop", "secondary", "Snooze"], "\(alert.actions ?? [])")
        let stopped = Date().timeIntervalSince1970
        try session.stopNotificationServer()
        _ = try eventually(timeout: 20, "the alert on a server started again by the agent's call") {
            try session.alerts(titled: "Wake").first { $0.time > stopped }
        }
    }
}

@Suite("Real GNOME Shell", .serialized, .waitsOnItsOwnThread)
struct GnomeShellTests {
    /// Where GNOME Shell 43 draws the buttons of the banner at the top of the 1024×768 screen,
    /// for an alert with a one-line body (buttons answer here: no terminal commands) and three
    /// buttons in equal thirds (Stop, Snooze, Snooze 20 min).
    static let stopButton = (x: 381, y: 132), snoozeButton = (x: 506, y: 132)

    /// Clicks at a place until `done` holds (a banner slides in; a click during the slide
    /// misses): after each click, waits for `done` as long as a hit takes to show, then clicks
    /// again.
    func click(_ session: TestSession, _ point: (x: Int, y: Int), until what: String, _ done: () throws -> Bool) throws {
        // Eight tries: on a loaded machine the shell slides a banner in slowly.
        for _ in 0..<8 {
            try session.click(x: point.x, y: point.y)
            if (try? eventually(timeout: 2, what) { try done() ? true : nil }) != nil { return }
        }
        // A picture of the screen for REVEILLE_KEEP_TEST_FILES=1.
        screenshot(session, to: session.directory + "/failed.png")
        throw Subprocess.Failure("clicking at \(point) never led to \(what)")
    }

    /// The X screen as a PNG, through GDK (python3-gi), for a person to look at.
    func screenshot(_ session: TestSession, to path: String) {
        let script = """
            import sys, gi; gi.require_version('Gdk', '3.0'); from gi.repository import Gdk
            root = Gdk.get_default_root_window()
            Gdk.pixbuf_get_from_window(root, 0, 0, root.get_width(), root.get_height()).savev(sys.argv[1], 'png', [], [])
            """
        _ = try? Subprocess.run("/usr/bin/python3", ["-c", script, path], environment: session.environment)
    }

    @Test func alertAfterACountdownComesExpandedWithItsButtons() throws {
        let session = try TestSession(notifications: .gnomeShell, audio: .none)
        try session.startAgent()
        // The countdown banner is still on screen when the timer rings: an alert that replaced it
        // in place would stay collapsed, and a click where Snooze belongs would do nothing.
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "3s", "--title", "Tea", "--snooze", "2s")
        _ = try eventually(timeout: 8, "the timer to ring") {
            try session.agentState(of: timer.id) == "alerting" ? true : nil
        }
        try click(session, Self.snoozeButton, until: "Snooze to start the snooze countdown") {
            try session.cliJSON(AlarmJSON.self, "show", timer.id).state == "countdown"
        }
        _ = try eventually(timeout: 8, "the second alert") {
            try session.agentState(of: timer.id) == "alerting" ? true : nil
        }
        try click(session, Self.stopButton, until: "Stop to end the timer") {
            try session.cliJSON([AlarmJSON].self, "list").isEmpty
        }
    }

    /// Do Not Disturb as GNOME's switch sets it (banners off, read by the shell through dconf):
    /// an alert still comes as a banner with its buttons, so the agent opens no window.
    @Test func withBannersOffTheAlertComesWithItsButtonsAndNoWindowAndItsStopEndsIt() throws {
        let session = try TestSession(notifications: .gnomeShellOnDconf, audio: .none)
        try session.gsettings(set: "org.gnome.desktop.notifications", "show-banners", "false")
        try session.startAgent()
        try session.waitForAgentLog("the notification server's Do Not Disturb is on")
        _ = try session.ringTimer("1s", "Tea", "--snooze", "2s")
        #expect(session.loggedReach == "answerable", "GNOME Shell shows criticals, buttons and all, in Do Not Disturb")
        try click(session, Self.stopButton, until: "Stop, in Do Not Disturb, to end the timer") {
            try session.cliJSON([AlarmJSON].self, "list").isEmpty
        }
        // The session has a display: a window would have opened had the agent wanted one.
        #expect(session.display != nil)
        #expect(session.agentLogLines(containing: "opened the alert window").isEmpty)
        #expect(session.agentLogLines(containing: "notifications reach the user: ").allSatisfy { $0.hasSuffix(": answerable") })
    }
}
