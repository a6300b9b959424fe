import Foundation
import ReveilleAgentTesting
import ReveilleModel
@testable import ReveilleRules
import Testing

@Suite("Schedule math")
struct ScheduleMathTests {
    /// One DST case: a daily wall time, counted from `from`, expected as local ISO strings.
    struct Case: CustomTestStringConvertible, Sendable {
        var zone: String, hour: Int, minute: Int, from: String, expected: [String], why: String
        var testDescription: String { "\(zone) \(hour):\(minute) — \(why)" }
    }

    static let dstCases: [Case] = [
        Case(zone: "Europe/Berlin", hour: 2, minute: 30, from: "2027-03-27T12:00:00Z",
             expected: ["2027-03-28T03:30:00+02:00", "2027-03-29T02:30:00+02:00"],
             why: "spring gap fires with the offset before the transition"),
        Case(zone: "Europe/Berlin", hour: 2, minute: 30, from: "2027-10-30T12:00:00Z",
             expected: ["2027-10-31T02:30:00+02:00", "2027-11-01T02:30:00+01:00"],
             why: "fall overlap fires once, at the first occurrence"),
        Case(zone: "America/New_York", hour: 2, minute: 15, from: "2027-03-13T12:00:00Z",
             expected: ["2027-03-14T03:15:00-04:00", "2027-03-15T02:15:00-04:00"],
             why: "spring gap"),
        Case(zone: "America/New_York", hour: 1, minute: 30, from: "2027-11-06T12:00:00Z",
             expected: ["2027-11-07T01:30:00-04:00", "2027-11-08T01:30:00-05:00"],
             why: "fall overlap"),
        Case(zone: "Australia/Sydney", hour: 2, minute: 30, from: "2027-10-02T00:00:00Z",
             expected: ["2027-10-03T03:30:00+11:00", "2027-10-04T02:30:00+11:00"],
             why: "southern spring gap"),
        Case(zone: "Australia/Sydney", hour: 2, minute: 30, from: "2027-04-03T00:00:00Z",
             expected: ["2027-04-04T02:30:00+11:00", "2027-04-05T02:30:00+10:00"],
             why: "southern fall overlap"),
        Case(zone: "Australia/Lord_Howe", hour: 2, minute: 15, from: "2027-10-02T00:00:00Z",
             expected: ["2027-10-03T02:45:00+11:00", "2027-10-04T02:15:00+11:00"],
             why: "30-minute spring gap"),
        Case(zone: "Australia/Lord_Howe", hour: 1, minute: 45, from: "2027-04-03T00:00:00Z",
             expected: ["2027-04-04T01:45:00+11:00", "2027-04-05T01:45:00+10:30"],
             why: "30-minute fall overlap"),
        Case(zone: "America/Havana", hour: 0, minute: 30, from: "2028-03-11T12:00:00Z",
             expected: ["2028-03-12T01:30:00-04:00", "2028-03-13T00:30:00-04:00"],
             why: "spring gap at midnight"),
        Case(zone: "America/Havana", hour: 0, minute: 30, from: "2028-11-04T12:00:00Z",
             expected: ["2028-11-05T00:30:00-04:00", "2028-11-06T00:30:00-05:00"],
             why: "fall overlap at midnight"),
        Case(zone: "America/Santiago", hour: 23, minute: 30, from: "2027-04-03T12:00:00Z",
             expected: ["2027-04-03T23:30:00-03:00", "2027-04-04T23:30:00-04:00"],
             why: "overlap before midnight: 23:30 happens twice"),
        Case(zone: "America/Santiago", hour: 0, minute: 30, from: "2027-09-04T12:00:00Z",
             expected: ["2027-09-05T01:30:00-03:00", "2027-09-06T00:30:00-03:00"],
             why: "gap at midnight: the day starts at 01:00"),
    ]

    @Test(arguments: dstCases)
    func daylightSavingRules(_ c: Case) {
        let tz = zone(c.zone)
        let dates = relative(c.hour, c.minute, everyDay).fireDates(after: instant(c.from), count: c.expected.count, in: tz)
        #expect(dates.map { ISO8601Local.string(from: $0, in: tz) } == c.expected)
    }

    @Test func overlapFiresOnceEvenWhenAskedBetweenTheTwoOccurrences() {
        let tz = zone("Europe/Berlin")
        // 02:45 CEST on 31 Oct 2027 is after the first 02:30 and before the second one.
        let between = instant("2027-10-31T02:45:00+02:00")
        let next = relative(2, 30).nextFireDate(after: between, in: tz)!
        #expect(ISO8601Local.string(from: next, in: tz) == "2027-11-01T02:30:00+01:00")
    }

    /// Europe/Berlin, 31 Oct 2027: 02:00–02:59 happens twice (CEST, then CET).
    static let overlapFirstPass = "2027-10-31T02:28:00+02:00", overlapSecondPass = "2027-10-31T02:28:00+01:00"

