import ArgumentParser
import Foundation
@testable import reveille
import ReveilleCore
import ReveilleModel
import ReveilleRules
import Testing

/// Issue 40, "where a person trips": what the CLI made of unquoted times, negative lengths,
/// options that contradict each other, and a date given to a repeating alarm, in process.
@Suite("CLI trips")
struct CLITripTests {
    let parsing = CLIParsingTests()
    var now: Date { parsing.now }

    func request(_ arguments: [String]) throws -> AlarmRequest {
        let command = try Reveille.parseAsRoot(arguments)
        if let add = command as? Add { return try add.request(now: now, timeZone: UTCTimeZone()) }
        if let timer = command as? reveille.Timer { return try timer.request() }
        if let edit = command as? Edit { return try edit.request(changing: try parsing.weekdayAlarm(), now: now, timeZone: UTCTimeZone()) }
        throw ValidationError("not a command that makes a request: \(arguments)")
    }

    /// `add tomorrow 7:30` had been "Unexpected argument '7:30'": people do not quote.
    @Test(arguments: [
        (["add", "tomorrow", "7:30", "--title", "X"], "2027-01-16T07:30:00Z"),
        (["add", "in", "2", "min"], "2027-01-15T08:02:00Z"),
        (["add", "fri", "18:00"], "2027-01-15T18:00:00Z"),
        (["add", "dec", "24", "18:00", "--title", "Eve"], "2027-12-24T18:00:00Z"),
        (["edit", "get up", "tomorrow", "8:00"], "2027-01-16T08:00:00Z"),
    ])
    func aTimeInSeveralWordsIsReadAsOne(_ arguments: [String], _ instant: String) throws {
        #expect(try request(arguments).schedule == .fixed(try Date(instant, strategy: .iso8601)), "\(arguments)")
    }

    @Test func aTimersLengthInSeveralWordsIsReadAsOne() throws {
        #expect(try request(["timer", "1h", "30m", "--title", "Bread"]).countdownDuration?.preAlert == 5400)
        #expect(try request(["timer", "90"]).countdownDuration?.preAlert == 90)
        let snooze = try #require(try Reveille.parseAsRoot(["snooze", "tea", "20", "min"]) as? Snooze)
        #expect(try Snooze.length(snooze.duration.joined(separator: " ")) == 1200)
    }

    /// `timer -5m` had said "Missing expected argument", `--fade -5s` "Missing value for '--fade'".
    @Test(arguments: [
        (["timer", "-5m"], "'-5m': durations are positive: 5m, 90s"),
        (["timer", "-90"], "'-90': durations are positive: 5m, 90s"),
        (["timer", "5m", "--fade", "-5s"], "--fade: '-5s': durations are positive: 5m, 90s"),
        (["timer", "5m", "--snooze", "-1m"], "--snooze: '-1m': durations are positive: 5m, 90s"),
        (["add", "7:30", "--ring-limit", "-5m"], "--ring-limit: '-5m': durations are positive: 5m, 90s"),
        (["add", "7:30", "--pre-alert", "-5m"], "--pre-alert: '-5m': durations are positive: 5m, 90s"),
        (["timer", "5m", "--repeat", "-5m"], "--repeat: '-5m': durations are positive: 5m, 90s"),
        (["timer", "0s"], "duration: '0s': durations are positive: 5m, 90s"),
        (["snooze", "tea", "-5m"], "'-5m': durations are positive: 5m, 90s"),
        (["add", "7:30", "--volume", "-0.5"], "--volume: could not read '-0.5'"),
        (["add", "7:30", "--volume", "-0.5", "--bogus"], "Unknown option '--bogus'"),
        (["add", "7:30", "--sound", "-5"], "Missing value for '--sound <sound>'"),
    ])
    func aNegativeOrZeroLengthIsRefusedInWords(_ arguments: [String], _ expected: String) {
        let said = parsing.message(arguments)
        #expect(said.hasPrefix(expected), "\(arguments): \(said)")
    }

