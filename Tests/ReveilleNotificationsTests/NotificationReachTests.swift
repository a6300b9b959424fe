import Foundation
@testable import ReveilleAgentRuntime
@testable import ReveilleNotifications
import Testing

/// Whether a server's notification is seen and answerable, from what it says of itself and
/// whether its Do Not Disturb is on.
@Suite("Notification reach")
struct NotificationReachTests {
    func server(_ name: String, _ capabilities: Set<String>, version: String = "1") -> NotificationServerProfile {
        NotificationServerProfile(name: name, version: version, capabilities: capabilities)
    }

    /// Each of the nine servers as `GetServerInformation` and `GetCapabilities` answer on Debian 12.
    static let nine: [KnownServer: NotificationServerProfile] = [
        .gnomeShell: .init(name: "gnome-shell", version: "43.9", capabilities: ["actions", "body", "body-markup", "persistence"]),
        .plasma: .init(name: "Plasma", version: "5.27.5", capabilities: ["actions", "body", "body-markup", "inhibitions"]),
        .xfce4Notifyd: .init(name: "Xfce Notify Daemon", version: "0.7.3", capabilities: ["action-icons", "actions", "body"]),
        .dunst: .init(name: "dunst", version: "1.9.0", capabilities: ["actions", "body", "body-markup"]),
        .mako: .init(name: "mako", version: "0.0.0", capabilities: ["actions", "body", "body-markup"]),
        .swaync: .init(name: "SwayNotificationCenter", version: "0.7.3", capabilities: ["actions", "body", "persistence"]),
        .mate: .init(name: "Notification Daemon", version: "1.26.0", capabilities: ["actions", "action-icons", "body"]),
        .lxqt: .init(name: "lxqt-notificationd", version: "1.2.0", capabilities: ["actions", "body", "persistence"]),
        .notificationDaemon: .init(name: "Notification Daemon", version: "3.20.0", capabilities: ["actions", "action-icons", "body"]),
    ]

    @Test func noServerIsUnseen() {
        #expect(NotificationReach.of(nil) == .unseen)
        #expect(NotificationReach.of(nil, doNotDisturb: true) == .unseen)
    }

    @Test func buttonsMakeItAnswerable() {
        #expect(NotificationReach.of(server("gnome-shell", ["actions", "body"])) == .answerable)
    }

    @Test func noActionsOrAMenuOnlyIsSeenOnly() {
        #expect(NotificationReach.of(server("reveille-test-notifyd", ["body"])) == .seenOnly)
        // dunst reaches its buttons only through a dmenu context menu, mako through makoctl.
        #expect(NotificationReach.of(server("dunst", ["actions", "body"])) == .seenOnly)
        #expect(NotificationReach.of(server("mako", ["actions", "body"])) == .seenOnly)
    }

