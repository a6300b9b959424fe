import FoundationEssentials

/// Whether the next alarm will wake the machine from suspend, as the agent's `WakeStatus`
/// answers (the user's tools only).
package struct WakeStatus: Codable, Equatable, Sendable {
    /// Whether a suspend now would set the machine to wake for the next alarm.
    package var wakes: Bool
    /// Why not, when it would not.
    package var reason: String?
    /// When the machine would wake.
    package var wakeAt: Date?
    /// The alarm it would wake for.
    package var alarmID: UUID?
    /// Seconds before the alarm that the machine wakes.
    package var lead: TimeInterval
    /// `reason` holds for every alarm, not only the next one: no helper, no logind, no system
    /// bus, waking turned off, or the last suspend's wake-up refused (polkit).
    package var blocked: Bool?
    /// How the machine is woken; `nil` when it cannot be.
    package var mechanism: WakeMechanism?
    /// How a ringing alarm can be answered in this session (`reveille status` shows it beside the wake-up).
    package var answering: SessionAnswering?

    package init(wakes: Bool, reason: String? = nil, wakeAt: Date? = nil, alarmID: UUID? = nil, lead: TimeInterval,
                 blocked: Bool? = nil, mechanism: WakeMechanism? = nil) {
        self.wakes = wakes
        self.reason = reason
        self.wakeAt = wakeAt
        self.alarmID = alarmID
        self.lead = lead
        self.blocked = blocked
        self.mechanism = mechanism
    }
}

/// How the agent wakes the machine from suspend.
package enum WakeMechanism: String, Codable, Sendable {
    /// A kernel alarm timer the agent keeps armed itself (`CAP_WAKE_ALARM`).
    case alarmTimer = "alarm-timer"
    /// The privileged wake helper, which sets the RTC wake-up when the machine suspends.
    case wakeHelper = "wake-helper"
}
