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

    package init(wakes: Bool, reason: String? = nil, wakeAt: Date? = nil, alarmID: UUID? = nil, lead: TimeInterval) {
        self.wakes = wakes
        self.reason = reason
        self.wakeAt = wakeAt
        self.alarmID = alarmID
        self.lead = lead
    }
}
