import Foundation
import ReveilleAgentTesting
import ReveilleModel
@testable import ReveilleRules
import ReveilleTimeZone
import ReveilleWords
import Testing

/// The agent's policy in process, on virtual time: the engine gets events and the instant,
/// and the tests read the effects it asks for. No bus, no disk, no sound server.
@Suite("Alarm engine")
struct AlarmEngineTests {
    let utc = zone("UTC")
    let start = instant("2026-11-23T08:00:00Z")

    /// An engine and its virtual clock; `effects` holds what the last step asked for.
    struct Harness {
        var engine: AlarmEngine
        var now: Date
        let timeZone: any TimeZoneRules
        var effects: [AlarmEngine.Effect] = []

        init(now: Date, timeZone: any TimeZoneRules, settings: AlarmEngine.Settings = .init(), loading records: [AlarmRecord] = []) {
            engine = AlarmEngine(settings: settings)
            self.now = now
            self.timeZone = timeZone
            effects = engine.load(records, now: now, timeZone: timeZone)
        }

        /// A client's command, proposed and committed as the agent does once it is written.
        @discardableResult
        mutating func perform(_ command: AlarmEngine.Command, owner: String? = nil) throws(AlarmRuleError) -> AlarmRecord? {
            let proposal = try engine.propose(command, owner: owner, now: now, timeZone: timeZone)
            effects = engine.commit(proposal)
            return proposal.result
        }

        mutating func schedule(_ request: AlarmRequest, appID: String = ClientIdentity.userAppID, id: UUID = UUID()) throws -> AlarmRecord {
            try #require(try perform(.schedule(id: id, request: request, appID: appID)))
        }

        /// The clock moves to `instant`, and the timer fires there.
        mutating func advance(to instant: Date) {
            now = instant
            effects = engine.advance(now: now, timeZone: timeZone)
        }

        /// Where the engine asked its timer to be set.
        var armed: Date?? {
            for case .arm(let instant) in effects { return instant }
            return nil
        }

        var published: [AlarmChange] {
            var all: [AlarmChange] = []
            for case .publish(let changes) in effects { all += changes }
            return all
        }

        var saved: [AlarmChange] {
            var all: [AlarmChange] = []
            for case .save(let changes) in effects { all += changes }
            return all
        }

        var missed: [(AlarmRecord, Date, MissReason)] {
            var all: [(AlarmRecord, Date, MissReason)] = []
            for case .reportMissed(let record, let due, let reason) in effects { all.append((record, due, reason)) }
            return all
        }

        func state(_ id: UUID) -> Alarm.State? { engine.alarms[id]?.alarm.state }
    }

    func timer(_ seconds: TimeInterval, title: String = "Tea", secondary: AlarmButton? = .snoozeButton,
               behavior: AlarmPresentation.Alert.SecondaryButtonBehavior? = .countdown,
               stopIntent: AlarmIntent? = nil, secondaryIntent: AlarmIntent? = nil, ringLimit: TimeInterval? = nil) -> AlarmRequest {
        AlarmRequest(schedule: nil, countdownDuration: .init(preAlert: seconds, postAlert: 300),
                     presentation: AlarmPresentation(alert: .init(title: title, secondaryButton: secondary, secondaryButtonBehavior: behavior),
                                                     countdown: .init(title: title), paused: .init(title: title)),
                     ring: RingOptions(ringLimit: ringLimit), stopIntent: stopIntent, secondaryIntent: secondaryIntent)
    }

    // MARK: The firing path

    @Test func aTimerRingsAtItsInstantAndNotBefore() throws {
        var harness = Harness(now: start, timeZone: utc)
        let tea = try harness.schedule(timer(600))
        #expect(harness.armed == start + 600, "the timer is armed for the instant it ends")
        #expect(harness.published.map(\.id) == [tea.id])
        harness.advance(to: start + 599.9)
        #expect(harness.state(tea.id) == .countdown && harness.published.isEmpty && harness.saved.isEmpty)
        harness.advance(to: start + 600)
        #expect(harness.state(tea.id) == .alerting)
        #expect(harness.published.map(\.id) == [tea.id] && harness.saved.map(\.id) == [tea.id], "rung, then saved")
        #expect(harness.armed == start + 600 + RingOptions.defaultRingLimit, "next: the ring limit")
        let order = harness.effects.map { effect -> String in
            switch effect { case .publish: "publish"; case .save: "save"; case .arm: "arm"; default: "other" }
        }.filter { $0 != "other" }
        #expect(order == ["arm", "publish", "save"], "the firing path rings before it writes")
    }