    /// `timer 400d` had said "the countdown before it rings (preAlert) is 400 days", `--ring-limit 4s`
    /// "ringLimit is 4.0 seconds": the agent's words for an app. The CLI says its options' names.
    @Test(arguments: [
        (["timer", "400d"], "duration: '400d' is longer than 366d; accepted: up to 366d"),
        (["add", "7:30", "--pre-alert", "367d"], "--pre-alert: '367d' is longer than 366d; accepted: up to 366d"),
        (["add", "7:30", "--ring-limit", "4s"], "--ring-limit: '4s' is shorter than 5s; accepted: 5s to 24h"),
        (["add", "7:30", "--ring-limit", "25h"], "--ring-limit: '25h' is longer than 24h; accepted: 5s to 24h"),
        (["add", "7:30", "--fade", "1m", "--ring-limit", "30s"], "--fade 1m is longer than the alarm rings (--ring-limit 30s)"),
        (["add", "7:30", "--snooze", "0.5s"], "--snooze: '0.5s' is shorter than 1s; accepted: 1s to 24h"),
        (["add", "7:30", "--snooze", "25h"], "--snooze: '25h' is longer than 24h; accepted: 1s to 24h"),
        (["snooze", "tea", "25h"], "duration: '25h' is longer than 24h; accepted: 1s to 24h"),
        (["timer", "5m", "--repeat", "400d"], "--repeat: '400d' is longer than 366d; accepted: up to 366d"),
        (["edit", "get up", "--ring-limit", "2s"], "--ring-limit: '2s' is shorter than 5s; accepted: 5s to 24h"),
    ])
    func aLengthOutOfBoundsIsRefusedNamingTheOption(_ arguments: [String], _ expected: String) {
        let said = parsing.message(arguments)
        #expect(said.hasPrefix(expected), "\(arguments): \(said)")
        for field in ["preAlert", "postAlert", "ringLimit", "fadeIn", "countdownDuration"] {
            #expect(!said.contains(field), "\(arguments) names the field \(field): \(said)")
        }
    }

