import Foundation
import ReveilleAgentTesting
import ReveilleModel
@testable import ReveilleRules
@testable import ReveilleWords
import Testing

@Suite("State machine")
struct StateMachineTests {
    let utc = zone("UTC")
    let now = instant("2027-06-01T12:00:00Z")

    func record(_ schedule: Alarm.Schedule?, preAlert: TimeInterval? = nil, postAlert: TimeInterval? = 300,
                at time: Date? = nil) throws -> AlarmRecord {
        try AlarmRecord(id: UUID(), request: request(schedule: schedule, preAlert: preAlert, postAlert: postAlert),
                        appID: "test", now: time ?? now, timeZone: utc)
    }

    func alerting(_ base: AlarmRecord) -> AlarmRecord {
        guard case .updated(let fired) = base.advanced(to: base.fireDate!, lateWindow: 600, timeZone: utc) else {
            Issue.record("expected the alarm to fire"); return base
        }
        return fired
    }

    @Test func timerStartsCountingDownAndFiresAfterPreAlert() throws {
        let timer = try record(nil, preAlert: 90)
        #expect(timer.alarm.state == .countdown)
        #expect(timer.fireDate == now.addingTimeInterval(90))
        #expect(timer.dueDate == now.addingTimeInterval(90))
        #expect(timer.advanced(to: now.addingTimeInterval(89), lateWindow: 600, timeZone: utc) == .unchanged)
        #expect(alerting(timer).alarm.state == .alerting)
    }

    @Test func scheduledWithPreAlertEntersCountdownBeforeItsInstant() throws {
        let alarm = try record(relative(13, 0), preAlert: 600)
        #expect(alarm.alarm.state == .scheduled)
        #expect(alarm.dueDate == instant("2027-06-01T12:50:00Z"))
        guard case .updated(let counting) = alarm.advanced(to: instant("2027-06-01T12:50:00Z"), lateWindow: 600, timeZone: utc) else {
            Issue.record("expected the pre-alert countdown"); return
        }
        #expect(counting.alarm.state == .countdown)
        #expect(counting.fireDate == instant("2027-06-01T13:00:00Z"))
        #expect(counting.countdownLength == 600)
    }

    @Test func preAlertLongerThanTheWaitStartsCountingAtOnce() throws {
        let alarm = try record(relative(12, 5), preAlert: 600)
        #expect(alarm.alarm.state == .countdown)
        #expect(alarm.fireDate == instant("2027-06-01T12:05:00Z"))
    }

    @Test func snoozeCountsDownPostAlertThenAlertsAgain() throws {
        let fired = alerting(try record(relative(12, 30)))
        let snoozed = try #require(try fired.applying(.countdown, now: now, timeZone: utc))
        #expect(snoozed.alarm.state == .countdown)
        #expect(snoozed.fireDate == now.addingTimeInterval(300))
        #expect(alerting(snoozed).alarm.state == .alerting)
    }

    @Test func pauseKeepsTheTimeLeftAndResumeContinuesFromIt() throws {
        let timer = try record(nil, preAlert: 100)
        let paused = try #require(try timer.applying(.pause, now: now.addingTimeInterval(40), timeZone: utc))
        #expect(paused.alarm.state == .paused)
        #expect(paused.pausedTimeRemaining == 60)
        #expect(paused.dueDate == nil)
        let resumed = try #require(try paused.applying(.resume, now: now.addingTimeInterval(1000), timeZone: utc))
        #expect(resumed.alarm.state == .countdown)
        #expect(resumed.fireDate == now.addingTimeInterval(1060))
        #expect(resumed.countdownLength == 100)
    }

    @Test func stopEndsAOneTimeAlarm() throws {
        #expect(try alerting(try record(relative(12, 30))).applying(.stop, now: now, timeZone: utc) == nil)
        #expect(try alerting(try record(.fixed(instant("2027-06-02T00:00:00Z")))).applying(.stop, now: now, timeZone: utc) == nil)
    }

