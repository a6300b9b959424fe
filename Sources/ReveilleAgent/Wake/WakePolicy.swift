import FoundationEssentials
import ReveilleCore

/// When the machine must wake from suspend for the alarms: pure, so it is tested in process.
struct WakePolicy: Sendable {
    /// Whether alarms wake the machine at all (settings: `wakeFromSuspend`).
    var enabled = true
    /// How long before an alarm the machine wakes, so it has resumed when the alarm is due
    /// (settings: `wakeLead`, seconds).
    var lead: TimeInterval = 60
    /// The soonest wake-up ever asked for: suspending takes a few seconds, and an RTC alarm
    /// already past when the machine is asleep never fires.
    static let minimumDelay: TimeInterval = 10

    /// Whether `record` should wake the machine: it is due at an instant (scheduled or counting
    /// down), and it did not opt out.
    func wakes(_ record: AlarmRecord) -> Bool {
        guard enabled, record.ring.wakesMachine != false, record.fireDate != nil else { return false }
        return record.state == .scheduled || record.state == .countdown
    }

    /// The instant to wake at for `alarms` when the machine suspends at `now`, or `nil` when
    /// none should wake it.
    func wakeInstant(for alarms: [AlarmRecord], now: Date) -> Date? {
        guard let due = alarms.filter(wakes).compactMap(\.fireDate).min() else { return nil }
        return max(due.addingTimeInterval(-lead), now.addingTimeInterval(Self.minimumDelay))
    }

    /// Whether to hold logind's sleep inhibitor: while any alarm should wake the machine, so the
    /// wake-up is set before it sleeps.
    func holdsInhibitor(for alarms: [AlarmRecord]) -> Bool {
        alarms.contains(where: wakes)
    }
}