    @Test func anAlarmRingingUnansweredToItsLimitIsReportedMissedAndEnds() throws {
        var harness = Harness(now: start, timeZone: utc)
        let tea = try harness.schedule(timer(60, ringLimit: 30))
        harness.advance(to: start + 60)
        #expect(harness.armed == start + 90)
        harness.advance(to: start + 90)
        let missed = try #require(harness.missed.first)
        #expect(missed.0.id == tea.id && missed.1 == start + 60 && missed.2 == .unanswered)
        #expect(harness.engine.alarms[tea.id] == nil && harness.published.contains { $0.id == tea.id && $0.record == nil })
    }

    @Test(arguments: [(300.0, Alarm.State.alerting), (599, .alerting), (601, nil), (7200, nil)])
    func anAlarmDueLongerAgoThanTheLateWindowIsMissedNotRung(late: TimeInterval, expected: Alarm.State?) throws {
        let due = start + 3600
        let record = try AlarmRecord(id: UUID(), request: request(schedule: .fixed(due)), appID: "reveille", now: start, timeZone: utc)
        // The agent was not running at `due`; it starts `late` seconds after.
        let harness = Harness(now: due + late, timeZone: utc, settings: .init(lateWindow: 600), loading: [record])
        #expect(harness.state(record.id) == expected, "\(late) s late")
        #expect(harness.missed.map(\.2) == (expected == nil ? [.late] : []))
    }

    @Test func aRepeatingAlarmMissedLateWaitsForItsNextDay() throws {
        let daily = try AlarmRecord(id: UUID(), request: request(schedule: relative(7, 0, everyDay)), appID: "reveille",
                                    now: instant("2026-11-22T20:00:00Z"), timeZone: utc)
        let harness = Harness(now: instant("2026-11-23T09:00:00Z"), timeZone: utc, loading: [daily])
        #expect(harness.missed.map(\.1) == [instant("2026-11-23T07:00:00Z")])
        #expect(harness.engine.alarms[daily.id]?.fireDate == instant("2026-11-24T07:00:00Z"))
        #expect(harness.armed == instant("2026-11-24T07:00:00Z"))
    }

    @Test func aPreAlertCountsDownBeforeTheAlarmRings() throws {
        var harness = Harness(now: start, timeZone: utc)
        let alarm = try harness.schedule(request(schedule: .fixed(start + 3600), preAlert: 600))
        #expect(harness.state(alarm.id) == .scheduled && harness.armed == start + 3000)
        harness.advance(to: start + 3000)
        #expect(harness.state(alarm.id) == .countdown && harness.armed == start + 3600)
        harness.advance(to: start + 3600)
        #expect(harness.state(alarm.id) == .alerting)
    }

    @Test func snoozingSilencesTheAlarmAndRingsAgainAfterItsLength() throws {
        var harness = Harness(now: start, timeZone: utc)
        let alarm = try harness.schedule(request(schedule: .fixed(start + 60), postAlert: 540))
        harness.advance(to: start + 60)
        let proposal = try harness.engine.propose(.apply(.countdown, id: .id(alarm.id)), owner: nil, now: harness.now, timeZone: utc)
        #expect(proposal.silencesRingingAlarm, "silencing is never refused, even when it cannot be written")
        #expect(harness.state(alarm.id) == .alerting, "nothing changes before commit")
        harness.effects = harness.engine.commit(proposal)
        #expect(harness.state(alarm.id) == .countdown && harness.armed == start + 600)
        harness.advance(to: start + 600)
        #expect(harness.state(alarm.id) == .alerting)
    }

    // MARK: The clock

