/// What to do when an alert's notification closes while its alarm still rings: show it again
/// a few times with growing pauses, never in a loop.
///
/// A person who dismisses an alert without answering gets it back (the sound goes on, and the
/// buttons are the easy way to stop it), but a server that keeps closing it (one that expires
/// everything, or stacks it away) must not make Reveille send Notify forever.
package struct AlertReshowPolicy: Equatable, Sendable {
    /// The pauses before each re-show of one alert; after the last, the alert stays away
    /// (the alarm rings on to its ring limit, and every alert said how to stop it from a terminal).
    package static let pauses: [Double] = [0.25, 2, 10, 30, 60]

    /// How many times this alert was shown again.
    package private(set) var reshows = 0

    package enum Decision: Equatable, Sendable {
        /// The close answers itself: a button was pressed and the alarm's change follows.
        case ignore
        /// Show it again after this many seconds.
        case reshow(after: Double)
        /// Shown again often enough.
        case giveUp
    }

    /// The decision for a close with `reason` (1 expired, 2 dismissed, 3 closed by a call,
    /// 4 other); `afterAction`: a button of this notification was pressed before it closed
    /// (servers such as xfce4-notifyd and GNOME Shell close a notification after an action).
    package mutating func closed(reason: UInt32, afterAction: Bool) -> Decision {
        if afterAction { return .ignore }
        guard reshows < Self.pauses.count else { return .giveUp }
        defer { reshows += 1 }
        // "Expired" for a notification that never expires is the server's own doing (dunst
        // closes a stacked duplicate so): no person is waiting for it, so no hurry either.
        return .reshow(after: reason == 1 ? max(10, Self.pauses[reshows]) : Self.pauses[reshows])
    }

    /// The decision when the server could not be asked to show it (it did not answer).
    package mutating func failedToShow() -> Decision {
        closed(reason: 4, afterAction: false)
    }
}
