import FoundationEssentials
import ReveilleModel
import ReveilleRules

/// When the machine must wake from suspend for the alarms: pure, so it is tested in process.
package struct WakePolicy: Sendable {
    /// Whether alarms wake the machine at all (settings: `wakeFromSuspend`).
    package var enabled = true
    /// How long before an alarm the machine wakes, so it has resumed when the alarm is due
    /// (settings: `wakeLead`, seconds).
    package var lead: TimeInterval = 60

    package init(enabled: Bool = true, lead: TimeInterval = 60) {
        (self.enabled, self.lead) = (enabled, lead)
    }
    /// The soonest wake-up ever asked for: suspending takes a few seconds, and an RTC alarm
    /// already past when the machine is asleep never fires.
    package static let minimumDelay: TimeInterval = 10

    /// Whether `record` should wake the machine: it is due at an instant (scheduled or counting
    /// down), and it did not opt out.
    package func wakes(_ record: AlarmRecord) -> Bool {
        guard enabled, record.ring.wakesMachine != false, record.fireDate != nil else { return false }
        return record.state == .scheduled || record.state == .countdown
    }

    /// The instant to wake at for `alarms` when the machine suspends at `now`, or `nil` when
    /// none should wake it.
    package func wakeInstant(for alarms: some Sequence<AlarmRecord>, now: Date) -> Date? {
        guard let due = soonestDue(alarms) else { return nil }
        return max(due.addingTimeInterval(-lead), now.addingTimeInterval(Self.minimumDelay))
    }

    /// The instant to keep a kernel alarm timer armed at, from when the soonest alarm that
    /// should wake the machine is due (`nil`: none), at `now`: `lead` before it, or, once that
    /// has passed, the alarm's own instant (a suspend within the lead still wakes for it).
    /// The kernel, not a helper, sets the RTC at suspend, so no alarm is beyond reach.
    package func alarmTimerInstant(soonestDue due: Date?, now: Date) -> Date? {
        guard let due else { return nil }
        let early = due.addingTimeInterval(-lead)
        return early > now ? early : due
    }

    /// When the soonest alarm that should wake the machine is due.
    private func soonestDue(_ alarms: some Sequence<AlarmRecord>) -> Date? {
        // Lazily: on every change, with no copy of the alarms.
        alarms.lazy.filter(wakes).compactMap(\.fireDate).min()
    }

    /// What to do for `alarms` when the machine suspends at `now`: wake it at an instant, or not
    /// at all, also when the soonest alarm is beyond what the helper may set (further than
    /// `WakeHelperInterface.maximumLead`): a later suspend, once it is within reach, sets it.
    package func plan(for alarms: some Sequence<AlarmRecord>, now: Date) -> WakePlan {
        guard let wake = wakeInstant(for: alarms, now: now) else { return .none }
        // In whole seconds as the helper counts them: its `now` is this one or later.
        let lead = Int64(Self.helperInstant(wake)) - Int64(now.timeIntervalSince1970.rounded(.down))
        return lead <= WakeHelperInterface.maximumLead ? .wake(wake) : .beyondReach(wake)
    }

    /// `wake` as the helper takes it: whole seconds since 1970, rounded up so it is never early.
    package static func helperInstant(_ wake: Date) -> UInt64 {
        UInt64(max(0, wake.timeIntervalSince1970.rounded(.up)))
    }
}

/// What a suspend does for the alarms (`WakePolicy.plan`).
package enum WakePlan: Equatable {
    /// No alarm should wake the machine.
    case none
    /// Wake the machine at this instant.
    case wake(Date)
    /// The machine should wake at this instant, but it is further ahead than the helper may
    /// set (`WakeHelperInterface.maximumLead`): nothing is set at this suspend.
    case beyondReach(Date)
}

/// What the agent knows of the wake-up it set, kept in its state folder so that an agent
/// started again clears one left from before (its alarm may be gone).
package enum WakeMemory: Equatable {
    /// None set, or the last one cleared.
    case none
    /// Set (or being set) to this instant, seconds since 1970.
    case set(UInt64)
    /// No record, or a damaged one: one may be set.
    case unknown

    /// Whether a wake-up of this agent may still be armed, and must be cleared when no alarm needs it.
    package var mayBeArmed: Bool { self != .none }

    /// Whether to clear the wake-up when the RTC holds `armed` (0 for none, `nil` when the helper
    /// could not say): one this agent set, or may have; not another's (another user's agent, an
    /// `rtcwake`) that replaced it, nor nothing.
    package func clears(rtcHolds armed: UInt64?) -> Bool {
        switch self {
        case .none: false
        case .set(let instant): armed.map { $0 == instant } ?? true
        case .unknown: armed.map { $0 != 0 } ?? true
        }
    }

    /// The memory a record holds; no record (`nil`) or anything but a valid one is `.unknown`.
    package init(record: Data?) {
        guard let record, let stored = try? JSONDecoder().decode(Stored.self, from: record) else {
            self = .unknown
            return
        }
        self = stored.wakeAlarm == 0 ? .none : .set(stored.wakeAlarm)
    }

    /// The record of this memory, as the RTC counts: the instant, 0 for none. `.unknown` is never
    /// written (it is what no record means).
    package var record: Data? {
        switch self {
        case .none: try? JSONEncoder().encode(Stored(wakeAlarm: 0))
        case .set(let instant): try? JSONEncoder().encode(Stored(wakeAlarm: instant))
        case .unknown: nil
        }
    }

    private struct Stored: Codable {
        package var wakeAlarm: UInt64
    }
}
