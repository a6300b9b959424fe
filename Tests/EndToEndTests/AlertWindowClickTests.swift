import Foundation
import ReveilleCore
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// Where no notification can be seen (no server at all, dunst paused), the alert window is what
/// the person sees, and a click on its Stop, with the pointer as a person clicks, silences the
/// alarm. Under Xvfb, without a window manager.
@Suite("Alert window, clicked", .serialized, .drawsWindows)
struct AlertWindowClickTests {
    /// Waits for the window of the ringing `timer`, clicks its Stop until the timer is gone, then
    /// waits for the sound and the window to go.
    func stopWithAClick(_ session: TestSession, _ timer: AlarmJSON) throws {
        _ = try eventually("the alarm's sound stream") { try session.playsSound() ? true : nil }
        let window = try eventually(timeout: 60, "the alert window on screen") { try session.windows(classname: "reveille-alert").first }
        try session.clickStop(in: window, on: .x, until: "a click on the window's Stop to end the timer") {
            try !session.cliJSON([AlarmJSON].self, "list").contains { $0.id == timer.id }
        }
        _ = try eventually("the alarm's sound stream to end") { try session.hasSoundStream() ? nil : true }
        _ = try eventually("the window to close") { try session.windows(classname: "reveille-alert").isEmpty ? true : nil }
    }

    @Test func withNoNotificationServerAClickOnTheWindowsStopSilencesTheAlarm() throws {
        let session = try TestSession(notifications: .none)
        try session.startDisplay()
        try session.startAgent()
        let timer = try session.ringTimer("1s", "Wake up")
        _ = try eventually("the agent to find no notification server") { session.loggedReach == "unseen" ? true : nil }
        try stopWithAClick(session, timer)
    }

    @Test func withDunstPausedAClickOnTheWindowsStopSilencesTheAlarm() throws {
        let session = try TestSession(notifications: .dunst)
        try session.startAgent()
        // A countdown's notification starts dunst (D-Bus activation); then paused, before the alarm rings.
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "Warm-up")
        _ = try eventually("dunst to start") { try session.dunstctl("is-paused").status == 0 ? true : nil }
        #expect(try session.dunstctl("set-paused", "true").status == 0)
        let timer = try session.ringTimer("1s", "Bread")
        _ = try eventually("the agent to hear dunst paused") { session.loggedReach == "unseen" ? true : nil }
        #expect(try session.dunstctl("count", "displayed").stdout.trimmed() == "0", "dunst paused shows nothing")
        try stopWithAClick(session, timer)
    }
}
