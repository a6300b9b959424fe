import FoundationEssentials

/// What an alarm's presentation shows right now (AlarmKit's `AlarmPresentationState`):
/// the alert, a running countdown, or a paused one.
public struct AlarmPresentationState: Codable, Hashable, Sendable {
    public var alarmID: Alarm.ID
    public var mode: Mode

    public init(alarmID: Alarm.ID, mode: Mode) {
        self.alarmID = alarmID
        self.mode = mode
    }

    /// The alert, a running countdown, or a paused one.
    public enum Mode: Codable, Hashable, Sendable {
        case alert(Alert)
        case countdown(Countdown)
        case paused(Paused)

        /// Alerting since `time` (its wall-clock time of day).
        public struct Alert: Codable, Hashable, Sendable {
            public var time: Alarm.Schedule.Relative.Time

            public init(time: Alarm.Schedule.Relative.Time) {
                self.time = time
            }
        }

        /// Counting down to `fireDate`: of `totalCountdownDuration`, `previouslyElapsedDuration`
        /// ran before a pause, and the rest has run since `startDate`.
        public struct Countdown: Codable, Hashable, Sendable {
            public var totalCountdownDuration: TimeInterval
            public var previouslyElapsedDuration: TimeInterval
            public var startDate: Date
            public var fireDate: Date

            public init(totalCountdownDuration: TimeInterval, previouslyElapsedDuration: TimeInterval,
                        startDate: Date, fireDate: Date) {
                self.totalCountdownDuration = totalCountdownDuration
                self.previouslyElapsedDuration = previouslyElapsedDuration
                self.startDate = startDate
                self.fireDate = fireDate
            }
        }

        /// Paused with `totalCountdownDuration - previouslyElapsedDuration` left.
        public struct Paused: Codable, Hashable, Sendable {
            public var totalCountdownDuration: TimeInterval
            public var previouslyElapsedDuration: TimeInterval

            public init(totalCountdownDuration: TimeInterval, previouslyElapsedDuration: TimeInterval) {
                self.totalCountdownDuration = totalCountdownDuration
                self.previouslyElapsedDuration = previouslyElapsedDuration
            }
        }
    }
}