    @Test func whenTheClockIsSetATimerKeepsItsTimeLeftAndAnAlarmItsInstant() throws {
        var harness = Harness(now: start, timeZone: utc)
        let tea = try harness.schedule(timer(600))
        let meeting = try harness.schedule(request(schedule: .fixed(start + 3600)))
        // The clock is set 5 minutes ahead.
        harness.now = start + 300
        harness.effects = harness.engine.clockSet(by: 300, now: harness.now, timeZone: utc)
        #expect(harness.engine.alarms[tea.id]?.fireDate == start + 900, "still 10 minutes left")
        #expect(harness.engine.alarms[meeting.id]?.fireDate == start + 3600, "an alarm names a wall-clock time")
        #expect(harness.armed == start + 900)
        // A resume from suspend is no jump: the timer that ended meanwhile rings now.
        harness.now = start + 1000
        harness.effects = harness.engine.clockSet(by: 0, now: harness.now, timeZone: utc)
        #expect(harness.state(tea.id) == .alerting)
    }

    /// Berlin, Sunday 2027-10-31: 02:00–02:59 comes twice, first in summer time (00:00–00:59Z),
    /// then in winter time (01:00–01:59Z). A recompute in the second pass (any clock set does
    /// one) keeps the occurrences chosen in the first.
    @Test func aRecomputeInTheRepeatedAutumnHourKeepsTheDayChosenAndWhatRang() throws {
        let berlin = zone("Europe/Berlin")
        var harness = Harness(now: instant("2027-10-30T22:00:00Z"), timeZone: berlin)
        let daily = try harness.schedule(request(schedule: relative(2, 30, everyDay)))
        #expect(harness.engine.alarms[daily.id]?.fireDate == instant("2027-10-31T00:30:00Z"), "02:30 summer time")
        harness.advance(to: instant("2027-10-31T00:30:00Z"))
        #expect(harness.state(daily.id) == .alerting)
        harness.now = instant("2027-10-31T00:31:00Z")
        try harness.perform(.apply(.stop, id: .id(daily.id)))
        #expect(harness.engine.alarms[daily.id]?.fireDate == instant("2027-11-01T01:30:00Z"), "stopped: tomorrow's")
        // Set at 02:40 summer time, a one-time 02:10 is tomorrow's: today's has come.
        harness.now = instant("2027-10-31T00:40:00Z")
        let once = try harness.schedule(request(schedule: relative(2, 10)))
        #expect(harness.engine.alarms[once.id]?.fireDate == instant("2027-11-01T01:10:00Z"))
        // 02:05 winter time: the clock is set (by nothing: a recompute all the same).
        harness.now = instant("2027-10-31T01:05:00Z")
        harness.effects = harness.engine.clockSet(by: 0, now: harness.now, timeZone: berlin)
        #expect(harness.engine.alarms[once.id]?.fireDate == instant("2027-11-01T01:10:00Z"), "the one-time alarm keeps its day")
        #expect(harness.engine.alarms[daily.id]?.fireDate == instant("2027-11-01T01:30:00Z"), "the daily one does not ring twice")
        harness.advance(to: instant("2027-10-31T01:30:00Z"))
        #expect(harness.state(daily.id) == .scheduled && harness.state(once.id) == .scheduled)
        // A time-zone change still moves them: 02:10 and 02:30 in New York.
        harness.effects = harness.engine.timeZoneChanged(now: harness.now, timeZone: zone("America/New_York"))
        #expect(harness.engine.alarms[once.id]?.fireDate == instant("2027-10-31T06:10:00Z"))
        #expect(harness.engine.alarms[daily.id]?.fireDate == instant("2027-10-31T06:30:00Z"))
    }

