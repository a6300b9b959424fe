import FoundationEssentials

/// An alarm the agent owns, with AlarmKit's shape: an identifier, when it alerts,
/// the countdowns around the alert, and the state it is in.
public struct Alarm: Identifiable, Codable, Hashable, Sendable {
    public var id: UUID
    /// When the alarm alerts; `nil` for a timer, which alerts after `countdownDuration.preAlert`.
    public var schedule: Schedule?
    public var countdownDuration: CountdownDuration?
    public var state: State

    public init(id: UUID, schedule: Schedule?, countdownDuration: CountdownDuration?, state: State) {
        self.id = id
        self.schedule = schedule
        self.countdownDuration = countdownDuration
        self.state = state
    }

    /// The four states of AlarmKit's alarm.
    public enum State: String, Codable, Hashable, Sendable, CaseIterable {
        /// Waiting for its schedule.
        case scheduled
        /// Counting down to an alert: a timer, a pre-alert, or a snooze (post-alert).
        case countdown
        /// A countdown that the user paused.
        case paused
        /// Ringing, waiting for an answer.
        case alerting
    }

    /// The countdowns before and after an alert.
    public struct CountdownDuration: Codable, Hashable, Sendable {
        /// The countdown before the alert; for a timer (no schedule), its length.
        public var preAlert: TimeInterval?
        /// The countdown started by the secondary button (snooze or repeat).
        public var postAlert: TimeInterval?

        public init(preAlert: TimeInterval?, postAlert: TimeInterval?) {
            self.preAlert = preAlert
            self.postAlert = postAlert
        }

        /// The length of a snooze or repeat: `postAlert`, else `preAlert` (AlarmKit: "if the
        /// value is nil we will use the preAlert duration for post-alarm countdowns").
        public var postAlertOrPreAlert: TimeInterval? { postAlert ?? preAlert }
    }

    /// Whether the alarm comes back after it is stopped.
    public var isRepeating: Bool { schedule?.isRepeating ?? false }
}
