import FoundationEssentials
import ReveilleModel

/// The operations a person or an app can apply to an alarm.
package enum AlarmAction: String, Codable, Sendable, CaseIterable {
    /// Start the post-alert countdown of an alerting alarm (snooze / repeat).
    case countdown
    case pause
    case resume
    case stop
    case cancel

    /// The states in which the action is allowed.
    package var allowedStates: Set<Alarm.State> {
        switch self {
        case .countdown: [.alerting]
        case .pause: [.countdown]
        case .resume: [.paused]
        case .stop: [.alerting, .countdown, .paused]
        case .cancel: Set(Alarm.State.allCases)
        }
    }

}

/// What the clock did to an alarm.
package enum AlarmAdvance: Hashable, Sendable {
    /// Nothing was due.
    case unchanged
    /// It entered its countdown or began to alert.
    case updated(AlarmRecord)
    /// The occurrence at `missedDate` is reported instead of ringing on: it was due longer ago
    /// than the late window allows, or it rang unanswered to its ring limit.
    /// `next` is the following occurrence, if any.
    case missed(missedDate: Date, reason: MissReason, next: AlarmRecord?)
    /// It rang to its ring limit unanswered and rests before it rings again
    /// (`RingOptions.repeatUnanswered`): `resting` counts down to the next ring.
    case ringsAgain(resting: AlarmRecord)
}


extension AlarmRecord {
    /// A new alarm from a validated request, already advanced to `now`.
    package init(id: UUID, request: AlarmRequest, appID: String, now: Date, timeZone: any TimeZoneRules) throws(AlarmRuleError) {
        do { try request.validate(now: now, timeZone: timeZone) } catch { throw .alarmKit(error) }
        let preAlert = request.countdownDuration?.preAlert
        self.init(id: id, request: request, appID: appID, phase: .scheduled(fireDate: nil))
        if let schedule = request.schedule {
            guard let next = schedule.nextFireDate(after: now, in: timeZone) else {
                throw .noInstantAfterNow
            }
            phase = .scheduled(fireDate: next)
            if let preAlert, next.timeIntervalSince(now) <= preAlert {
                enterCountdown(until: next, length: preAlert)
            }
        } else if let preAlert {
            enterCountdown(until: now.addingTimeInterval(preAlert), length: preAlert)
        }
    }

    /// `old`, which ended (cancelled), as it stood then (`Restore`, an Undo): its id and
    /// configuration (validated as a new alarm's), `appID`'s; a snooze or a countdown still
    /// ahead and a paused one as they were, else from its next occurrence as a new alarm, with
    /// its skip while the skipped day is ahead, and off if it was.
    package init(restoring old: AlarmRecord, appID: String, now: Date, timeZone: any TimeZoneRules) throws(AlarmRuleError) {
        // The record comes from a caller: a countdown is taken only as one this alarm could
        // run (within its own lengths, a day's snooze at most), never one ending years ahead.
        let longest = min(WireLimits.maximumCountdown, max(WireLimits.maximumSnooze, old.request.countdownDuration?.preAlert ?? 0,
                                                           old.request.countdownDuration?.postAlert ?? 0))
        let stillCounting = switch old.phase {
        case .countdown(let until, let length, let elapsed):
            until > now && length <= longest && until.timeIntervalSince(now) <= length && (elapsed ?? 0) >= 0 && (elapsed ?? 0) <= length
        case .paused(let remaining, let length): remaining > 0 && remaining <= length && length <= longest
        case .scheduled, .alerting: false
        }
        if stillCounting {
            do { try old.request.validate(now: now, timeZone: timeZone) } catch { throw .alarmKit(error) }
            self.init(id: old.id, request: old.request, appID: appID, phase: old.phase)
            // What came due (the occurrence a snooze rang for) is behind now: one ahead would
            // pass over every occurrence until it once the alarm waits again (switched off and on).
            lastOccurrence = old.lastOccurrence.flatMap { $0 <= now ? $0 : nil }
            unanswered = old.unanswered.flatMap { $0.isSound && $0.since <= now ? $0 : nil }
            return
        }
        try self.init(id: old.id, request: old.request, appID: appID, now: now, timeZone: timeZone)
        // Its skip, made again here: the next occurrence passed over, nothing further ahead.
        if old.skippedOccurrence(now: now) != nil, state == .scheduled, let skipped = try? skippingNextOccurrence(now: now, timeZone: timeZone),
           skipped.fireDate == old.fireDate {
            self = skipped
        }
        if old.disabled, let off = try? disabling() { self = off }
    }