    /// A set forward is most often a correction (the time really is later): what it makes late
    /// is missed. A set back before such an alarm's time undoes that: it comes back and rings
    /// at its time (set 3 h ahead and 2 h back, an alarm 2 h ahead had stayed deleted).
    @Test func anAlarmMissedByAClockSetComesBackWhenTheClockIsSetBackBeforeIt() throws {
        var harness = Harness(now: start, timeZone: utc)
        let meeting = try harness.schedule(request(schedule: .fixed(start + 2 * 3600), title: "Meeting"))
        let daily = try harness.schedule(request(schedule: relative(9, 0, everyDay), title: "Daily"))
        let early = try harness.schedule(request(schedule: .fixed(start + 1800), title: "Early"))
        // The clock is set 3 hours ahead (a wrong time from the network).
        harness.now = start + 3 * 3600
        harness.effects = harness.engine.clockSet(by: 3 * 3600, now: harness.now, timeZone: utc)
        let missed = harness.effects.compactMap { if case .reportMissed(let record, _, _) = $0 { record.id } else { nil } }
        #expect(Set(missed) == [meeting.id, daily.id, early.id], "made late: missed")
        #expect(harness.engine.alarms[meeting.id] == nil && harness.engine.alarms[daily.id]?.fireDate == instant("2026-11-24T09:00:00Z"))
        // Then back to 08:45: the meeting (10:00) and today's 09:00 are ahead again; 08:30 is not.
        harness.now = start + 2700
        harness.effects = harness.engine.clockSet(by: -(3 * 3600 - 2700), now: harness.now, timeZone: utc)
        #expect(harness.engine.alarms[meeting.id]?.fireDate == start + 2 * 3600 && harness.state(meeting.id) == .scheduled)
        #expect(harness.engine.alarms[daily.id]?.fireDate == instant("2026-11-23T09:00:00Z"))
        #expect(harness.engine.alarms[early.id] == nil, "its time stays behind the clock: missed it stays")
        #expect(Set(harness.saved.map(\.id)) == [meeting.id, daily.id], "what came back is written")
        harness.advance(to: start + 2 * 3600)
        #expect(harness.state(meeting.id) == .alerting)
        #expect(Set(harness.engine.passedOverByClockSet.keys) == [early.id], "what came back is forgotten; 08:30 is kept for a further set back")
    }

    /// The agent starts with the clock ahead (a hardware clock keeping local time, before NTP
    /// answers), then the clock is set back: what the start made late comes back, exactly as a
    /// set back while running brings it back, and its missed notice is withdrawn. What the
    /// engine knows of the clock outlives a restart in between.
    @Test(arguments: [false, true])
    func alarmsAStartWithTheClockAheadMadeLateComeBackWhenTheClockIsSetBack(restartInBetween: Bool) throws {
        var running = Harness(now: start, timeZone: utc)
        let once = try running.schedule(request(schedule: .fixed(start + 3600), title: "Once"))
        let daily = try running.schedule(request(schedule: relative(9, 0, everyDay), title: "Daily"))
        let stoppedAt = start + 60
        var memory = running.engine.clockMemory(now: stoppedAt)
        // Started again 5 minutes later by the real clock, which reads 2 h ahead.
        var ahead = Harness(now: stoppedAt + 300 + 7200, timeZone: utc)
        ahead.effects = ahead.engine.load(Array(running.engine.alarms.values), now: ahead.now, timeZone: utc, remembered: memory)
        let missed = ahead.effects.compactMap { if case .reportMissed(let record, _, _) = $0 { record.id } else { nil } }
        #expect(Set(missed) == [once.id, daily.id], "made late by the start ahead: missed")
        #expect(ahead.engine.alarms[once.id] == nil)
        if restartInBetween {
            memory = ahead.engine.clockMemory(now: ahead.now)
            let alarms = Array(ahead.engine.alarms.values)
            ahead = Harness(now: ahead.now + 1, timeZone: utc)
            ahead.effects = ahead.engine.load(alarms, now: ahead.now, timeZone: utc, remembered: memory)
            #expect(ahead.engine.alarms[once.id] == nil)
        }
        // NTP answers: the clock is set back 2 h.
        ahead.now = ahead.now - 7200
        ahead.effects = ahead.engine.clockSet(by: -7200, now: ahead.now, timeZone: utc)
        #expect(ahead.engine.alarms[once.id]?.fireDate == start + 3600 && ahead.state(once.id) == .scheduled, "the one-time alarm is back")
        #expect(ahead.engine.alarms[daily.id]?.fireDate == instant("2026-11-23T09:00:00Z"), "the daily one rings today again")
        let withdrawn = ahead.effects.compactMap { if case .withdrawMissed(let id) = $0 { id } else { nil } }
        #expect(Set(withdrawn) == [once.id, daily.id], "their missed notices go")
        // Without what the earlier run saw, a start cannot be told from a machine that was off.
        var forgetful = Harness(now: stoppedAt + 300 + 7200, timeZone: utc)
        forgetful.effects = forgetful.engine.load(Array(running.engine.alarms.values), now: forgetful.now, timeZone: utc)
        forgetful.now = forgetful.now - 7200
        forgetful.effects = forgetful.engine.clockSet(by: -7200, now: forgetful.now, timeZone: utc)
        #expect(forgetful.engine.alarms[once.id] == nil, "no memory: missed it stays")
    }

