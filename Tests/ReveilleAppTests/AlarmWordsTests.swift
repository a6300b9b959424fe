import FoundationEssentials
@testable import reveille_app
import ReveilleKit
import ReveilleTimeZone
import Testing

/// What a row of the app's window says: how an alarm repeats, when it rings in words, a
/// countdown as a clock shows it, and how far a timer has run (C locale, 24-hour clock).
@Suite("App window's words")
struct AlarmWordsTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func alarm(_ repeats: Alarm.Schedule.Relative.Recurrence, phase: AlarmRecord.Phase = .scheduled(fireDate: nil),
               disabled: Bool = false) -> AlarmRecord {
        let schedule = Alarm.Schedule.relative(.init(time: .init(hour: 7, minute: 5), repeats: repeats))
        var record = AlarmRecord(id: UUID(), request: AlarmDialog.request(title: "Wake", schedule: schedule, preAlert: nil, snooze: 540),
                                 appID: "reveille", phase: phase)
        record.disabled = disabled
        return record
    }

    func timer(_ phase: AlarmRecord.Phase) -> AlarmRecord {
        AlarmRecord(id: UUID(), request: AlarmDialog.request(title: "Tea", schedule: nil, preAlert: 600, snooze: 540),
                    appID: "reveille", phase: phase)
    }

    @Test func repeatsAreNamedAsPeopleSayThem() {
        #expect(AlarmWords.repeats(alarm(.never)) == "Once")
        #expect(AlarmWords.repeats(alarm(.weekly(AlarmWords.week.reversed()))) == "Every day")
        #expect(AlarmWords.repeats(alarm(.weekly([.friday, .monday, .wednesday, .tuesday, .thursday]))) == "Weekdays")
        #expect(AlarmWords.repeats(alarm(.weekly([.sunday, .saturday]))) == "Weekends")
        // Other days in the week's order, whatever order the schedule lists them in.
        #expect(AlarmWords.repeats(alarm(.weekly([.sunday, .wednesday, .monday]))) == "mon wed sun")
        #expect(AlarmWords.repeats(alarm(.monthly(day: 15))) == "Monthly on day 15")
        #expect(AlarmWords.repeats(alarm(.yearly(month: 3, day: 1))) == "Yearly on 03-01")
        #expect(AlarmWords.repeats(alarm(.everyDays(1, from: CalendarDay(year: 2027, month: 1, day: 2)))) == "Every 1 day from 2027-01-02")
        #expect(AlarmWords.repeats(alarm(.everyDays(3, from: CalendarDay(year: 2027, month: 1, day: 2)))) == "Every 3 days from 2027-01-02")
    }

    @Test func theTimeIsTheWallClocksOrTheDatesForAOneTimeDate() throws {
        #expect(AlarmWords.time(alarm(.never)) == "07:05")
        var fixed = alarm(.never)
        fixed.request.schedule = .fixed(Date(timeIntervalSince1970: 1_798_100_000)) // 2026-12-24 08:13:20 UTC
        #expect(AlarmWords.time(fixed, timeZone: try #require(GLibTimeZone(identifier: "UTC"))) == "2026-12-24 08:13")
        #expect(AlarmWords.time(timer(.countdown(until: now, length: 600, previouslyElapsed: nil))) == "")
    }

    @Test(arguments: [(0.0, "less than a minute"), (59, "less than a minute"), (60, "less than a minute"), (61, "2 min"),
                      (3600, "1 h"), (3660, "1 h 1 min"), (86_400 + 7200, "1 d 2 h"), (-30, "less than a minute"),
                      (.nan, "less than a minute"), (.infinity, "less than a minute")])
    func aSpanIsRoundedUpToTheMinute(_ seconds: TimeInterval, _ words: String) {
        #expect(AlarmWords.span(seconds) == words)
    }

    @Test func nextSaysWhenOrHowItStands() throws {
        let soon = now.addingTimeInterval(3660)
        #expect(AlarmWords.next(alarm(.never, phase: .scheduled(fireDate: soon)), now: now) == "Rings in 1 h 1 min")
        #expect(AlarmWords.next(alarm(.never, phase: .scheduled(fireDate: soon), disabled: true), now: now) == "Off")
        #expect(AlarmWords.next(alarm(.never, phase: .alerting(since: now)), now: now) == "Ringing")
        #expect(AlarmWords.next(alarm(.never), now: now) == "Does not ring again")
        #expect(AlarmWords.next(timer(.paused(remaining: 125, length: 600)), now: now) == "Paused, 2:05 left")
        // A skip leaves the skipped occurrence as the last one, ahead of now.
        var skipping = alarm(.weekly(AlarmWords.week), phase: .scheduled(fireDate: now.addingTimeInterval(86_400 + 3600)))
        skipping.lastOccurrence = now.addingTimeInterval(3600)
        let utc = try #require(GLibTimeZone(identifier: "UTC"))
        #expect(AlarmWords.next(skipping, now: now, timeZone: utc) == "Skips 2027-01-15 09:00, rings in 1 d 1 h")
        #expect(AlarmWords.repeats(skipping.schedule) && !AlarmWords.repeats(alarm(.never).schedule))
    }

    @Test(arguments: [(0.0, "0:00"), (0.2, "0:01"), (65, "1:05"), (599.5, "10:00"), (3725, "1:02:05"), (-3, "0:00"), (.nan, "0:00")])
    func aCountdownReadsAsAClock(_ seconds: TimeInterval, _ clock: String) {
        #expect(AlarmWords.countdown(seconds) == clock)
    }

    @Test func aTimersProgressIsTheShareThatHasRun() {
        let running = AlarmWords.remaining(timer(.countdown(until: now.addingTimeInterval(150), length: 600, previouslyElapsed: nil)), now: now)
        #expect(running.seconds == 150 && running.done == 0.75)
        let paused = AlarmWords.remaining(timer(.paused(remaining: 300, length: 600)), now: now)
        #expect(paused.seconds == 300 && paused.done == 0.5)
        // Past its end (the agent's update on its way): none left, all run; never negative.
        let over = AlarmWords.remaining(timer(.countdown(until: now.addingTimeInterval(-5), length: 600, previouslyElapsed: nil)), now: now)
        #expect(over.seconds == 0 && over.done == 1)
        #expect(AlarmWords.remaining(timer(.countdown(until: now, length: 0, previouslyElapsed: nil)), now: now).done == 1)
    }

    /// Issue 49: `reveille-app --help` had opened the window; it is read before any display.
    @Test func helpAndVersionAreReadBeforeTheWindow() {
        #expect(AppArguments.read([]) == .window)
        #expect(AppArguments.read(["--help"]) == .help && AppArguments.read(["-h"]) == .help)
        #expect(AppArguments.read(["--version"]) == .version)
        #expect(AppArguments.read(["--version", "--help"]) == .help)
        #expect(AppArguments.read(["--bogus"]) == .refused("--bogus"))
        #expect(AppArguments.helpText.hasPrefix("Usage: reveille-app [--help] [--version]\n"))
    }
}
