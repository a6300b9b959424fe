import FoundationEssentials
import ReveilleModel

/// What the person chose for the alarms they make without saying (the agent's `sound`, `snooze`
/// and `ringLimit` settings). Applied once, when a client asks for such an alarm (the agent's
/// `Schedule`): it then keeps what it was given, a later change of the setting moves no alarm
/// already set, and an alarm the sync brings from another computer is as it was made there.
package struct NewAlarmDefaults: Sendable, Equatable {
    /// A sound's name or a file's path; `nil`, Reveille's own alarm sound.
    package var sound: String?
    /// Seconds Snooze waits.
    package var snooze: TimeInterval
    /// Seconds an unanswered alert rings.
    package var ringLimit: TimeInterval

    package init(sound: String? = nil, snooze: TimeInterval = 540, ringLimit: TimeInterval = RingOptions.defaultRingLimit) {
        self.sound = sound
        self.snooze = snooze
        self.ringLimit = ringLimit
    }

    /// `request` with what it leaves out taken from these: the default sound, no ring limit of its
    /// own, and a snooze (or repeat) button without its length (`postAlert`). The person's own
    /// alarms only (`appID`, the user's tools): an app's alarm is as the app asked, by AlarmKit's
    /// rules (its pre-alert stands in for a missing snooze length).
    package func filling(_ request: AlarmRequest, appID: String) -> AlarmRequest {
        guard appID == ClientIdentity.userAppID else { return request }
        var request = request
        if request.sound == .default, let sound { request.sound = .named(sound) }
        // Without a limit, an alarm rings `defaultRingLimit`: the setting at its default is left
        // unsaid. What the alarm says wins: a fade longer than the limit rings to its end.
        if request.ring.ringLimit == nil {
            let limit = max(ringLimit, request.ring.fadeIn ?? 0)
            if limit != RingOptions.defaultRingLimit { request.ring.ringLimit = limit }
        }
        return fillingSnooze(request, appID: appID)
    }

    /// Whether `request` is one of the person's with a snooze (or repeat) button but no length.
    package static func lacksSnoozeLength(_ request: AlarmRequest, appID: String) -> Bool {
        appID == ClientIdentity.userAppID && request.presentation.alert.secondaryButtonBehavior == .countdown
            && request.countdownDuration?.postAlert == nil
    }

    /// `request` with a snooze (or repeat) button but no length given the `snooze` default: for
    /// a new alarm, and for a change that gives an alarm such a button (`reveille edit
    /// --secondary snooze` of one that had none). The person's own alarms only.
    package func fillingSnooze(_ request: AlarmRequest, appID: String) -> AlarmRequest {
        guard Self.lacksSnoozeLength(request, appID: appID) else { return request }
        var request = request
        request.countdownDuration = .init(preAlert: request.countdownDuration?.preAlert, postAlert: snooze)
        return request
    }
}
