import Foundation
import ReveilleCore
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// What each real server did wrong with Reveille's alerts (issue 31), against the server itself:
/// started by D-Bus activation on a private bus, under Xvfb or a headless sway.
@Suite("Real notification-daemon", .waitsOnItsOwnThread)
struct NotificationDaemonTests {
    /// Where notification-daemon 3.20 draws an alert's buttons (a one-line body), from its bubble's corner.
    static let stop = (x: 254, y: 87), snooze = (x: 313, y: 87)

    func bubble(_ session: TestSession) throws -> TestSession.Window {
        try eventually("notification-daemon's bubble") { try session.windows(classname: "notification-daemon").first }
    }

    @Test func anAlertAfterACountdownIsShownAndAnsweredThenSnoozedAndStopped() throws {
        let session = try TestSession(notifications: .notificationDaemon, audio: .none)
        try session.startAgent()
        // Repeat, not Snooze: a snooze offers a third button (Snooze 20 min), which moves the
        // second one from where the click is aimed.
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "3s", "--title", "Tea", "--repeat", "2s")
        _ = try bubble(session)
        _ = try eventually(timeout: 8, "the timer to ring") {
            try session.agentState(of: timer.id) == "alerting" ? true : nil
        }
        // A close would leave the countdown's window on screen and show nothing after it: its
        // buttons would be Pause and Cancel of a countdown the agent no longer knows.
        let press = { (button: (x: Int, y: Int), what: String, done: @escaping () throws -> Bool) in
            _ = try eventually(timeout: 10, what) { () -> Bool? in
                let window = try self.bubble(session)
                try session.click(x: window.x + button.x, y: window.y + button.y)
                return (try? eventually(timeout: 1.5, what) { try done() ? true : nil }) ?? nil
            }
        }
        try press(Self.snooze, "Snooze on the alert to start the snooze countdown") {
            try session.cliJSON(AlarmJSON.self, "show", timer.id).state == "countdown"
        }
        _ = try eventually(timeout: 8, "the second alert") {
            try session.agentState(of: timer.id) == "alerting" ? true : nil
        }
        try press(Self.stop, "Stop on the second alert to end the timer") { try session.cliJSON([AlarmJSON].self, "list").isEmpty }
        _ = try eventually("nothing left on screen") { try session.windows(classname: "notification-daemon").isEmpty ? true : nil }
        #expect(session.agentLogLines(containing: "close-wedges-server").count == 1, "the quirk is named in the log")
    }
}

@Suite("Real MATE notification daemon", .waitsOnItsOwnThread)
struct MateNotificationDaemonTests {
    @Test func closingAnAlertWithItsCrossIsADismissalAndItComesBackAtOnce() throws {
        let session = try TestSession(notifications: .mate, audio: .none)
        try session.startAgent()
        let timer = try session.ringTimer("1s", "Tea")
        let alert = try eventually("the alert's bubble alone") { () -> TestSession.Window? in
            let bubbles = try session.windows(classname: "mate-notification-daemon")
            return bubbles.count == 1 && session.agentLogLines(containing: "closed").isEmpty ? bubbles[0] : nil
        }
        // MATE's × sits in the bubble's top right corner; the daemon reports it as "expired" (1).
        try session.click(x: alert.x + alert.width - 33, y: alert.y + 27)
        let line = try eventually("the agent to hear the close") { session.agentLogLines(containing: "while still ringing").first }
        #expect(line.contains("closed (reason 2)") && line.contains("again in 0.25 s"), "a person's dismissal, answered at once: \(line)")
        _ = try eventually(timeout: 3, "the alert back on screen") {
            try session.windows(classname: "mate-notification-daemon").map(\.id).filter { $0 != alert.id }.count == 1 ? true : nil
        }
        #expect(try session.cli("stop", timer.id).status == 0)
        _ = try eventually("the bubble gone") { try session.windows(classname: "mate-notification-daemon").isEmpty ? true : nil }
    }
}

@Suite("Real swaync", .waitsOnItsOwnThread)
struct SwayncTests {
    /// An alert's popup covers more than this many pixels of the screen's top right quarter.
    static let popup = 5_000

    @Test func twentyAlertsInARowAllPopUp() throws {
        let session = try TestSession(notifications: .swaync, audio: .none)
        try session.startAgent()
        var missing: [Int] = []
        for round in 1...20 {
            // 1 s: the countdown is on screen (and in swaync's panel) before the alert replaces it.
            let timer = try session.ringTimer("1s", "Tea \(round)")
            // The countdown gone from swaync's panel: what pops up now is the alert, or nothing.
            _ = try eventually("round \(round): the alert alone in swaync's panel") {
                try session.swayncClient("--count").stdout.trimmed() == "1" ? true : nil
            }
            if (try? eventually(timeout: 3, "round \(round): the alert's popup") { try session.popupPixels() > Self.popup ? true : nil }) == nil {
                missing.append(round)
            }
            #expect(try session.cli("stop", timer.id).status == 0)
            _ = try eventually("round \(round): the alert withdrawn") { try session.swayncClient("--count").stdout.trimmed() == "0" ? true : nil }
            _ = try eventually("round \(round): no popup left") { try session.popupPixels() < Self.popup ? true : nil }
        }
        #expect(missing.isEmpty, "the alert did not pop up in rounds \(missing)")
    }