    @Test func eachOfTheNineServersIsKnownByWhatItSaysOfItself() {
        for (known, profile) in Self.nine { #expect(profile.known == known, "\(profile)") }
        #expect(server("some-other-server", ["actions"]).known == nil)
    }

    @Test(arguments: KnownServer.allCases)
    func reachInAndOutOfDoNotDisturb(_ known: KnownServer) throws {
        let profile = try #require(Self.nine[known])
        // Published and seen on Debian 12: criticals pass GNOME's, KDE's and swaync's Do Not
        // Disturb; dunst paused and mako's mode hold them back; MATE and LXQt drop them.
        let expected: (outside: NotificationReach, inside: NotificationReach) = switch known {
        case .gnomeShell, .plasma, .swaync, .lxqt, .mate, .xfce4Notifyd, .notificationDaemon:
            (.answerable, [.gnomeShell, .plasma, .swaync, .xfce4Notifyd, .notificationDaemon].contains(known) ? .answerable : .unseen)
        case .dunst, .mako: (.seenOnly, .unseen)
        }
        #expect(NotificationReach.of(profile) == expected.outside)
        #expect(NotificationReach.of(profile, doNotDisturb: true) == expected.inside)
    }

    @Test func xfce4NotifydWithdrawsButtonsInDoNotDisturbFromVersion09() {
        let newer = server("Xfce Notify Daemon", ["actions", "body"], version: "0.9.1")
        #expect(NotificationReach.of(newer, doNotDisturb: true) == .seenOnly)
        #expect(NotificationReach.of(newer) == .answerable)
    }

    @Test func eachServerSaysWhereItsDoNotDisturbIs() {
        #expect(KnownServer.notificationDaemon.doNotDisturbSource == .none)
        #expect(KnownServer.allCases.filter { $0.doNotDisturbSource == .none } == [.notificationDaemon])
        #expect(KnownServer.gnomeShell.doNotDisturbSource == .gSettings(schema: "org.gnome.desktop.notifications", key: "show-banners", onWhen: false))
        #expect(DoNotDisturbSource.makoModesMeanDoNotDisturb(["default", "do-not-disturb"]))
        #expect(!DoNotDisturbSource.makoModesMeanDoNotDisturb(["default"]))
        #expect(DoNotDisturbSource.lxqtMeansDoNotDisturb("true") && !DoNotDisturbSource.lxqtMeansDoNotDisturb("false")
                && !DoNotDisturbSource.lxqtMeansDoNotDisturb(nil))
    }

    @Test func alertsAreShownAgainOnlyWhenADroppingDoNotDisturbEnds() throws {
        let mate = try #require(Self.nine[.mate]), dunst = try #require(Self.nine[.dunst])
        #expect(NotificationReach.endsDroppingDoNotDisturb(from: .unseen, to: .answerable, on: mate))
        #expect(!NotificationReach.endsDroppingDoNotDisturb(from: .answerable, to: .unseen, on: mate), "it began")
        #expect(!NotificationReach.endsDroppingDoNotDisturb(from: nil, to: .answerable, on: mate), "the first reach")
        #expect(!NotificationReach.endsDroppingDoNotDisturb(from: .unseen, to: .seenOnly, on: dunst), "dunst shows what it held back")
        #expect(!NotificationReach.endsDroppingDoNotDisturb(from: .unseen, to: .answerable, on: nil))
    }

    @Test func mateCountsAnExpiredCloseAsADismissalAndOnlyMate() throws {
        let mate = try #require(Self.nine[.mate])
        #expect(mate.closeReason(1) == 2 && mate.closeReason(3) == 3)
        for (known, profile) in Self.nine where known != .mate { #expect(profile.closeReason(1) == 1, "\(known)") }
    }

    @Test func onlyNotificationDaemonIsNeverSentACloseAndItsTwinIsNot() throws {
        #expect(try #require(Self.nine[.notificationDaemon]).quirks.contains(.closeWedgesServer))
        #expect(!(try #require(Self.nine[.mate]).quirks.contains(.closeWedgesServer)))
        #expect(NotificationClient.expiringAtOnce.timeout == 1 && NotificationClient.expiringAtOnce.actions.isEmpty)
    }

    @Test func theIconIsTheAppsWhereInstalledElseAThemedAlarmClock() {
        #expect(NotificationIcon.name(appIconInstalled: true) == "io.github.reveille.Reveille")
        #expect(NotificationIcon.name(appIconInstalled: false) == "alarm-symbolic")
        #expect(!NotificationIcon.isInstalled("io.github.reveille.Reveille", environment: ["XDG_DATA_HOME": "/nonexistent", "XDG_DATA_DIRS": "/nonexistent"]))
        #expect(NotificationIcon.isInstalled("io.github.reveille.Reveille", environment: ["XDG_DATA_HOME": "/nonexistent", "XDG_DATA_DIRS": "/usr/share"])
                == FileManager.default.fileExists(atPath: "/usr/share/icons/hicolor/scalable/apps/io.github.reveille.Reveille.svg"))
    }
}