    @Test func anAlarmChangedSinceItWasMissedStaysAsItIsWhenTheClockComesBack() throws {
        var harness = Harness(now: start, timeZone: utc)
        let meeting = try harness.schedule(request(schedule: .fixed(start + 2 * 3600), title: "Meeting"))
        harness.now = start + 3 * 3600
        harness.effects = harness.engine.clockSet(by: 3 * 3600, now: harness.now, timeZone: utc)
        // Added again meanwhile, for another time: that one stands.
        let again = try harness.schedule(request(schedule: .fixed(start + 5 * 3600), title: "Meeting"), id: meeting.id)
        harness.now = start + 3600
        harness.effects = harness.engine.clockSet(by: -2 * 3600, now: harness.now, timeZone: utc)
        #expect(harness.engine.alarms[meeting.id] == again)
        // Late for real (the agent was not running): missed, and nothing brings it back.
        var stopped = Harness(now: start, timeZone: utc)
        let late = try stopped.schedule(request(schedule: .fixed(start + 60)))
        stopped.now = start + 3 * 3600
        stopped.effects = stopped.engine.clockSet(by: 0, now: stopped.now, timeZone: utc)
        stopped.now = start
        stopped.effects = stopped.engine.clockSet(by: -3 * 3600, now: stopped.now, timeZone: utc)
        #expect(stopped.engine.alarms[late.id] == nil, "missed while the agent was down: a set back brings nothing back")
    }

    @Test func anAlarmAtATimeOfDayFollowsTheTimeZone() throws {
        var harness = Harness(now: start, timeZone: utc)
        let alarm = try harness.schedule(request(schedule: relative(10, 0)))
        #expect(harness.engine.alarms[alarm.id]?.fireDate == instant("2026-11-23T10:00:00Z"))
        let berlin = zone("Europe/Berlin")
        harness.effects = harness.engine.timeZoneChanged(now: start, timeZone: berlin)
        #expect(harness.engine.alarms[alarm.id]?.fireDate == instant("2026-11-23T09:00:00Z"), "10:00 in Berlin")
        #expect(harness.published.map(\.id) == [alarm.id])
    }

    // MARK: Buttons

    @Test func stopRunsTheStopIntentAfterStoppingAndTellsTheApp() throws {
        var harness = Harness(now: start, timeZone: utc)
        let tea = try harness.schedule(timer(60, stopIntent: .openApp(desktopID: "org.example.Cook")), appID: "org.example.Cook")
        harness.advance(to: start + 60)
        let press = try #require(try harness.engine.press(.stop, on: tea.id))
        #expect(press.command == .apply(.stop, id: .id(tea.id)))
        let effects = press.effects.map { effect -> String in
            switch effect {
            case .runIntent(.openApp(let id), _, .stop): "open \(id)"
            case .announceButton(let record, .stop): "announce \(record.id == tea.id)"
            default: "\(effect)"
            }
        }
        #expect(effects == ["open org.example.Cook", "announce true"])
    }

    @Test func aCustomSecondButtonRunsItsIntentAndLeavesTheAlarmRinging() throws {
        var harness = Harness(now: start, timeZone: utc)
        let run = AlarmIntent.run(arguments: ["/usr/bin/true"])
        let tea = try harness.schedule(timer(60, secondary: AlarmButton(text: "Run", textColor: .white, systemImageName: "system-run"),
                                             behavior: .custom, secondaryIntent: run))
        harness.advance(to: start + 60)
        let press = try #require(try harness.engine.press(.secondary, on: tea.id))
        #expect(press.command == nil, "AlarmKit: .custom changes nothing")
        #expect(press.effects.count == 2)
        guard case .runIntent(run, _, .secondary) = press.effects[0] else { Issue.record("\(press.effects)"); return }
    }

