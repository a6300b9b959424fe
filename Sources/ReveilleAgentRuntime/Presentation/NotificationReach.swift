
/// How far a notification shown now reaches the person. Where it is not `.answerable` while
/// an alarm rings, the alert window opens (settings: `alertWindow`).
package enum NotificationReach: Equatable, Sendable {
    /// Shown, with buttons a click answers.
    case answerable
    /// Shown, but its buttons cannot be clicked: the server draws none, or reaches them only
    /// through a menu that may not be installed, or withdraws them in Do Not Disturb.
    case seenOnly
    /// Not shown at all: no server, or Do Not Disturb holds it back or drops it.
    case unseen

    /// The reach of a server with `profile` (`nil`: none runs nor is activatable), from what it
    /// says of itself, its known behaviour, and whether its Do Not Disturb is on.
    package static func of(_ profile: NotificationServerProfile?, doNotDisturb: Bool = false) -> NotificationReach {
        guard let profile else { return .unseen }
        let reach: NotificationReach = profile.hasActions && !profile.quirks.contains(.actionsNeedMenu) ? .answerable : .seenOnly
        guard doNotDisturb else { return reach }
        switch profile.criticalInDoNotDisturb {
        case .shownWithButtons: return reach
        case .shownWithoutButtons: return .seenOnly
        case .heldBack, .dropped: return .unseen
        }
    }

    /// Whether the change from `old` to `new` is the end of a Do Not Disturb that dropped the
    /// alerts shown meanwhile (MATE, LXQt: without a signal), so they must be shown again.
    package static func endsDroppingDoNotDisturb(from old: NotificationReach?, to new: NotificationReach,
                                         on profile: NotificationServerProfile?) -> Bool {
        old == .unseen && new != .unseen && profile?.criticalInDoNotDisturb == .dropped
    }
}
