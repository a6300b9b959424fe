import Foundation
import ReveilleCore
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// Each real server's Do Not Disturb, switched as a person switches it: the reach the agent
/// computes (its log), and what becomes of the alert: answered with a click on the server's
/// own button where it shows one (KDE Plasma here, GNOME Shell in `GnomeShellTests`), or on
/// the alert window's where it shows none (mako here; dunst paused and no server at all in
/// `AlertWindowTests`).
@Suite("Do Not Disturb on real servers", .waitsOnItsOwnThread)
struct DoNotDisturbTests {
    /// Waits until the agent has logged `reach` as the notifications' reach.
    func reach(_ session: TestSession, _ reach: String, _ why: String) throws {
        _ = try eventually(timeout: 30, "the reach to be \(reach): \(why)") { session.loggedReach == reach ? true : nil }
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
        // xfce4-notifyd 0.7 (Debian 12) shows criticals with their buttons in Do Not Disturb;
        // 0.9 (Debian 13) shows them without their buttons, so the alert window answers there.
        guard !DesktopRelease.version(of: "xfce4-notifyd", isAtLeast: [0, 9]) else {
            #expect(session.loggedReach == "seenOnly", "xfce4-notifyd 0.9 withdraws the buttons in Do Not Disturb")
            let timer = try session.ringTimer("1s", "Eggs", "--snooze", "1h")
            let window = try eventually(timeout: 60, "the alert window in Do Not Disturb") { try session.windows(classname: "reveille-alert").first }
            try session.clickStop(in: window, on: .x, until: "Stop, clicked in the window in Do Not Disturb, to end it") {
                try !session.cliJSON([AlarmJSON].self, "list").contains { $0.id == timer.id }
            }
            return
        }
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
        #expect(session.agentLogLines(containing: "opened the alert window").isEmpty, "the bubbles answer: no window")
    }

    @Test func swayncShowsCriticalsInDoNotDisturbAndTheirStopEndsThem() throws {
        let session = try TestSession(notifications: .swaync, audio: .none)
        try session.startAgent()
        let first = try session.ringTimer("1s", "Tea")
        try reach(session, "answerable", "buttons")
        #expect(try session.swayncClient("--dnd-on").status == 0)
        _ = try eventually("the agent to hear swaync's Do Not Disturb") {
            session.agentLogLines(containing: "Do Not Disturb is on").isEmpty ? nil : true
        }
        #expect(session.loggedReach == "answerable", "swaync lets criticals through")
        #expect(try session.cli("stop", first.id).status == 0)
        _ = try eventually("no popup left") { try session.popupPixels() < SwayncTests.popup ? true : nil }
        // A new alert in Do Not Disturb pops up, alone, with two buttons (a snooze of an hour
        // offers no longer one) in equal halves: Stop is the left one on the 1280×720 screen.
        let timer = try session.ringTimer("1s", "Eggs", "--snooze", "1h")
        _ = try eventually(timeout: 20, "Stop on the new alert's popup to end it") { () -> Bool? in
            guard try session.popupPixels() > SwayncTests.popup else { return nil }
            try session.clickOnSway(x: 911, y: 114)
            return (try? eventually(timeout: 2, "the timer gone") {
                try session.cliJSON([AlarmJSON].self, "list").contains { $0.id == timer.id } ? nil : true
            }) ?? nil
        }
        #expect(session.agentLogLines(containing: "opened the alert window").isEmpty, "the popups answer: no window on sway")
    }

    /// GNOME Shell's switch, read through GSettings and dconf as the shell reads it, the
    /// recording server answering as GNOME Shell (fast; the real shell in Do Not Disturb is
    /// `GnomeShellTests.withBannersOffTheAlertComesWithItsButtonsAndNoWindowAndItsStopEndsIt`).
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

    @Test func plasmaInhibitedShowsTheAlertWithButtonsAndNoWindowAndItsStopEndsIt() throws {
        let session = try TestSession(notifications: .none, audio: .none)
        try session.startKDEPlasma()
        try session.inhibitPlasmaNotifications()
        try session.startAgent()
        try session.waitForAgentLog("the notification server's Do Not Disturb is on")
        // Two buttons, Stop and Snooze (a snooze of an hour offers no longer one), in that order.
        _ = try session.ringTimer("1s", "Wake up", "--snooze", "1h")
        try reach(session, "answerable", "Plasma shows criticals with their buttons while inhibited")
        let signals = try session.monitorNotificationSignals()
        // Inhibited, Plasma shows no other popup than a critical one: the alert's.
        _ = try eventually(timeout: 20, "Stop on the alert's popup to end the timer") { () -> Bool? in
            guard let popup = try session.plasmaPopups().first else { return nil }
            let buttons = try session.plasmaButtons(on: popup)
            guard buttons.count == 2 else { return nil }
            try session.click(x: buttons[0].x + buttons[0].width / 2, y: buttons[0].y + buttons[0].height / 2)
            return (try? eventually(timeout: 1.5, "the timer gone") {
                try session.cliJSON([AlarmJSON].self, "list").isEmpty ? true : nil
            }) ?? nil
        }
        #expect(signals().contains(/ActionInvoked \(uint32 \d+, 'stop'\)/), "the popup's Stop button: \(signals())")
        _ = try eventually("the popup to close") { try session.plasmaPopups().isEmpty ? true : nil }
        // The session has a display: a window would have opened had the agent wanted one.
        #expect(session.display != nil)
        #expect(session.agentLogLines(containing: "opened the alert window").isEmpty)
        #expect(session.agentLogLines(containing: "notifications reach the user: ").allSatisfy { $0.hasSuffix(": answerable") })
    }

    @Test func makoInADoNotDisturbModeTheAlertWindowOpensOnSwayAndItsStopSilencesTheAlarm() throws {
        let session = try TestSession(notifications: .mako)
        try session.writeConfig("mako/config", "[mode=do-not-disturb]\ninvisible=1\n")
        try session.startAgent()
        // A countdown's notification starts mako (D-Bus activation); then Do Not Disturb, before the alarm rings.
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "Warm-up")
        _ = try eventually("mako to start") { try session.makoctl("mode", "-a", "do-not-disturb").status == 0 ? true : nil }
        let timer = try session.ringTimer("1s", "Wake up")
        try reach(session, "unseen", "mako's mode makes it invisible")
        _ = try eventually("the alarm's sound stream") { try session.playsSound() ? true : nil }
        // GTK 4 on sway's Wayland socket: the window as sway lays it out.
        let window = try eventually(timeout: 60, "the alert window on sway") { try session.swayWindow(appID: "reveille-alert") }
        try session.clickStop(in: window, on: .sway, until: "Stop in the window to end the timer") {
            try !session.cliJSON([AlarmJSON].self, "list").contains { $0.id == timer.id }
        }
        _ = try eventually("the alarm's sound stream to end") { try session.hasSoundStream() ? nil : true }
        _ = try eventually("the window to close") { try session.swayWindow(appID: "reveille-alert") == nil ? true : nil }
    }
}
