import Foundation
import ReveilleCore
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// The vertical slice against real peers: a private bus, the recording notification
/// server, PulseAudio, and the real agent and CLI binaries.
@Suite("Alerts end to end", .waitsOnItsOwnThread)
struct AlertTests {
    @Test func timerAlertsCriticalWithStopAndSnoozeThenSnoozesAndStops() throws {
        let session = try TestSession()
        try session.startAgent()
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "2s", "--title", "Tea", "--snooze", "2s")
        #expect(timer.state == "countdown")
        #expect(timer.kind == "timer")

        let alert = try eventually(timeout: 8, "the Tea alert") { try session.alerts(titled: "Tea").first }
        #expect(alert.hints?["urgency"] == .number(2))
        #expect(alert.hints?["resident"] == .flag(true))
        #expect(alert.hints?["desktop-entry"] == .text("io.github.reveille.Reveille"))
        #expect(alert.timeout == 0, "an alarm's notification never expires")
        // Each key names the button's role; labels, never icons instead of them.
        #expect(alert.actions == ["stop", "Stop", "secondary", "Snooze", "secondary:1200", "Snooze 20 min"])
        #expect(alert.hints?["action-icons"] == nil)
        #expect(alert.body?.contains("reveille stop") == false, "buttons answer it here: no terminal commands in the text")
        #expect(try session.cliJSON([AlarmJSON].self, "list").map(\.state) == ["alerting"])

        // Snooze: the alert gives way to the snooze countdown, then alerts again.
        // The instant before the press: the agent may answer before the press call returns.
        let pressed = Date().timeIntervalSince1970
        try session.press(label: "Snooze", on: alert.id)
        _ = try eventually("the snoozed timer to count down") {
            try session.cliJSON([AlarmJSON].self, "list").first { $0.state == "countdown" }
        }
        let snoozing = try eventually("the countdown to replace the alert") {
            try session.notifications(titled: "Tea").first { $0.time >= pressed && $0.hints?["urgency"] == .number(1) }
        }
        #expect(snoozing.id != alert.id, "after a button press, a new notification: the server may have closed the old one")
        _ = try eventually("the answered alert to be closed") { try session.events.first { $0.event == "closed" && $0.id == alert.id } }
        let again = try eventually(timeout: 8, "the second alert") { try session.alerts(titled: "Tea").first { $0.time > pressed } }
        #expect(again.time - pressed >= 1.8, "it alerted again only after the 2 s snooze")
        #expect(again.time - pressed < 5)

        // Stop ends the timer and withdraws the alert.
        try session.press(label: "Stop", on: again.id)
        _ = try eventually("the stopped timer to end") { try session.cliJSON([AlarmJSON].self, "list").isEmpty ? true : nil }
        _ = try eventually("the second alert to be withdrawn") {
            try session.events.first { $0.event == "closed" && $0.id == again.id }
        }
    }

    /// A dismissed alert comes back at once: checked on virtual time
    /// (ShellsOnVirtualTimeTests.aDismissedAlertComesBackAtOnceAndStopWithdrawsIt). Here, the
    /// CLI's Stop by a short prefix of the id withdraws the alert.
    @Test func cliStopWithdrawsTheAlert() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Eggs")
        let alert = try eventually(timeout: 20, "the Eggs alert") { try session.alerts(titled: "Eggs").first }
        let stop = try session.cli("stop", String(timer.id.prefix(6)))
        #expect(stop.status == 0, "\(stop.stderr)")
        #expect(stop.stdout.contains("it has ended"))
        _ = try eventually("the alert to be withdrawn after the CLI's stop") {
            try session.events.first { $0.event == "closed" && $0.id == alert.id }
        }
    }

    @Test func serverWithoutActionsGetsInstructionsInTheBody() throws {
        let session = try TestSession(notifications: .recording(profile: "plain"))
        try session.startAgent()
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Plain")
        let alert = try eventually(timeout: 20, "the Plain alert") { try session.alerts(titled: "Plain").first }
        #expect(alert.body?.contains("reveille stop \(timer.id.prefix(8))") == true)
        #expect(alert.body?.contains("reveille snooze \(timer.id.prefix(8))") == true)
    }
}