    /// The next instant at which the agent must act on this alarm, if any.
    package var dueDate: Date? {
        if disabled { return nil }
        switch phase {
        case .scheduled(let fireDate):
            guard let fireDate else { return nil }
            if let preAlert = request.countdownDuration?.preAlert {
                return fireDate.addingTimeInterval(-preAlert)
            }
            return fireDate
        case .countdown(let until, _, _):
            return until
        case .alerting(let since):
            return since.addingTimeInterval(ring.ringLimit ?? RingOptions.defaultRingLimit)
        case .paused:
            return nil
        }
    }

    /// Moves the alarm along its schedule to `now`: into its pre-alert countdown or its alert.
    /// An alert due more than `lateWindow` ago is reported as missed instead. An alert at its
    /// ring limit rests and rings again while `repeatUnanswered` (its own, else
    /// `defaultRepeat`, the agent's setting) has rings left; then it is missed.
    package func advanced(to now: Date, lateWindow: TimeInterval, timeZone: any TimeZoneRules,
                          defaultRepeat: UnansweredRepeat? = nil) -> AlarmAdvance {
        guard let due = dueDate, due <= now else { return .unchanged }
        if state == .alerting {
            let rang = (unanswered?.rang ?? 0) + 1
            if let plan = ring.repeatUnanswered ?? defaultRepeat, rang < min(plan.rings, UnansweredRepeat.ringsRange.upperBound) {
                var resting = self
                // From the ring limit, not from now: a late wake-up does not stretch the rest.
                resting.phase = .countdown(until: due.addingTimeInterval(plan.rest), length: plan.rest, previouslyElapsed: nil)
                resting.unanswered = UnansweredRings(rang: rang, rings: plan.rings, since: unanswered?.since ?? alertingSince ?? due)
                return .ringsAgain(resting: resting)
            }
            return .missed(missedDate: unanswered?.since ?? alertingSince ?? due, reason: .unanswered,
                           next: nextOccurrence(after: now, timeZone: timeZone))
        }
        guard let fireDate else { return .unchanged }
        if now >= fireDate {
            var came = self
            came.lastOccurrence = fireDate
            if now.timeIntervalSince(fireDate) > lateWindow {
                return .missed(missedDate: fireDate, reason: .late, next: came.nextOccurrence(after: now, timeZone: timeZone))
            }
            came.phase = .alerting(since: now)
            return .updated(came)
        }
        var counting = self
        counting.enterCountdown(until: fireDate, length: countdownDuration?.preAlert ?? fireDate.timeIntervalSince(now))
        return .updated(counting)
    }

    /// Applies a person's or an app's action. Returns the changed alarm, or `nil` when the
    /// alarm has ended. Throws `notAllowed` when the action is not allowed in its state.
    /// `snoozeLength`: for `.countdown`, a length chosen at the moment (`reveille snooze ID 20m`,
    /// the alert's longer snooze) instead of the alarm's own; checked by `checkSnoozeLength`.
    package func applying(_ action: AlarmAction, now: Date, timeZone: any TimeZoneRules,
                          snoozeLength: TimeInterval? = nil) throws(AlarmRuleError) -> AlarmRecord? {
        if let snoozeLength {
            guard action == .countdown else { throw .lengthOnlyForSnooze(action) }
            try Self.checkSnoozeLength(snoozeLength)
        }
        guard action.allowedStates.contains(state) else { throw .notAllowed(action, alarm: self) }
        if disabled, action != .cancel { throw .disabled(self) }
        var next = self
        switch action {
        case .cancel:
            return nil
        case .stop:
            return nextOccurrence(after: max(now, fireDate ?? now), timeZone: timeZone)
        case .countdown:
            guard let postAlert = snoozeLength ?? countdownDuration?.postAlertOrPreAlert else { throw .noSnoozeLength(id) }
            next.enterCountdown(until: now.addingTimeInterval(postAlert), length: postAlert)
            // A snooze is an answer: the unanswered rings start again from none.
            next.unanswered = nil
        case .pause:
            guard case .countdown(let until, let length, _) = phase else { return self }
            next.phase = .paused(remaining: max(0, until.timeIntervalSince(now)), length: length)
        case .resume:
            guard case .paused(let remaining, let length) = phase else { return self }
            next.phase = .countdown(until: now.addingTimeInterval(remaining), length: length,
                                    previouslyElapsed: max(0, length - remaining))
        }
        return next
    }

