/// Which of an alarm's buttons was pressed: the notification's action key, the button name
/// in the agent's `ActionInvoked` signal, and what `AlarmManager.alarmActions` reports.
public enum AlarmButtonRole: String, Hashable, Sendable, CaseIterable {
    /// The alert's Stop button.
    case stop
    /// The alert's second button: Snooze, Repeat, or a custom one (open:, run:).
    case secondary
    /// A countdown's Pause button.
    case pause
    /// A paused countdown's Resume button.
    case resume
    /// A countdown's Cancel button.
    case cancel
}
