/// What the running notification server says of itself (`GetServerInformation`,
/// `GetCapabilities`) and what it is known to do that the specification does not say.
struct NotificationServerProfile: Equatable, Sendable {
    var name: String
    var version: String
    var capabilities: Set<String>

    var hasActions: Bool { capabilities.contains("actions") }
    var readsMarkup: Bool { capabilities.contains("body-markup") }
    var quirks: Set<Quirk> { Self.knownQuirks[name] ?? [] }

    /// Server behaviour that changes what Reveille sends, or that its design relies on.
    enum Quirk: String, Sendable {
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
        /// Buttons are reached through a context menu that runs dmenu, which may not be
        /// installed; a click dismisses. Every alert's body says how to stop it from a terminal.
        case actionsNeedMenu = "actions-need-menu"
        /// A critical notification is expanded, with its buttons, only when its banner first
        /// shows; one that replaces a banner on screen stays collapsed. Alerts are always fresh
        /// notifications, never updates of a countdown.
        case collapsesReplacedBanners = "collapses-replaced-banners"
        /// With `action-icons`, buttons show an icon named by the action key instead of the
        /// label. Reveille never sends `action-icons`.
        case iconsReplaceLabels = "icons-replace-labels"
    }

    /// By `GetServerInformation`'s name. Seen on Debian 12 (dunst 1.9.0, xfce4-notifyd 0.7.3,
    /// notification-daemon 3.20, GNOME Shell 43.9); the end-to-end tests run the real dunst and
    /// xfce4-notifyd, and docs/desktops.md says how GNOME Shell was checked by hand.
    static let knownQuirks: [String: Set<Quirk>] = [
        "Xfce Notify Daemon": [.valueHintHidesEverything, .closesAfterAction, .iconsReplaceLabels],
        "dunst": [.stacksDuplicates, .actionsNeedMenu],
        "gnome-shell": [.collapsesReplacedBanners],
        "Notification Daemon": [.iconsReplaceLabels],
    ]
}
