import FoundationEssentials
import ReveilleModel

/// Why a change to an alarm was refused, with what the refusal names. The rules say no in
/// data; Core words it for the person or app that asked (`AlarmError(_:)`).
package enum AlarmRuleError: Error, Hashable, Sendable {
    /// AlarmKit's own refusal, as apps get it: a malformed request, the limit of alarms.
    case alarmKit(AlarmError)
    /// The schedule names no instant after now.
    case noInstantAfterNow
    /// A length was given to an action that is not a snooze.
    case lengthOnlyForSnooze(AlarmAction)
    /// A snooze length out of range (not finite, not positive, or over `WireLimits.maximumSnooze`).
    case snoozeLength(TimeInterval)
    /// `action` is not allowed in the alarm's state.
    case notAllowed(AlarmAction, alarm: AlarmRecord)
    /// A press of a button the alarm does not show in its state (`AlarmRecord.shownButtons`).
    case buttonNotShown(AlarmButtonRole, alarm: AlarmRecord)
    /// The alarm is disabled: only cancel works on it.
    case disabled(AlarmRecord)
    /// The alarm has no snooze or repeat length.
    case noSnoozeLength(UUID)
    /// Only an alarm waiting for its time can be disabled.
    case cannotDisable(AlarmRecord)
    case notDisabled(AlarmRecord)
    /// A one-time alarm whose time (`due`, as ISO 8601 local time) passed while it was off.
    case dueWhileDisabled(AlarmRecord, due: String)
    /// Only a repeating alarm waiting for its time can skip an occurrence.
    case cannotSkip(AlarmRecord)
    case nothingSkipped(AlarmRecord)
    /// An empty id.
    case noIDGiven
    case noIDMatches(prefix: String)
    /// `prefix` starts several ids (`starts`: their first eight characters, sorted).
    case ambiguousID(prefix: String, starts: [String])
    /// A schedule with an id that is already in use.
    case idInUse(UUID)
}
