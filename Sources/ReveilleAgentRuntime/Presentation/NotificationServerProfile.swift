/// What the running notification server says of itself (`GetServerInformation`,
/// `GetCapabilities`) and what it is known to do that the specification does not say.
package struct NotificationServerProfile: Equatable, Sendable {
    package var name: String
    package var version: String
    package var capabilities: Set<String>

    package init(name: String, version: String, capabilities: Set<String>) {
        (self.name, self.version, self.capabilities) = (name, version, capabilities)
    }

    package var hasActions: Bool { capabilities.contains("actions") }
    package var readsMarkup: Bool { capabilities.contains("body-markup") }
    /// The server as the quirk table knows it; `nil` for one it does not.
    package var known: KnownServer? { KnownServer(name: name, version: version) }
    package var quirks: Set<Quirk> { known?.quirks ?? [] }

    /// What a critical notification (an alert) becomes while the server's Do Not Disturb is on.
    package var criticalInDoNotDisturb: KnownServer.CriticalInDoNotDisturb {
        known?.criticalInDoNotDisturb(version: version) ?? .shownWithButtons
    }

    /// What the close `reason` a server reported means: MATE's daemon reports a click on × as 1.
    package func closeReason(_ reported: UInt32) -> UInt32 {
        // Reveille's alarm notifications never expire, so "expired" from this server is a person's ×.
        quirks.contains(.dismissReportedAsExpired) && reported == 1 ? 2 : reported
    }

    /// Server behaviour that changes what Reveille sends, or that its design relies on.
    package enum Quirk: String, Sendable {
        /// A notification with a `value` hint is drawn as a bare gauge: no title, no text, no
        /// buttons. Reveille leaves the hint out; the text says the time left.
        case valueHintHidesEverything = "value-hint-hides-everything"
        /// The notification is closed after any action, with reason 2 (dismissed), and its id
        /// may be given to the next notification. Reveille forgets the id once a button is pressed.
        case closesAfterAction = "closes-after-action"
        /// A notification with the same app, summary, body, icon and urgency as one on screen
        /// replaces it and the older one closes as "expired". Each alarm's body carries its own
        /// id, so two alarms never stack.
        case stacksDuplicates = "stacks-duplicates"
        /// No buttons are drawn though `actions` is announced: they are reached through a menu
        /// (dunst's runs dmenu, which may not be installed; mako's through `makoctl`) and a click
        /// dismisses. The reach is `.seenOnly`, so every alert's body says how to stop it from a
        /// terminal and the alert window opens.
        case actionsNeedMenu = "actions-need-menu"
        /// A critical notification is expanded, with its buttons, only when its banner first
        /// shows; one that replaces a banner on screen stays collapsed. Alerts are always fresh
        /// notifications, never updates of a countdown.
        case collapsesReplacedBanners = "collapses-replaced-banners"
        /// With `action-icons`, buttons show an icon named by the action key instead of the
        /// label. Reveille never sends `action-icons`.
        case iconsReplaceLabels = "icons-replace-labels"
        /// After a `CloseNotification` the closed window stays on screen and no later
        /// notification appears until the server restarts. Reveille never closes a notification
        /// here: an alert replaces its countdown in place, and what must go is replaced by a
        /// copy that expires at once (expiring does not wedge it).
        case closeWedgesServer = "close-wedges-server"
        /// A click on × is reported as reason 1 (expired), not 2 (dismissed). Reveille's alarm
        /// notifications never expire, so it counts a 1 from this server as a dismissal.
        case dismissReportedAsExpired = "dismiss-reported-as-expired"
        /// A fresh notification sent while the one it replaces is still on screen does not get
        /// a banner of its own once the old one is closed (seen with an alert after a snooze's
        /// countdown: 5 of 6 runs showed no banner to click). Here the old one is closed first
        /// and the fresh one sent after; everywhere else the fresh one comes first (swaync
        /// 0.7.3 left its popup out the other way round).
        case closeBeforeFresh = "close-before-fresh"
    }
}