    /// A new alarm's fade longer than the built-in 10m, without --ring-limit: the agent gives it a
    /// ring limit as long as the fade (or the ringLimit setting, if longer) rather than refusing it.
    @Test func aNewAlarmsLongFadeWithoutARingLimitRingsAsLongAsTheFade() throws {
        let request = NewAlarmDefaults().filling(try request(["add", "7:30", "--fade", "11m"]), appID: "reveille")
        #expect(request.ring.ringLimit == 660 && request.ring.fadeIn == 660)
        _ = try AlarmRecord(id: UUID(), request: request, appID: "reveille", now: now, timeZone: UTCTimeZone())
        #expect(parsing.message(["edit", "get up", "--fade", "11m"]).hasPrefix("--fade 11m is longer than the alarm rings (--ring-limit 10m)"),
                "a change is checked against the alarm's own limit")
    }

    /// The CLI's bounds are the agent's: a length on a bound passes the agent's rules, one just past it does not.
    @Test func theOptionsBoundsAreTheAgentsRules() throws {
        func accepts(ringLimit: Double) -> Bool { (try? RingOptions(ringLimit: ringLimit).validate()) != nil }
        let ring = DurationRange.ringLimit
        #expect(accepts(ringLimit: try #require(ring.shortest)) && accepts(ringLimit: ring.longest))
        #expect(!accepts(ringLimit: try #require(ring.shortest) - 0.001) && !accepts(ringLimit: ring.longest + 0.001))
        func acceptsSnooze(_ length: Double) -> Bool { (try? AlarmRecord.checkSnoozeLength(length)) != nil }
        let snooze = DurationRange.snooze
        #expect(acceptsSnooze(try #require(snooze.shortest)) && acceptsSnooze(snooze.longest))
        #expect(!acceptsSnooze(try #require(snooze.shortest) - 0.001) && !acceptsSnooze(snooze.longest + 0.001))
        func acceptsTimer(_ length: Double) -> Bool {
            let timer = AlarmRequest(schedule: nil, countdownDuration: .init(preAlert: length, postAlert: nil),
                                     presentation: .reveille(title: "T", secondaryButton: nil, behavior: nil))
            return (try? timer.validate(now: now, timeZone: UTCTimeZone())) != nil
        }
        #expect(acceptsTimer(DurationRange.countdown.longest) && !acceptsTimer(DurationRange.countdown.longest + 0.001))
    }

    /// `timer 10m --repeat 5m --snooze 3m` had dropped the snooze without a word.
    @Test(arguments: [
        (["timer", "10m", "--repeat", "5m", "--snooze", "3m"], "--repeat and --snooze 3m contradict each other"),
        (["add", "7:30", "--secondary", "none", "--snooze", "3m"], "--snooze 3m and --secondary none contradict each other"),
        (["add", "7:30", "--secondary", "open:org.gnome.Calendar", "--snooze", "3m"], "--snooze 3m and --secondary open:org.gnome.Calendar contradict each other"),
        (["edit", "get up", "--repeat", "5m", "--snooze", "3m"], "--repeat and --snooze 3m contradict each other"),
        (["edit", "get up", "--wake", "--no-wake"], "--wake and --no-wake contradict each other"),
    ])
    func optionsThatContradictEachOtherAreRefusedNamingBoth(_ arguments: [String], _ expected: String) {
        let said = parsing.message(arguments)
        #expect(said.hasPrefix(expected), "\(arguments): \(said)")
    }

    @Test func optionsThatAgreeAreTaken() throws {
        #expect(try request(["add", "7:30", "--secondary", "snooze", "--snooze", "3m"]).countdownDuration?.postAlert == 180)
        #expect(try request(["timer", "10m", "--repeat", "5m"]).countdownDuration?.postAlert == 300)
        let repeating = try request(["add", "22:00", "--secondary", "repeat", "--snooze", "5m"])
        #expect(repeating.countdownDuration?.postAlert == 300 && repeating.presentation.alert.secondaryButton == .repeatButton,
                "add has no --repeat: with a Repeat button, --snooze is how long it waits")
        #expect(try request(["add", "7:30", "--title", "-5 degrees"]).presentation.alert.title.defaultValue == "-5 degrees")
    }

    /// `edit "get up" "tomorrow 8:00"` turned a weekdays alarm into a one-time one and said only
    /// "Changed alarm … rings 2026-11-28 08:00". A time alone keeps the repeat; a date says it ends it.
    @Test func editSaysWhenItChangesHowAnAlarmRepeats() throws {
        let old = try parsing.weekdayAlarm()
        let keep = try request(["edit", "get up", "8:00"])
        guard case .relative(let relative)? = keep.schedule else { Issue.record("\(String(describing: keep.schedule))"); return }
        #expect(relative.time == .init(hour: 8, minute: 0) && relative.repeats == old.alarm.schedule.flatMap {
            if case .relative(let before) = $0 { before.repeats } else { nil } })
        let kept = try AlarmRecord(id: old.id, request: keep, appID: "reveille", now: now, timeZone: UTCTimeZone())
        #expect(Edit.repeatChange(from: AlarmSummary(old), to: AlarmSummary(kept), id: "get up") == nil, "nothing to say")

        let once = try AlarmRecord(id: old.id, request: try request(["edit", "get up", "tomorrow", "8:00"]), appID: "reveille",
                                   now: now, timeZone: UTCTimeZone())
        let said = try #require(Edit.repeatChange(from: AlarmSummary(old), to: AlarmSummary(AlarmListing(once), now: now, timeZone: UTCTimeZone()), id: "get up"))
        #expect(said == "It rings once now and no longer repeats weekdays; to keep repeating and change only the time, give a time alone: reveille edit 'get up' 08:00")

        let weekends = try AlarmRecord(id: old.id, request: try request(["edit", "get up", "--days", "sat,sun"]), appID: "reveille",
                                       now: now, timeZone: UTCTimeZone())
        #expect(Edit.repeatChange(from: AlarmSummary(old), to: AlarmSummary(weekends), id: "get up")
                == "How it repeats changed: weekdays before, weekends now.")
    }

    /// `watch` had kept "Paused timer … done." after the timer was resumed from elsewhere.
    @Test func watchsStatusLineGivesWayWhenItNoLongerHolds() throws {
        let timer = try AlarmRecord(id: UUID(), request: try request(["timer", "10m", "--title", "Tea"]), appID: "reveille",
                                    now: now, timeZone: UTCTimeZone())
        let paused = try #require(try timer.applying(.pause, now: now + 5, timeZone: UTCTimeZone()))
        var status = WatchStatus(help: "keys")
        status.say("Paused timer Tea: done. keys", about: timer.id, state: paused.alarm.state)
        status.check([paused])
        #expect(status.text == "Paused timer Tea: done. keys", "it holds while the timer is paused")
        let resumed = try #require(try paused.applying(.resume, now: now + 10, timeZone: UTCTimeZone()))
        status.check([resumed])
        #expect(status.text == "keys", "resumed elsewhere: the report no longer holds")

        status.say("Cancelled timer Tea: done. keys", about: timer.id, state: nil)
        status.check([])
        #expect(status.text == "Cancelled timer Tea: done. keys", "gone, as the key left it")
        status.check([resumed])
        #expect(status.text == "keys")

        status.say("Cancel timer Tea? y/n")
        status.check([paused])
        #expect(status.text == "Cancel timer Tea? y/n", "a question waits for its answer")
    }

    /// A zone at a fixed offset from UTC, named.
    struct FixedZone: TimeZoneRules {
        var identifier: String
        var seconds: Int
        func secondsFromGMT(for date: Date) -> Int { seconds }
    }

    /// N13: with the agent in Tokyo and the terminal in UTC, `add 7:00` answered "rings 22:00" without a word.
    @Test func aTimeOfDayRungOnAnotherZonesClockIsSaid() throws {
        let tokyo = FixedZone(identifier: "Asia/Tokyo", seconds: 9 * 3600)
        // As the agent makes it: the snooze length the CLI leaves out is the person's default.
        let request = NewAlarmDefaults().filling(try request(["add", "7:00", "--days", "weekdays"]), appID: "reveille")
        let agents = try AlarmRecord(id: UUID(), request: request, appID: "reveille", now: now, timeZone: tokyo)
        #expect(AgentZone.warning(for: agents, in: UTCTimeZone())
                == "The agent keeps another time zone than this terminal (UTC): it rings this alarm at 07:00 on its clock, which is 22:00 here.")
        #expect(AgentZone.warning(for: agents, in: tokyo) == nil, "the same zone: nothing to say")
        let same = try AlarmRecord(id: UUID(), request: request, appID: "reveille", now: now, timeZone: UTCTimeZone())
        #expect(AgentZone.warning(for: same, in: UTCTimeZone()) == nil)
        let once = try AlarmRecord(id: UUID(), request: NewAlarmDefaults().filling(try self.request(["add", "tomorrow", "7:00"]), appID: "reveille"), appID: "reveille", now: now, timeZone: tokyo)
        #expect(AgentZone.warning(for: once, in: UTCTimeZone()) == nil, "an instant read here rings at that instant")
    }

    /// New-user trial: `reveille next` alone had said only "Missing expected argument '<time>'", and
    /// `next tomorrow 7:30` unquoted was refused as `add` had been.
    @Test func nextAloneSaysWhatItIsForAndTakesATimeInWords() throws {
        #expect(parsing.message(["next"]).hasPrefix("give a time to see when it would ring, like reveille next 7:30 --days weekdays; the next alarm is in reveille status"))
        let next = try #require(try Reveille.parseAsRoot(["next", "tomorrow", "7:30", "--count", "1"]) as? Next)
        #expect(next.time == ["tomorrow", "7:30"] && parsing.message(["next", "tomorrow", "7:30"]) == "")
    }

    /// New-user trial: `add 7:30 --days funday` had not said which option it could not read.
    @Test(arguments: [
        (["add", "7:30", "--days", "funday"], "--days: could not read 'funday' as a list of weekdays"),
        (["add", "7:30", "--monthly", "32"], "--monthly: could not read '32' as a day of the month"),
        (["add", "7:30", "--yearly", "feb 30"], "--yearly: could not read 'feb 30' as a day of the year"),
        (["edit", "get up", "--every", "0"], "--every: could not read '0' as a number of days"),
    ])
    func aRepeatThatCannotBeReadNamesItsOption(_ arguments: [String], _ expected: String) {
        let said = parsing.message(arguments)
        #expect(said.hasPrefix(expected), "\(arguments): \(said)")
    }

    /// New-user trial: with an alarm ringing, `reveille stop` had said "Missing expected argument '<id>'".
    @Test func stopWithoutAnIDStopsTheAlarmRingingNow() throws {
        func ringing(_ title: String) throws -> AlarmRecord {
            let timer = try AlarmRecord(id: UUID(), request: try request(["timer", "1m", "--title", title]), appID: "reveille",
                                        now: now, timeZone: UTCTimeZone())
            guard case .updated(let rings) = timer.advanced(to: now + 60, lateWindow: 60, timeZone: UTCTimeZone()) else {
                throw ValidationError("\(title) did not ring")
            }
            return rings
        }
        let tea = try ringing("Tea"), eggs = try ringing("Eggs"), later = try parsing.weekdayAlarm()
        #expect(tea.alarm.state == .alerting)
        #expect(try AlarmTarget.ringing(in: [later, tea]).id == tea.id)
        #expect(throws: AlarmError.self, "nothing rings") { try AlarmTarget.ringing(in: [later]) }
        #expect {
            try AlarmTarget.ringing(in: [tea, later, eggs])
        } throws: { error in
            let reason = (error as? AlarmError)?.reason ?? ""
            return reason.hasPrefix("2 alarms are ringing (") && reason.contains("\"Tea\"") && reason.contains("\"Eggs\"")
        }
        let stop = try #require(try Reveille.parseAsRoot(["stop"]) as? Stop)
        #expect(stop.id == nil)
        // `snooze 20 min`: words that name no alarm but read as a length are the ringing alarm's length.
        let snooze = try #require(try Reveille.parseAsRoot(["snooze", "20", "min"]) as? Snooze)
        #expect(snooze.id == "20" && Snooze.readsAsLength([snooze.id!] + snooze.duration) && !Snooze.readsAsLength(["tea"]))
    }
}