    @Test func aTimeInTheOverlapSetInItsFirstPassRingsAtTheFirstOccurrence() {
        let tz = zone("Europe/Berlin")
        for schedule in [relative(2, 29), relative(2, 29, [.sunday]), relative(2, 29, everyDay)] {
            let next = schedule.nextFireDate(after: instant(Self.overlapFirstPass), in: tz)!
            #expect(ISO8601Local.string(from: next, in: tz) == "2027-10-31T02:29:00+02:00", "\(schedule)")
        }
    }

    @Test func aTimeInTheOverlapSetInItsSecondPassRingsMinutesLaterNotADayLater() {
        let tz = zone("Europe/Berlin")
        for schedule in [relative(2, 29), relative(2, 29, [.sunday]), relative(2, 29, everyDay)] {
            let next = schedule.nextFireDate(after: instant(Self.overlapSecondPass), in: tz)!
            #expect(ISO8601Local.string(from: next, in: tz) == "2027-10-31T02:29:00+01:00", "\(schedule)")
        }
    }

    @Test func aRepeatingAlarmThatRangInTheFirstPassDoesNotRingAgainInTheSecond() {
        let tz = zone("Europe/Berlin")
        let rang = instant("2027-10-31T02:29:00+02:00")
        let weekly = relative(2, 29, [.sunday]).nextFireDate(after: rang, in: tz)!
        #expect(ISO8601Local.string(from: weekly, in: tz) == "2027-11-07T02:29:00+01:00")
        let daily = relative(2, 29, everyDay).fireDates(after: instant("2027-10-30T12:00:00Z"), count: 2, in: tz)
        #expect(daily.map { ISO8601Local.string(from: $0, in: tz) } == ["2027-10-31T02:29:00+02:00", "2027-11-01T02:29:00+01:00"])
    }

    @Test func aTimeInTheSpringGapStillTakesTheOffsetBeforeIt() {
        let tz = zone("Europe/Berlin")
        let next = relative(2, 29, [.sunday]).nextFireDate(after: instant("2027-03-28T01:59:00+01:00"), in: tz)!
        #expect(ISO8601Local.string(from: next, in: tz) == "2027-03-28T03:29:00+02:00")
    }

    @Test func oneTimeRelativeIsTheNextOccurrenceStrictlyAfterNow() {
        let tz = zone("Europe/Berlin")
        let now = instant("2027-06-01T07:30:00+02:00")
        #expect(ISO8601Local.string(from: relative(7, 30).nextFireDate(after: now, in: tz)!, in: tz)
                == "2027-06-02T07:30:00+02:00")
        #expect(ISO8601Local.string(from: relative(7, 31).nextFireDate(after: now, in: tz)!, in: tz)
                == "2027-06-01T07:31:00+02:00")
    }

    @Test func weeklyPicksOnlyTheListedDays() {
        let tz = zone("America/New_York")
        // 2027-06-02 is a Wednesday.
        let dates = relative(7, 0, [.monday, .friday]).fireDates(after: instant("2027-06-02T12:00:00Z"), count: 3, in: tz)
        #expect(dates.map { ISO8601Local.string(from: $0, in: tz) }
                == ["2027-06-04T07:00:00-04:00", "2027-06-07T07:00:00-04:00", "2027-06-11T07:00:00-04:00"])
    }

    @Test func weeklyWithNoDaysNeverFires() {
        #expect(relative(7, 0, []).nextFireDate(after: Date(), in: zone("UTC")) == nil)
    }

    @Test func fixedKeepsItsInstantInEveryZone() {
        let date = instant("2027-01-01T12:00:00Z")
        for name in ["UTC", "Asia/Tokyo", "America/Los_Angeles"] {
            #expect(Alarm.Schedule.fixed(date).nextFireDate(after: instant("2026-12-31T00:00:00Z"), in: zone(name)) == date)
        }
        #expect(Alarm.Schedule.fixed(date).nextFireDate(after: date, in: zone("UTC")) == nil)
    }

    @Test func relativeFollowsTheTimeZone() {
        let now = instant("2027-06-01T00:00:00Z")
        let tokyo = relative(7, 0).nextFireDate(after: now, in: zone("Asia/Tokyo"))!
        let paris = relative(7, 0).nextFireDate(after: now, in: zone("Europe/Paris"))!
        #expect(ISO8601Local.utcString(from: tokyo) == "2027-06-01T22:00:00.000Z")
        #expect(ISO8601Local.utcString(from: paris) == "2027-06-01T05:00:00.000Z")
    }

    @Test func civilDateArithmeticRoundTripsAcrossCenturies() {
        for days in stride(from: -800_000, through: 800_000, by: 997) {
            let date = CivilDate(daysSinceEpoch: days)
            #expect(date.daysSinceEpoch == days)
        }
        #expect(CivilDate(year: 2027, month: 3, day: 28).weekday == .sunday)
        #expect(!CivilDate(year: 2027, month: 2, day: 29).isValid)
        #expect(CivilDate(year: 2028, month: 2, day: 29).isValid)
    }
}