/// The nine servers whose behaviour Reveille knows, each seen on Debian 12 (the end-to-end
/// tests run all but KDE Plasma; see `NineServersTests`, `DoNotDisturbTests`).
package enum KnownServer: String, CaseIterable, Sendable {
    case gnomeShell, plasma, xfce4Notifyd, dunst, mako, swaync, mate, lxqt, notificationDaemon

    /// By `GetServerInformation`'s name; MATE's daemon and notification-daemon share theirs
    /// (and differ in vendor, which the profile does not keep): MATE's versions are 1.x,
    /// notification-daemon's 3.x.
    package init?(name: String, version: String) {
        switch (name, version) {
        case ("gnome-shell", _): self = .gnomeShell
        case ("Plasma", _): self = .plasma
        case ("Xfce Notify Daemon", _): self = .xfce4Notifyd
        case ("dunst", _): self = .dunst
        case ("mako", _): self = .mako
        case ("SwayNotificationCenter", _): self = .swaync
        case ("lxqt-notificationd", _): self = .lxqt
        case ("Notification Daemon", let version) where version.hasPrefix("1."): self = .mate
        case ("Notification Daemon", _): self = .notificationDaemon
        default: return nil
        }
    }

    /// Each server's entry in the quirk table.
    package var quirks: Set<NotificationServerProfile.Quirk> {
        switch self {
        // GNOME Shell 43: a replaced banner stays collapsed, without its buttons; a fresh one
        // sent while the old is on screen gets no banner once the old is closed.
        case .gnomeShell: [.collapsesReplacedBanners, .closeBeforeFresh]
        // KDE Plasma 5.27: as the specification says (no `value` bar drawn: only text).
        case .plasma: []
        // xfce4-notifyd 0.7.3: a gauge for `value`, closes after an action, icons for labels.
        case .xfce4Notifyd: [.valueHintHidesEverything, .closesAfterAction, .iconsReplaceLabels]
        // dunst 1.9: stacks equal texts, buttons only in a dmenu menu.
        case .dunst: [.stacksDuplicates, .actionsNeedMenu]
        // mako 1.7: announces `actions` but draws no button (`makoctl invoke`/`menu` only).
        case .mako: [.actionsNeedMenu]
        // swaync 0.7.3 left an alert's popup out when the countdown's close and the alert's
        // Notify came in one millisecond: servers get the alert first and the countdown's
        // close after its answer (`PresentationMachine.present`), GNOME Shell apart.
        case .swaync: []
        // mate-notification-daemon 1.26: × reported as expired; icons for labels.
        case .mate: [.dismissReportedAsExpired, .iconsReplaceLabels]
        // lxqt-notificationd 1.2: as the specification says outside Do Not Disturb.
        case .lxqt: []
        // notification-daemon 3.20: a close wedges it; icons for labels.
        case .notificationDaemon: [.closeWedgesServer, .iconsReplaceLabels]
        }
    }

    /// What a critical notification becomes in Do Not Disturb.
    package enum CriticalInDoNotDisturb: Equatable, Sendable {
        /// Shown as usual, buttons and all.
        case shownWithButtons
        /// Shown, but without buttons.
        case shownWithoutButtons
        /// Not shown while Do Not Disturb lasts, shown when it ends (dunst paused, mako's
        /// invisible mode).
        case heldBack
        /// Dropped for good and without a `NotificationClosed`: Reveille shows it again when
        /// Do Not Disturb ends.
        case dropped
    }

    /// Published and seen behaviour (Debian 12; xfce4-notifyd 0.9 withdraws actions in DND).
    package func criticalInDoNotDisturb(version: String) -> CriticalInDoNotDisturb {
        switch self {
        case .gnomeShell, .plasma, .swaync, .notificationDaemon: .shownWithButtons
        case .xfce4Notifyd: version.split(separator: ".").compactMap { Int($0) }.lexicographicallyPrecedes([0, 9]) ? .shownWithButtons : .shownWithoutButtons
        case .dunst, .mako: .heldBack
        case .mate, .lxqt: .dropped
        }
    }

    /// Seconds a server that drops notifications in Do Not Disturb may take to read that it
    /// ended (lxqt-notificationd 1.2: between 0.5 and 1 s after its file changed).
    package static let doNotDisturbEndReadWithin = 2.0

    /// Where the server keeps its Do Not Disturb state, as `DoNotDisturbWatch` reads it.
    package var doNotDisturbSource: DoNotDisturbSource {
        switch self {
        case .gnomeShell: .gSettings(schema: "org.gnome.desktop.notifications", key: "show-banners", onWhen: false)
        case .plasma: .busProperty(interface: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications", name: "Inhibited")
        case .xfce4Notifyd: .xfconf(channel: "xfce4-notifyd", property: "/do-not-disturb")
        case .dunst: .busProperty(interface: "org.dunstproject.cmd0", path: "/org/freedesktop/Notifications", name: "paused")
        case .mako: .makoModes
        case .swaync: .swayncSignal
        case .mate: .gSettings(schema: "org.mate.NotificationDaemon", key: "do-not-disturb", onWhen: true)
        case .lxqt: .lxqtConfig
        case .notificationDaemon: .none
        }
    }
}

/// How a server's Do Not Disturb state is read and followed.
package enum DoNotDisturbSource: Equatable, Sendable {
    /// None: the server has no Do Not Disturb.
    case none
    /// A boolean GSettings key (GLib's change signal); DND is on while it equals `onWhen`.
    case gSettings(schema: String, key: String, onWhen: Bool)
    /// A boolean D-Bus property of the server itself (`PropertiesChanged`).
    case busProperty(interface: String, path: String, name: String)
    /// A boolean in xfconf (`org.xfce.Xfconf`'s `PropertyChanged`).
    case xfconf(channel: String, property: String)
    /// swaync's `GetDnd` and its `OnDndToggle` signal.
    case swayncSignal
    /// mako's modes (`fr.emersion.Mako.ListModes`): on while `do-not-disturb` is among them.
    /// mako announces no change, so they are asked again every few seconds while an alarm rings.
    case makoModes
    /// `doNotDisturb` in `$XDG_CONFIG_HOME/lxqt/notifications.conf`, followed by a file monitor.
    case lxqtConfig
}