    @Test func stopMovesARepeatingAlarmToItsNextOccurrence() throws {
        let fired = alerting(try record(relative(12, 30, [.tuesday, .thursday])))
        let stopAt = instant("2027-06-01T12:31:00Z")
        let next = try #require(try fired.applying(.stop, now: stopAt, timeZone: utc))
        #expect(next.alarm.state == .scheduled)
        #expect(next.fireDate == instant("2027-06-03T12:30:00Z"))
        #expect(next.alertingSince == nil)
    }

    @Test func stopEndsARunningOrPausedTimer() throws {
        let timer = try record(nil, preAlert: 100)
        #expect(try timer.applying(.stop, now: now, timeZone: utc) == nil)
        let paused = try #require(try timer.applying(.pause, now: now, timeZone: utc))
        #expect(try paused.applying(.stop, now: now, timeZone: utc) == nil)
    }

    @Test(arguments: Alarm.State.allCases)
    func cancelEndsEveryState(_ state: Alarm.State) throws {
        var alarm = try record(nil, preAlert: 100)
        alarm.phase = phase(state, at: now)
        #expect(try alarm.applying(.cancel, now: now, timeZone: utc) == nil)
    }

    /// Every action in every state it is not allowed in is refused with the state and what is allowed.
    @Test(arguments: AlarmAction.allCases)
    func refusedTransitionsNameTheStateAndWhatIsAllowed(_ action: AlarmAction) throws {
        for state in Alarm.State.allCases where !action.allowedStates.contains(state) {
            var alarm = try record(nil, preAlert: 100)
            alarm.phase = phase(state, at: now)
            #expect {
                try alarm.applying(action, now: now, timeZone: utc)
            } throws: { error in
                guard let refusal = error as? AlarmRuleError, case .invalidState(let text) = AlarmError(refusal) else { return false }
                // In a person's words: "is ringing: snooze (or repeat) works only while it is ...".
                return text.contains("is \(AlarmRecord.stateWords(state))") && text.contains("\(action.words) works only while it is")
                    && !text.contains("countdown is")
            }
        }
    }

    @Test func snoozeWithoutPostAlertUsesPreAlertAsInAlarmKitAndIsRefusedWithNeither() throws {
        let fired = alerting(try record(relative(12, 30), postAlert: nil))
        #expect(throws: AlarmRuleError.noSnoozeLength(fired.id)) { try fired.applying(.countdown, now: now, timeZone: utc) }
        let timer = alerting(try record(nil, preAlert: 90, postAlert: nil))
        let repeated = try #require(try timer.applying(.countdown, now: now, timeZone: utc))
        #expect(repeated.alarm.state == .countdown && repeated.fireDate == now + 90 && repeated.countdownLength == 90)
    }

    @Test func lateBeyondTheWindowIsMissedNotRung() throws {
        let oneTime = try record(relative(12, 30))
        let late = instant("2027-06-01T12:41:00Z")
        #expect(oneTime.advanced(to: late, lateWindow: 600, timeZone: utc)
                == .missed(missedDate: instant("2027-06-01T12:30:00Z"), reason: .late, next: nil))
        let withinWindow = instant("2027-06-01T12:39:00Z")
        guard case .updated(let rung) = oneTime.advanced(to: withinWindow, lateWindow: 600, timeZone: utc) else {
            Issue.record("a 9-minute-late alarm must ring"); return
        }
        #expect(rung.alarm.state == .alerting)

        let repeating = try record(relative(12, 30, everyDay))
        guard case .missed(_, .late, let next?) = repeating.advanced(to: late, lateWindow: 600, timeZone: utc) else {
            Issue.record("a missed repeating alarm moves on"); return
        }
        #expect(next.fireDate == instant("2027-06-02T12:30:00Z"))
    }

    @Test func unansweredAlertStopsAtItsRingLimitAndIsMissed() throws {
        var request = request(schedule: relative(12, 30, everyDay))
        request.ring = RingOptions(ringLimit: 60)
        let alarm = try AlarmRecord(id: UUID(), request: request, appID: "test", now: now, timeZone: utc)
        let fired = alerting(alarm)
        #expect(fired.dueDate == instant("2027-06-01T12:31:00Z"))
        #expect(fired.advanced(to: instant("2027-06-01T12:30:59Z"), lateWindow: 600, timeZone: utc) == .unchanged)
        guard case .missed(let rang, .unanswered, let next?) = fired.advanced(to: instant("2027-06-01T12:31:00Z"), lateWindow: 600, timeZone: utc) else {
            Issue.record("an alert at its ring limit is missed"); return
        }
        #expect(rang == instant("2027-06-01T12:30:00Z"))
        #expect(next.alarm.state == .scheduled)
        #expect(next.fireDate == instant("2027-06-02T12:30:00Z"))
        // Without a ring limit of its own, an alert rings for the default ten minutes.
        let plain = alerting(try record(relative(12, 30)))
        #expect(plain.dueDate == instant("2027-06-01T12:40:00Z"))
    }

    @Test func ringOptionsOutOfRangeAreRefused() {
        for (ring, phrase) in [(RingOptions(volume: 1.5), "volume is 1.5"), (RingOptions(volume: 0), "an alarm is never silent"),
                               (RingOptions(volume: 0.0005), "volume is 0.0005"), (RingOptions(ringLimit: 1), "ringLimit is 1.0"),
                               (RingOptions(fadeIn: 700), "fadeIn is 700.0")] {
            var bad = request(schedule: relative(7, 0))
            bad.ring = ring
            #expect {
                try bad.validate(now: now, timeZone: UTCTimeZone())
            } throws: { error in
                guard case AlarmError.invalidConfiguration(let text) = error else { return false }
                return text.contains(phrase)
            }
        }
    }

    @Test func aDisabledAlarmNeitherRingsNorCountsAndComesBackAtItsNextOccurrence() throws {
        let daily = try record(relative(12, 30, everyDay))
        let off = try daily.disabling()
        #expect(off.dueDate == nil)
        #expect(off.advanced(to: daily.fireDate!.addingTimeInterval(3600), lateWindow: 600, timeZone: utc) == .unchanged)
        #expect(throws: AlarmRuleError.notAllowed(.stop, alarm: off)) { try off.applying(.stop, now: now, timeZone: utc) }
        // Enabled two days later: its next occurrence from then, not the ones it slept through.
        let later = daily.fireDate!.addingTimeInterval(2 * 86_400 + 60)
        let on = try off.enabling(now: later, timeZone: utc)
        #expect(!on.disabled && on.fireDate == daily.fireDate!.addingTimeInterval(3 * 86_400))
        // A one-time alarm whose time passed while off cannot come back; a timer cannot be disabled.
        let once = try record(.fixed(now.addingTimeInterval(3600)))
        #expect(throws: AlarmRuleError.self) { try once.disabling().enabling(now: now.addingTimeInterval(7200), timeZone: utc) }
        #expect(throws: AlarmRuleError.self) { try record(nil, preAlert: 60).disabling() }
    }

    @Test func aSnoozedAlarmSwitchedOffEndsItsSnoozeAndWaitsOffForItsNextOccurrence() throws {
        let rang = alerting(try record(relative(12, 30)))
        let at = instant("2027-06-01T12:31:00Z")
        let snoozed = try #require(try rang.applying(.countdown, now: at, timeZone: utc))
        #expect(snoozed.state == .countdown)
        let off = try snoozed.disabling(now: at, timeZone: utc)
        #expect(off.disabled && off.state == .scheduled && off.dueDate == nil, "the snooze ended: \(off)")
        // On again, it rings at its next occurrence, not at the snooze's end.
        #expect(try off.enabling(now: at, timeZone: utc).fireDate == instant("2027-06-02T12:30:00Z"))
        // What `reveille disable` refuses stays refused elsewhere: a timer, a ringing alarm.
        #expect(throws: AlarmRuleError.self) { try record(nil, preAlert: 60).disabling(now: now, timeZone: utc) }
        #expect(throws: AlarmRuleError.self) { try rang.disabling(now: at, timeZone: utc) }
    }

    @Test func aRestoredAlarmStandsAsItStoodWhenItWasCancelled() throws {
        let rang = alerting(try record(relative(12, 30)))
        let at = instant("2027-06-01T12:31:00Z")
        let snoozed = try #require(try rang.applying(.countdown, now: at, timeZone: utc))
        #expect(try AlarmRecord(restoring: snoozed, appID: "test", now: at.addingTimeInterval(10), timeZone: utc) == snoozed,
                "snoozed until the same instant, its rung occurrence kept")
        // Its snooze over meanwhile: from its next occurrence, as a new alarm.
        let late = try AlarmRecord(restoring: snoozed, appID: "test", now: at.addingTimeInterval(600), timeZone: utc)
        #expect(late.state == .scheduled && late.fireDate == instant("2027-06-02T12:30:00Z"), "\(late)")
        // A skip and being off are kept; it is the caller's.
        let daily = try record(relative(12, 30, everyDay))
        let skipped = try daily.skippingNextOccurrence(now: now, timeZone: utc)
        #expect(try AlarmRecord(restoring: skipped, appID: "test", now: now, timeZone: utc) == skipped)
        let back = try AlarmRecord(restoring: try daily.disabling(), appID: "org.example.Other", now: now, timeZone: utc)
        #expect(back.disabled && back.appID == "org.example.Other" && back.fireDate == daily.fireDate, "\(back)")
        // Judged for sense: a snooze ending years ahead, or a skip to an occurrence the schedule
        // would not reach, comes back as a new alarm from its next occurrence.
        let far = AlarmRecord(id: snoozed.id, request: snoozed.request, appID: "test",
                              phase: .countdown(until: at.addingTimeInterval(5 * 365 * 86_400), length: 5 * 365 * 86_400, previouslyElapsed: nil))
        let judged = try AlarmRecord(restoring: far, appID: "test", now: at, timeZone: utc)
        #expect(judged.state == .scheduled && judged.fireDate == instant("2027-06-02T12:30:00Z"), "\(judged)")
        var leap = skipped
        leap.phase = .scheduled(fireDate: instant("2031-01-01T12:30:00Z"))
        #expect(try AlarmRecord(restoring: leap, appID: "test", now: now, timeZone: utc).fireDate == daily.fireDate)
        // A snooze brought back remembering an occurrence ahead of now as come due (2099) would,
        // switched off and on, pass over every day until then: what came due is at or before now, or forgotten.
        let daySnoozed = try #require(try alerting(daily).applying(.countdown, now: at, timeZone: utc))
        var remembering = daySnoozed
        remembering.lastOccurrence = instant("2099-01-01T12:30:00Z")
        let kept = try AlarmRecord(restoring: remembering, appID: "test", now: at.addingTimeInterval(10), timeZone: utc)
        #expect(kept.state == .countdown && (kept.lastOccurrence ?? at) <= at.addingTimeInterval(10), "\(kept)")
        // Switched off and on again during the snooze, it rings tomorrow.
        let off = try kept.disabling(now: at.addingTimeInterval(20), timeZone: utc)
        #expect(try off.enabling(now: at.addingTimeInterval(20), timeZone: utc).fireDate == instant("2027-06-02T12:30:00Z"))
        // Validated as a new alarm: a one-time date that passed cannot come back.
        let passed = try record(.fixed(now.addingTimeInterval(60)))
        #expect(throws: AlarmRuleError.self) { try AlarmRecord(restoring: passed, appID: "test", now: now.addingTimeInterval(120), timeZone: utc) }
    }

    @Test func skippingMovesARepeatingAlarmToTheOccurrenceAfterNext() throws {
        let weekdays = try record(relative(12, 30, [.monday, .tuesday, .wednesday, .thursday, .friday]))
        let skipped = try weekdays.skippingNextOccurrence(now: now, timeZone: utc)
        #expect(skipped.fireDate! > weekdays.fireDate! && skipped.lastOccurrence == weekdays.fireDate)
        #expect(skipped.fireDate == weekdays.alarm.schedule!.nextFireDate(after: weekdays.fireDate!, in: utc))
        #expect(throws: AlarmRuleError.self) { try record(relative(12, 30)).skippingNextOccurrence(now: now, timeZone: utc) }
        // Skipped twice: the first day it skipped is still what unskip brings back.
        let twice = try skipped.skippingNextOccurrence(now: now, timeZone: utc)
        #expect(twice.fireDate == weekdays.alarm.schedule!.nextFireDate(after: skipped.fireDate!, in: utc))
        #expect(twice.skippedOccurrence(now: now) == weekdays.fireDate)
        #expect(try twice.unskipping(now: now).fireDate == weekdays.fireDate)
    }

    @Test func presentationStateFollowsTheState() throws {
        let timer = try record(nil, preAlert: 100)
        guard case .countdown(let countdown)? = timer.presentationState(in: utc)?.mode else {
            Issue.record("a running timer presents a countdown"); return
        }
        #expect(countdown.fireDate == now.addingTimeInterval(100) && countdown.totalCountdownDuration == 100)
        let paused = try #require(try timer.applying(.pause, now: now.addingTimeInterval(30), timeZone: utc))
        #expect(paused.presentationState(in: utc)?.mode == .paused(.init(totalCountdownDuration: 100, previouslyElapsedDuration: 30)))
        // Resumed: AlarmKit reports what ran before the pause, and the running part's start.
        let resumed = try #require(try paused.applying(.resume, now: now.addingTimeInterval(50), timeZone: utc))
        #expect(resumed.presentationState(in: utc)?.mode == .countdown(.init(
            totalCountdownDuration: 100, previouslyElapsedDuration: 30,
            startDate: now.addingTimeInterval(50), fireDate: now.addingTimeInterval(120))))
        // A countdown that never paused (a snooze after it rang) has nothing previously elapsed.
        let snoozed = try #require(try alerting(resumed).applying(.countdown, now: now.addingTimeInterval(130), timeZone: utc))
        #expect(snoozed.previouslyElapsed == nil)
        let fired = alerting(try record(relative(12, 30)))
        #expect(fired.presentationState(in: utc)?.mode == .alert(.init(time: .init(hour: 12, minute: 30))))
        #expect(try record(relative(13, 0)).presentationState(in: utc) == nil)
    }

    @Test func aWallClockSetBackNeverRingsAnOccurrenceTwice() throws {
        // A daily 12:30 alarm rings and is stopped; then the clock is set back to 11:45.
        let fired = alerting(try record(relative(12, 30, everyDay)))
        #expect(fired.lastOccurrence == instant("2027-06-01T12:30:00Z"))
        let stopped = try #require(try fired.applying(.stop, now: instant("2027-06-01T12:31:00Z"), timeZone: utc))
        #expect(stopped.fireDate == instant("2027-06-02T12:30:00Z"))
        let afterJumpBack = stopped.rescheduled(now: instant("2027-06-01T11:45:00Z"), timeZone: utc)
        #expect(afterJumpBack.fireDate == instant("2027-06-02T12:30:00Z"), "today's 12:30 already rang")
        // Without that memory, the same jump would have brought today's 12:30 back.
        var forgetful = stopped
        forgetful.lastOccurrence = nil
        #expect(forgetful.rescheduled(now: instant("2027-06-01T11:45:00Z"), timeZone: utc).fireDate == instant("2027-06-01T12:30:00Z"))
    }

    @Test func aWallClockSetForwardRingsWhatCameDueOnceOrReportsItMissed() throws {
        let alarm = try record(relative(12, 30, everyDay))
        // Forward past 12:30 by five minutes: rings (within the late window), once.
        guard case .updated(let rung) = alarm.advanced(to: instant("2027-06-01T12:35:00Z"), lateWindow: 600, timeZone: utc) else {
            Issue.record("a jump forward past the alarm rings it"); return
        }
        #expect(rung.alarm.state == .alerting)
        #expect(rung.advanced(to: instant("2027-06-01T12:36:00Z"), lateWindow: 600, timeZone: utc) == .unchanged)
        // Forward by two hours: reported missed, and the next occurrence is tomorrow's.
        guard case .missed(_, .late, let next?) = alarm.advanced(to: instant("2027-06-01T14:30:00Z"), lateWindow: 600, timeZone: utc) else {
            Issue.record("a jump far past the alarm reports it missed"); return
        }
        #expect(next.fireDate == instant("2027-06-02T12:30:00Z"))
    }

    @Test func timeZoneChangeMovesRelativeButNotFixed() throws {
        let wake = try record(relative(18, 0))
        let moved = wake.rescheduled(now: now, timeZone: zone("America/New_York"))
        #expect(moved.fireDate == instant("2027-06-01T22:00:00Z"))
        let fixed = try record(.fixed(instant("2027-06-01T18:00:00Z")))
        #expect(fixed.rescheduled(now: now, timeZone: zone("America/New_York")).fireDate == fixed.fireDate)
        // An alarm already due is left to fire (a clock jump forward must not skip it).
        #expect(wake.rescheduled(now: instant("2027-06-01T18:05:00Z"), timeZone: utc).fireDate == wake.fireDate)
    }

    @Test func invalidRequestsNameWhatIsWrong() {
        let cases: [(AlarmRequest, String)] = [
            (request(schedule: nil), "needs countdownDuration.preAlert"),
            (request(schedule: .fixed(instant("2027-06-01T11:00:00Z"))), "not in the future"),
            (request(schedule: relative(24, 0)), "hour 0–23"),
            (request(schedule: relative(7, 0, [])), "at least one weekday"),
            (request(schedule: nil, preAlert: -1), "the countdown before it rings (preAlert) is -1 seconds"),
            (request(schedule: nil, preAlert: 34_560_000), "(preAlert) is 400 days; accepted: more than 0 seconds and at most 366 days"),
            (request(schedule: relative(7, 0), title: String(repeating: "x", count: 501)), "at most 500"),
        ]
        for (bad, phrase) in cases {
            #expect {
                try bad.validate(now: now, timeZone: UTCTimeZone())
            } throws: { error in
                guard case AlarmError.invalidConfiguration(let text) = error else { return false }
                return text.contains(phrase)
            }
        }
        var noPostAlert = request(schedule: relative(7, 0), postAlert: nil)
        noPostAlert.presentation.alert.secondaryButtonBehavior = .countdown
        noPostAlert.presentation.alert.secondaryButton = .snoozeButton
        #expect(throws: AlarmError.self) { try noPostAlert.validate(now: now, timeZone: UTCTimeZone()) }
        var repeatingTimer = request(schedule: nil, preAlert: 60, postAlert: nil)
        repeatingTimer.presentation.alert.secondaryButtonBehavior = .countdown
        repeatingTimer.presentation.alert.secondaryButton = .repeatButton
        #expect(throws: Never.self) { try repeatingTimer.validate(now: now, timeZone: UTCTimeZone()) }
        // A .custom button without an intent is accepted (AlarmKit's is optional): it only tells the app.
        var bare = request(schedule: relative(7, 0))
        bare.presentation.alert.secondaryButton = .openAppButton
        bare.presentation.alert.secondaryButtonBehavior = .custom
        #expect(throws: Never.self) { try bare.validate(now: now, timeZone: UTCTimeZone()) }
    }
}