    @Test func afterARunButtonTheAlertPopsUpAgain() throws {
        let session = try TestSession(notifications: .swaync, audio: .none)
        try session.startAgent()
        let marker = session.directory + "/ran"
        let timer = try session.ringTimer("1s", "Brew", "--secondary", "run:/usr/bin/touch \(marker)")
        _ = try eventually("the alert alone in swaync's panel") { try session.swayncClient("--count").stdout.trimmed() == "1" ? true : nil }
        _ = try eventually(timeout: 3, "the alert's popup") { try session.popupPixels() > Self.popup ? true : nil }
        let signals = try session.monitorNotificationSignals()
        // Run is the right one of the popup's two buttons on swaync's 1280×720 headless screen.
        try session.clickOnSway(x: 1150, y: 114)
        _ = try eventually("the Run button's command to run") { FileManager.default.fileExists(atPath: marker) ? true : nil }
        // swaync closes a notification after its action: the alarm rings on, and its alert is back.
        _ = try eventually("swaync to close the answered alert") { signals().contains("NotificationClosed") ? true : nil }
        _ = try eventually("the alert shown again, alone") { try session.swayncClient("--count").stdout.trimmed() == "1" ? true : nil }
        _ = try eventually(timeout: 3, "the alert's popup again") { try session.popupPixels() > Self.popup ? true : nil }
        #expect(try session.cliJSON(AlarmJSON.self, "show", timer.id).state == "alerting")
        #expect(try session.cli("stop", timer.id).status == 0)
    }
}

@Suite("Real LXQt notification daemon", .waitsOnItsOwnThread)
struct LxqtNotificationdTests {
    /// Where lxqt-notificationd 1.2 draws an alert's buttons (a one-line body), from its
    /// bubble's left edge and bottom.
    static let stop = (x: 90, fromBottom: 39), snooze = (x: 197, fromBottom: 39)

    @Test func snoozeThenStopWithItsButtons() throws {
        let session = try TestSession(notifications: .lxqt, audio: .none)
        try session.startAgent()
        // Repeat, not Snooze: a snooze offers a third button (Snooze 20 min), which moves the
        // second one from where the click is aimed.
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "2s", "--title", "Tea", "--repeat", "2s")
        for (button, state) in [(Self.snooze, "countdown"), (Self.stop, nil)] {
            _ = try eventually(timeout: 8, "the timer to ring") {
                try session.cliJSON([AlarmJSON].self, "list").first?.state == "alerting" ? true : nil
            }
            // The alert alone (the countdown closed once the alert was shown).
            let alert = try eventually("the alert's bubble") { () -> TestSession.Window? in
                let bubbles = try session.windows(classname: "lxqt-notificationd")
                return bubbles.count == 1 && bubbles[0].height < 160 ? bubbles[0] : nil
            }
            try session.click(x: alert.x + button.x, y: alert.y + alert.height - button.fromBottom)
            _ = try eventually("the press to be answered") {
                try session.cliJSON([AlarmJSON].self, "list").first?.state == state ? true : nil
            }
        }
        #expect(try session.cliJSON([AlarmJSON].self, "list").isEmpty && timer.state == "countdown")
    }
}

@Suite("Real mako", .waitsOnItsOwnThread)
struct MakoTests {
    @Test func theAlertPopsUpSaysHowToStopItAndMakoctlInvokeStopsIt() throws {
        let session = try TestSession(notifications: .mako, audio: .none)
        try session.startAgent()
        let timer = try session.ringTimer("1s", "Tea")
        _ = try eventually("the alert's popup") { try session.popupPixels() > SwayncTests.popup ? true : nil }
        // mako draws no buttons: the text says how to stop it from a terminal.
        let shown = try eventually("the alert alone in mako's list") { () -> String? in
            let list = try session.makoctl("list").stdout
            return list.contains("Tea") && list.contains("To stop: reveille stop \(timer.id.prefix(8))") ? list : nil
        }
        #expect(session.loggedReach == "seenOnly", "\(shown)")
        #expect(try session.makoctl("invoke", "stop").status == 0)
        _ = try eventually("Stop, invoked through makoctl, to end the timer") { try session.cliJSON([AlarmJSON].self, "list").isEmpty ? true : nil }
        _ = try eventually("no popup left") { try session.popupPixels() < SwayncTests.popup ? true : nil }
    }
}
