import Foundation
import Testing
import ReveilleCore
import ReveilleTestSupport

/// Each real server's Do Not Disturb, switched as a person switches it: the reach the agent
/// computes (its log), and what becomes of the alert. KDE Plasma is not installed here and
/// GNOME Shell's needs dconf under the shell: both in process (`NotificationReachTests`).
@Suite("Do Not Disturb on real servers", .serialized, .waitsOnItsOwnThread)
struct DoNotDisturbTests {
    /// Waits until the agent has logged `reach` as the notifications' reach.
    func reach(_ session: TestSession, _ reach: String, _ why: String) throws {
        _ = try eventually(timeout: 10, "the reach to be \(reach): \(why)") { session.loggedReach == reach ? true : nil }
    }

    @Test func mateDropsTheAlertUnseenAndItIsShownWhenDoNotDisturbEnds() throws {
        let session = try TestSession(notifications: .mate, audio: .none)
        try session.makeActivatable("ca.desrt.dconf")
        try session.gsettings(set: "org.mate.NotificationDaemon", "do-not-disturb", "true")
        try session.startAgent()
        let timer = try session.ringTimer("1s", "Tea")
        try reach(session, "unseen", "MATE drops every notification in Do Not Disturb")
        try session.gsettings(set: "org.mate.NotificationDaemon", "do-not-disturb", "false")
        try reach(session, "answerable", "Do Not Disturb off")
        _ = try eventually("the dropped alert shown again") {
            try session.windows(classname: "mate-notification-daemon").count == 1 ? true : nil
        }
        #expect(!session.agentLogLines(containing: "showing them again").isEmpty)
        #expect(try session.cli("stop", timer.id).status == 0)
    }

    @Test func lxqtDropsTheAlertUnseenAndItIsShownWhenDoNotDisturbEnds() throws {
        let session = try TestSession(notifications: .lxqt, audio: .none)
        try session.writeConfig("lxqt/notifications.conf", "[General]\ndoNotDisturb=true\n")
        try session.startAgent()
        let timer = try session.ringTimer("1s", "Tea")
        try reach(session, "unseen", "LXQt drops every notification in Do Not Disturb")
        try session.writeConfig("lxqt/notifications.conf", "[General]\ndoNotDisturb=false\n")
        try reach(session, "answerable", "Do Not Disturb off")
        _ = try eventually("the dropped alert shown again") {
            try session.windows(classname: "lxqt-notificationd").count == 1 ? true : nil
        }
        #expect(try session.cli("stop", timer.id).status == 0)
    }

    @Test func dunstPausedHoldsTheAlertBack() throws {
        let session = try TestSession(notifications: .dunst, audio: .none)
        try session.startAgent()
        _ = try session.ringTimer("1s", "Tea")
        try reach(session, "seenOnly", "dunst's buttons are in a menu")
        #expect(try session.dunstctl("set-paused", "true").status == 0)
        try reach(session, "unseen", "dunst paused shows nothing")
        #expect(try session.dunstctl("set-paused", "false").status == 0)
        try reach(session, "seenOnly", "dunst shows what it held back")
        _ = try eventually("the alert on screen") { try session.dunstctl("count", "displayed").stdout.trimmed() == "1" ? true : nil }
    }

    @Test func xfce4NotifydShowsCriticalsWithButtonsInDoNotDisturb() throws {
        let session = try TestSession(notifications: .xfce4Notifyd, audio: .none)
        try session.makeActivatable("org.xfce.Xfconf")
        try session.startAgent()
        _ = try session.ringTimer("1s", "Tea")
        try reach(session, "answerable", "buttons")
        let xfconf = try Subprocess.find("xfconf-query", package: "xfconf")
        let set = try Subprocess.run(xfconf, ["-c", "xfce4-notifyd", "-p", "/do-not-disturb", "-n", "-t", "bool", "-s", "true"],
                                     environment: session.environment)
        #expect(set.status == 0, "\(set.stderr)")
        _ = try eventually("the agent to follow xfconf") {
            session.agentLogLines(containing: "Do Not Disturb is on").isEmpty ? nil : true
        }
        // xfce4-notifyd 0.7.3 shows criticals with their buttons in Do Not Disturb (0.9 withdraws them).
        #expect(session.loggedReach == "answerable")
        // A new alert in Do Not Disturb, answered with its Stop button.
        // Two buttons (a snooze of an hour offers no longer one): xfce's buttons are as wide as
        // their labels, and the click finds Stop by its place from the right.
        let timer = try session.ringTimer("1s", "Eggs", "--snooze", "1h")
        // xfce4-notifyd stacks the newest on top.
        let bubble = try eventually("the new alert's bubble") { try session.xfceBubbles().count == 2 ? session.xfceBubbles().first : nil }
        try session.clickXfceButton(bubble, fromRight: 1)
        _ = try eventually("Stop, pressed in Do Not Disturb, to end it") {
            try session.cliJSON([AlarmJSON].self, "list").contains { $0.id == timer.id } ? nil : true
        }
    }

    @Test func swayncShowsCriticalsInDoNotDisturb() throws {
        let session = try TestSession(notifications: .swaync, audio: .none)
        try session.startAgent()
        _ = try session.ringTimer("1s", "Tea")
        try reach(session, "answerable", "buttons")
        #expect(try session.swayncClient("--dnd-on").status == 0)
        _ = try eventually("the agent to hear swaync's Do Not Disturb") {
            session.agentLogLines(containing: "Do Not Disturb is on").isEmpty ? nil : true
        }
        #expect(session.loggedReach == "answerable", "swaync lets criticals through")
    }

    /// GNOME Shell's switch, read through GSettings and dconf as the shell reads it (the
    /// recording server answers as GNOME Shell: the shell itself runs on the memory backend).
    @Test func gnomeShowsCriticalsWithButtonsWhenBannersAreOff() throws {
        let session = try TestSession(notifications: .recording(profile: "gnome"), audio: .none)
        try session.makeActivatable("ca.desrt.dconf")
        try session.startAgent()
        try reach(session, "answerable", "buttons")
        try session.gsettings(set: "org.gnome.desktop.notifications", "show-banners", "false")
        _ = try eventually("the agent to follow GNOME's setting") {
            session.agentLogLines(containing: "Do Not Disturb is on").isEmpty ? nil : true
        }
        #expect(session.loggedReach == "answerable", "GNOME Shell shows criticals, buttons and all, in Do Not Disturb")
    }

    @Test func makoInADoNotDisturbModeHidesTheAlert() throws {
        let session = try TestSession(notifications: .mako, audio: .none)
        try session.writeConfig("mako/config", "[mode=do-not-disturb]\ninvisible=1\n")
        try session.startAgent()
        _ = try session.ringTimer("1s", "Tea")
        try reach(session, "seenOnly", "mako draws no buttons")
        #expect(try session.makoctl("mode", "-a", "do-not-disturb").status == 0)
        try reach(session, "unseen", "mako's mode makes it invisible (read while the alarm rings)")
        #expect(try session.makoctl("mode", "-r", "do-not-disturb").status == 0)
        try reach(session, "seenOnly", "the mode left")
    }
}