    /// A snooze length chosen at the moment: more than 0 seconds and at most
    /// `WireLimits.maximumSnooze` (a day); a NaN or an infinity is refused in words too.
    package static func checkSnoozeLength(_ length: TimeInterval) throws(AlarmRuleError) {
        guard length.isFinite, length >= WireLimits.minimumSnooze, length <= WireLimits.maximumSnooze else { throw .snoozeLength(length) }
    }

    /// After a time-zone or wall-clock change: a relative alarm that is not yet due moves to
    /// the next occurrence of its wall-clock time. Fixed alarms keep their instant; alarms
    /// already due are left for `advanced(to:)`, so a jump forward does not skip them.
    ///
    /// Where the zone still shows the alarm's own time at its instant, the occurrence chosen
    /// stands against what the clock alone would pick: a one-time alarm keeps its day, and a
    /// repeating one is never moved onto the second pass of an autumn hour (recomputed in the
    /// repeated 02:00–03:00, a 02:10 set for tomorrow had moved to the repeat today, and a
    /// daily 02:30 stopped in the first pass had rung again in the second).
    package func rescheduled(now: Date, timeZone: any TimeZoneRules) -> AlarmRecord {
        guard state == .scheduled, case .relative(let relative) = schedule,
              let fireDate, fireDate > now,
              let next = schedule?.nextFireDate(after: max(now, lastOccurrence ?? now), in: timeZone) else { return self }
        if next != fireDate, relative.names(fireDate, in: timeZone),
           relative.repeats == .never || WallClock.isRepeat(next, in: timeZone) {
            return self
        }
        var moved = self
        moved.phase = .scheduled(fireDate: next)
        return moved
    }

    /// This alarm moved to its occurrence after `instant`, or `nil` if it does not repeat.
    private func nextOccurrence(after instant: Date, timeZone: any TimeZoneRules) -> AlarmRecord? {
        let after = max(instant, lastOccurrence ?? instant)
        guard isRepeating, let next = schedule?.nextFireDate(after: after, in: timeZone) else {
            return nil
        }
        var moved = self
        moved.phase = .scheduled(fireDate: next)
        return moved
    }

    /// Silenced but kept, as a person switches an alarm off: a snoozed alarm's snooze ends
    /// (what is off does not ring, the snooze neither), and it waits, off, at its next
    /// occurrence; otherwise as `disabling()`.
    package func disabling(now: Date, timeZone: any TimeZoneRules) throws(AlarmRuleError) -> AlarmRecord {
        guard schedule != nil, state == .countdown || state == .paused else { return try disabling() }
        var waiting = self
        waiting.phase = .scheduled(fireDate: schedule?.nextFireDate(after: max(now, lastOccurrence ?? now), in: timeZone))
        return try waiting.disabling()
    }

    /// Silenced but kept: only an alarm waiting for its time (not a timer, not one ringing).
    package func disabling() throws(AlarmRuleError) -> AlarmRecord {
        guard schedule != nil, state == .scheduled else { throw .cannotDisable(self) }
        var off = self
        off.disabled = true
        return off
    }

    /// On again, at its next occurrence from `now`; a one-time alarm whose time passed while it
    /// was off cannot be.
    package func enabling(now: Date, timeZone: any TimeZoneRules) throws(AlarmRuleError) -> AlarmRecord {
        guard disabled else { throw .notDisabled(self) }
        var on = self
        on.disabled = false
        if case .relative = schedule,
           let next = schedule?.nextFireDate(after: max(now, lastOccurrence ?? now), in: timeZone) {
            on.phase = .scheduled(fireDate: next)
        }
        if let fireDate = on.fireDate, fireDate <= now {
            throw .dueWhileDisabled(self, due: ISO8601Local.string(from: fireDate, in: timeZone))
        }
        return on
    }