/// A record's phase carries exactly its state's data, and its JSON is the JSON stores and
/// clients have always read.
@Suite("Alarm phases")
struct AlarmPhaseTests {
    func decode(_ json: String) throws -> AlarmRecord {
        try JSONCoding.decoder.decode(AlarmRecord.self, from: Data(json.utf8))
    }

    let head = #"{"alarm":{"id":"3F2A9C1E-0000-4000-8000-000000000001","countdownDuration":{"preAlert":300,"postAlert":60},"#
    let tail = #""presentation":{"alert":{"title":"Tea","stopButton":{"text":"Stop","systemImageName":"x"}}},"appID":"reveille""#

    @Test func eachStatesJSONBecomesItsPhase() throws {
        let countdown = try decode(head + #""state":"countdown"},"# + tail + #","fireDate":"2026-11-23T08:05:00Z"}"#)
        #expect(countdown.phase == .countdown(until: instant("2026-11-23T08:05:00Z"), length: 300, previouslyElapsed: nil),
                "a countdown stored without its length takes the pre-alert")
        let paused = try decode(head + #""state":"paused"},"# + tail + #","pausedTimeRemaining":42,"countdownLength":300}"#)
        #expect(paused.phase == .paused(remaining: 42, length: 300) && paused.fireDate == nil)
        let ringing = try decode(head + #""state":"alerting"},"# + tail + #","alertingSince":"2026-11-23T08:05:00Z"}"#)
        #expect(ringing.phase == .alerting(since: instant("2026-11-23T08:05:00Z")) && ringing.countdownLength == nil)
        // A store edited by hand: a countdown without its end is reported missed, and the store is kept.
        let endless = try decode(head + #""state":"countdown"},"# + tail + "}")
        guard case .missed(_, .late, nil) = endless.advanced(to: instant("2026-11-23T08:00:00Z"), lateWindow: 600, timeZone: UTCTimeZone()) else {
            Issue.record("\(endless.phase)"); return
        }
    }

    @Test(arguments: Alarm.State.allCases)
    func aRecordEncodesAndDecodesToItself(_ state: Alarm.State) throws {
        var record = try AlarmRecord(id: UUID(), request: request(schedule: nil, preAlert: 100), appID: "reveille",
                                     now: instant("2026-11-23T08:00:00Z"), timeZone: UTCTimeZone())
        record.phase = phase(state)
        let again = try JSONCoding.decoder.decode(AlarmRecord.self, from: JSONCoding.compactEncoder.encode(record))
        #expect(again == record && again.alarm.state == state)
    }
}

@Suite("Alarm listings")
struct AlarmListingTests {
    /// A listing read from an alarm's JSON says what the full record says, in every state.
    @Test func decodedListingsMatchTheirRecords() throws {
        let utc = UTCTimeZone()
        let now = instant("2027-06-01T12:00:00Z")
        let timer = try AlarmRecord(id: UUID(), request: request(schedule: nil, preAlert: 90, title: "Tea"),
                                    appID: "org.example.Tea", now: now, timeZone: utc)
        let weekly = try AlarmRecord(id: UUID(), request: request(schedule: relative(7, 30, [.monday, .friday]), title: "Up"),
                                     appID: "reveille", now: now, timeZone: utc)
        let paused = try #require(try timer.applying(.pause, now: now + 30, timeZone: utc))
        guard case .updated(let ringing) = weekly.advanced(to: weekly.fireDate!, lateWindow: 600, timeZone: utc) else {
            Issue.record("expected the weekly alarm to fire"); return
        }
        let records = [timer, weekly, paused, ringing]
        let listings = try JSONCoding.decoder.decode([AlarmListing].self, from: JSONCoding.compactEncoder.encode(records))
        for (record, listing) in zip(records, listings) {
            let expected = AlarmListing(record)
            #expect(listing.alarm == expected.alarm)
            #expect((listing.appID, listing.title) == (expected.appID, expected.title))
            #expect(listing.fireDate == expected.fireDate)
            #expect(listing.pausedTimeRemaining == expected.pausedTimeRemaining)
            #expect(listing.alertingSince == expected.alertingSince)
        }
        #expect(listings.map(\.alarm.state) == [.countdown, .scheduled, .paused, .alerting])
        #expect(listings[2].pausedTimeRemaining == 60)
    }

    @Test func durationsKeepTheirTimeLeftWhenTheWallClockIsSetWallClockAlarmsKeepTheirInstant() throws {
        let now = instant("2027-06-01T12:00:00Z"), utc = zone("UTC")
        func make(_ schedule: Alarm.Schedule?, preAlert: TimeInterval?) throws -> AlarmRecord {
            try AlarmRecord(id: UUID(), request: request(schedule: schedule, preAlert: preAlert), appID: "test", now: now, timeZone: utc)
        }
        let timer = try make(nil, preAlert: 60)
        #expect(timer.followingClockJump(-3600, timeZone: utc).fireDate == now.addingTimeInterval(60 - 3600),
                "a 60 s timer still rings 60 s later when the clock is set back an hour")
        // A fixed alarm's pre-alert countdown ends at the alarm's instant, whatever the clock says.
        let fixedDate = now.addingTimeInterval(120)
        let preAlerting = try make(.fixed(fixedDate), preAlert: 300)
        #expect(preAlerting.alarm.state == .countdown)
        #expect(preAlerting.followingClockJump(-3600, timeZone: utc) == preAlerting)
        // A snooze is a duration; so is the ring limit of an alert.
        guard case .updated(let ringing) = timer.advanced(to: timer.fireDate!, lateWindow: 600, timeZone: utc) else {
            Issue.record("no alert"); return
        }
        #expect(ringing.followingClockJump(-3600, timeZone: utc).dueDate == ringing.dueDate!.addingTimeInterval(-3600))
        let snoozed = try #require(try ringing.applying(.countdown, now: timer.fireDate!, timeZone: utc))
        #expect(snoozed.followingClockJump(600, timeZone: utc).fireDate == snoozed.fireDate!.addingTimeInterval(600))
        // A scheduled alarm is not touched (the recompute after the jump moves a relative one).
        let daily = try make(relative(7, 30, everyDay), preAlert: nil)
        #expect(daily.followingClockJump(-3600, timeZone: utc) == daily)
    }

    @Test func weekdaysAreReadByShortOrFullNameAndABadOneIsNamed() throws {
        func decode(_ json: String) throws -> Alarm.Schedule.Relative.Recurrence {
            try JSONDecoder().decode(Alarm.Schedule.Relative.Recurrence.self, from: Data(json.utf8))
        }
        #expect(try decode(#"["mon", "Friday"]"#) == .weekly([.monday, .friday]))
        #expect(try decode(#""never""#) == .never)
        do {
            _ = try decode(#"["mon", "funday"]"#)
            Issue.record("funday was accepted")
        } catch {
            #expect("\(error)".contains("'funday' is not a weekday"), "\(error)")
        }
    }

    @Test func tintColorsAreInRange() throws {
        var tinted = request(schedule: nil, preAlert: 60)
        tinted.tintColor = Color(red: .nan, green: 2, blue: -1)
        #expect(throws: AlarmError.self) { try tinted.validate(now: Date(), timeZone: zone("UTC")) }
    }

    @Test func textsAreBoundedByBytesAsWellAsCharacters() throws {
        let now = instant("2027-06-01T12:00:00Z"), utc = zone("UTC")
        // One letter with 40,000 combining marks is one character and 80,001 bytes.
        let zalgo = request(schedule: nil, preAlert: 60, title: "a" + String(repeating: "\u{0301}", count: 40_000))
        do {
            try zalgo.validate(now: now, timeZone: utc)
            Issue.record("a title of 80,001 bytes was accepted")
        } catch {
            #expect("\(error)".contains("the title is 80001 bytes long in UTF-8; at most 2000 are accepted"))
        }
        var button = request(schedule: nil, preAlert: 60)
        button.presentation.alert.stopButton.text = LocalizedStringResource(String(repeating: "x", count: 100_000))
        #expect(throws: AlarmError.self) { try button.validate(now: now, timeZone: utc) }
        var metadata = request(schedule: nil, preAlert: 60)
        metadata.metadata = "\"" + String(repeating: "x", count: 5000) + "\""
        #expect(throws: AlarmError.self) { try metadata.validate(now: now, timeZone: utc) }
        try request(schedule: nil, preAlert: 60, title: String(repeating: "é", count: 500)).validate(now: now, timeZone: utc)
    }
}