    @Test func snoozeStopPauseResumeAndCancelButtonsApplyTheirActions() throws {
        var harness = Harness(now: start, timeZone: utc)
        var request = timer(60)
        request.presentation.countdown = .init(title: "Tea", pauseButton: .pauseButton)
        let tea = try harness.schedule(request)
        #expect(try harness.engine.press(.pause, on: tea.id)?.command == .apply(.pause, id: .id(tea.id)))
        #expect(try harness.engine.press(.cancel, on: tea.id)?.command == .apply(.cancel, id: .id(tea.id)))
        _ = try harness.perform(.apply(.pause, id: .id(tea.id)))
        #expect(try harness.engine.press(.resume, on: tea.id)?.command == .apply(.resume, id: .id(tea.id)))
        #expect(try harness.engine.press(.cancel, on: tea.id)?.command == .apply(.cancel, id: .id(tea.id)))
        _ = try harness.perform(.apply(.resume, id: .id(tea.id)))
        harness.advance(to: start + 60)
        #expect(try harness.engine.press(.secondary, on: tea.id)?.command == .apply(.countdown, id: .id(tea.id)))
        #expect(try harness.engine.press(.stop, on: tea.id)?.command == .apply(.stop, id: .id(tea.id)))
        #expect(try harness.engine.press(.stop, on: UUID()) == nil, "a button of a gone alarm does nothing")
    }