    /// The same repeating alarm with its next occurrence skipped: it next rings the time after.
    package func skippingNextOccurrence(now: Date, timeZone: any TimeZoneRules) throws(AlarmRuleError) -> AlarmRecord {
        guard isRepeating, state == .scheduled, let fireDate,
              var skipped = nextOccurrence(after: fireDate, timeZone: timeZone) else { throw .cannotSkip(self) }
        // Skipped again, it keeps the first occurrence it skipped: `unskip` brings that back,
        // and the rest with it (a second skip had dropped the first day without a trace).
        skipped.lastOccurrence = skippedOccurrence(now: now) ?? fireDate
        skipped.disabled = disabled
        return skipped
    }

    /// The occurrence a skip passed over, while it is still ahead: a skip leaves
    /// `lastOccurrence` on it, where otherwise it is an occurrence that came.
    package func skippedOccurrence(now: Date) -> Date? {
        Self.skippedOccurrence(state: state, lastOccurrence: lastOccurrence, now: now)
    }

    /// The rule for a record or a listing: only a waiting alarm's last occurrence ahead of now.
    package static func skippedOccurrence(state: Alarm.State, lastOccurrence: Date?, now: Date) -> Date? {
        guard state == .scheduled, let lastOccurrence, lastOccurrence > now else { return nil }
        return lastOccurrence
    }

    /// The skipped occurrence rings after all (`reveille unskip`).
    package func unskipping(now: Date) throws(AlarmRuleError) -> AlarmRecord {
        guard let skipped = skippedOccurrence(now: now) else { throw .nothingSkipped(self) }
        var restored = self
        restored.phase = .scheduled(fireDate: skipped)
        restored.lastOccurrence = nil
        return restored
    }

    /// This alarm changed by `request` (`reveille edit`): only what the edit changes. A new
    /// title, sound or button keeps where it stands (a timer's time left, a skip, a snooze);
    /// a new time or length schedules it anew from `now`. A ringing alarm is silenced and
    /// scheduled anew; a disabled one stays disabled where it can.
    package func updated(with request: AlarmRequest, now: Date, timeZone: any TimeZoneRules) throws(AlarmRuleError) -> AlarmRecord {
        var new = try AlarmRecord(id: id, request: request, appID: appID, now: now, timeZone: timeZone)
        let sameTiming = request.schedule == schedule && request.countdownDuration?.preAlert == countdownDuration?.preAlert
        if sameTiming, state != .alerting {
            (new.phase, new.lastOccurrence, new.disabled) = (phase, lastOccurrence, disabled)
            return new
        }
        if disabled, let off = try? new.disabling() { new = off }
        return new
    }

    /// After the wall clock was set by `jump` seconds: what measures elapsed time (a timer, a
    /// snooze, the ring limit) keeps the time it had left; what names a wall-clock time (an
    /// alarm, its pre-alert countdown) keeps its instant. A resume from suspend is no jump.
    package func followingClockJump(_ jump: TimeInterval, timeZone: any TimeZoneRules) -> AlarmRecord {
        var moved = self
        switch phase {
        case .countdown(let until, let length, let elapsed) where !countsDownToItsSchedule(timeZone: timeZone):
            moved.phase = .countdown(until: until.addingTimeInterval(jump), length: length, previouslyElapsed: elapsed)
        case .alerting(let since):
            moved.phase = .alerting(since: since.addingTimeInterval(jump))
        default:
            return self
        }
        return moved
    }

    /// Whether a countdown is the pre-alert of the alarm's own scheduled occurrence (rather than
    /// a timer or a snooze): its end is an instant the schedule names.
    private func countsDownToItsSchedule(timeZone: any TimeZoneRules) -> Bool {
        guard let schedule = schedule, let fireDate else { return false }
        switch schedule {
        case .fixed(let date): return date == fireDate
        case .relative: return schedule.nextFireDate(after: fireDate.addingTimeInterval(-1), in: timeZone) == fireDate
        }
    }

    private mutating func enterCountdown(until end: Date, length: TimeInterval) {
        phase = .countdown(until: end, length: length, previouslyElapsed: nil)
    }
}