    @Test func aButtonTheAlarmDoesNotShowInItsStateIsRefusedAndRunsNothing() throws {
        var harness = Harness(now: start, timeZone: utc)
        let run = AlarmIntent.run(arguments: ["/usr/bin/true"])
        // A countdown without a Pause button, whose alert has a custom second button and a Stop intent.
        let tea = try harness.schedule(timer(60, secondary: AlarmButton(text: "Run", textColor: .white, systemImageName: "system-run"),
                                             behavior: .custom, stopIntent: .openApp(desktopID: "org.example.Cook"), secondaryIntent: run))
        #expect(harness.engine.alarms[tea.id]?.shownButtons == [.cancel])
        for role in [AlarmButtonRole.stop, .secondary, .pause, .resume] {
            // A stale window or a client's guess: Stop would end the timer and tell the app the person
            // stopped it; the custom button, which changes nothing, would run its intent anyway.
            #expect(throws: AlarmRuleError.buttonNotShown(role, alarm: harness.engine.alarms[tea.id]!)) {
                try harness.engine.press(role, on: tea.id)
            }
        }
        harness.advance(to: start + 60)
        #expect(harness.engine.alarms[tea.id]?.shownButtons == [.stop, .secondary])
        #expect(throws: AlarmRuleError.self) { try harness.engine.press(.cancel, on: tea.id) }
        // Without a second button, an alert shows Stop alone.
        let bare = try harness.schedule(timer(60, title: "Bare", secondary: nil, behavior: nil))
        harness.advance(to: start + 120)
        #expect(harness.engine.alarms[bare.id]?.shownButtons == [.stop])
        #expect(throws: AlarmRuleError.self) { try harness.engine.press(.secondary, on: bare.id) }
        // The refusal says what the alarm shows and what was pressed.
        let words = String(describing: AlarmError(AlarmRuleError.buttonNotShown(.pause, alarm: harness.engine.alarms[bare.id]!)))
        #expect(words.contains("shows only stop now; pressed: pause"), "\(words)")
    }

    // MARK: Admission

    @Test func eachAppHasItsOwnLimitAndTheUserAnother() throws {
        var harness = Harness(now: start, timeZone: utc, settings: .init(limitPerApp: 2, limitForUser: 3, limitForSynced: 0))
        for _ in 0..<2 { _ = try harness.schedule(timer(60), appID: "org.example.A") }
        #expect(throws: AlarmRuleError.alarmKit(.maximumLimitReached)) { try harness.schedule(timer(60), appID: "org.example.A") }
        _ = try harness.schedule(timer(60), appID: "org.example.B")
        for _ in 0..<3 { _ = try harness.schedule(timer(60)) }
        #expect(throws: AlarmRuleError.alarmKit(.maximumLimitReached)) { try harness.schedule(timer(60)) }
        #expect(harness.engine.alarms.count == 6)
    }

    @Test func anIdIsUsedOnceAndARefusedRequestChangesNothing() throws {
        var harness = Harness(now: start, timeZone: utc)
        let id = UUID()
        _ = try harness.schedule(timer(60), appID: "org.example.A", id: id)
        let before = harness.engine.alarms
        #expect(throws: AlarmRuleError.idInUse(id)) { try harness.schedule(timer(120), appID: "org.example.B", id: id) }
        #expect(throws: AlarmRuleError.self) { try harness.perform(.apply(.resume, id: .id(id))) }
        #expect(harness.engine.alarms == before)
    }

    @Test func anAppFindsOnlyItsOwnAlarms() throws {
        var harness = Harness(now: start, timeZone: utc)
        let mine = try harness.schedule(timer(60), appID: "org.example.A")
        let theirs = try harness.schedule(timer(60), appID: "org.example.B")
        #expect(try harness.engine.resolve(String(mine.id.uuidString.prefix(6)), owner: "org.example.A") == mine.id)
        #expect(throws: AlarmRuleError.noIDMatches(prefix: theirs.id.uuidString)) { try harness.engine.resolve(theirs.id.uuidString, owner: "org.example.A") }
        #expect(throws: AlarmRuleError.noIDMatches(prefix: theirs.id.uuidString)) { try harness.perform(.apply(.cancel, id: .id(theirs.id)), owner: "org.example.A") }
        #expect(try harness.engine.resolve(theirs.id.uuidString) == theirs.id, "the user reaches every alarm")
        #expect(throws: AlarmRuleError.noIDGiven) { try harness.engine.resolve("") }
    }

    @Test func anAmbiguousPrefixNamesStartsLongEnoughToTellTheAlarmsApart() throws {
        var harness = Harness(now: start, timeZone: utc)
        // Ids an app chose, alike in their first 12 characters.
        for id in ["AAAAAAAA-0001-4000-8000-000000000001", "AAAAAAAA-0002-4000-8000-000000000002", "3F2A9C1E-0000-4000-8000-000000000003"] {
            _ = try harness.schedule(timer(60), id: UUID(uuidString: id)!)
        }
        #expect(throws: AlarmRuleError.ambiguousID(prefix: "aaaa", starts: ["aaaaaaaa-0001", "aaaaaaaa-0002"])) { try harness.engine.resolve("aaaa") }
        #expect(try harness.engine.resolve("aaaaaaaa-0002") == UUID(uuidString: "AAAAAAAA-0002-4000-8000-000000000002"), "the start it named works")
        // Alike in their first 8 only: the hyphen is never where they differ.
        let twins = ["BBBBBBBB-1000-4000-8000-000000000001", "BBBBBBBB-2000-4000-8000-000000000002"].map { UUID(uuidString: $0)! }
        #expect(IDStarts.distinct(twins) == ["bbbbbbbb-1", "bbbbbbbb-2"])
        #expect(IDStarts.distinct([UUID(uuidString: "3F2A9C1E-0000-4000-8000-000000000003")!, UUID(uuidString: "3F99AAAA-0000-4000-8000-000000000004")!])
                == ["3f2a9c1e", "3f99aaaa"], "eight characters where they suffice")
    }

    @Test func aStoreOverTheLimitKeepsTheAlarmsDueSoonest() throws {
        let engine = AlarmEngine(settings: .init(limitPerApp: 2))
        let records = try (1...4).map { minutes in
            try AlarmRecord(id: UUID(), request: timer(Double(minutes) * 60), appID: "org.example.A", now: start, timeZone: utc)
        }
        #expect(Set(engine.overLimit(records.reversed()).map(\.id)) == Set(records.suffix(2).map(\.id)))
    }
}
