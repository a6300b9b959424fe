import Foundation
import ReveilleAgentTesting
@testable import ReveilleCore
import ReveilleModel
@testable import ReveilleRules
import Testing

/// Issue 27: monthly and yearly repeats and "every N days" (Reveille extensions), tested as
/// weekly is: across month ends, leap years and both daylight-saving transitions.
@Suite("Monthly, yearly and every-few-days repeats")
struct CalendarRepeatTests {
    typealias Recurrence = Alarm.Schedule.Relative.Recurrence

    func dates(_ hour: Int, _ minute: Int, _ repeats: Recurrence, from: String, count: Int, zone name: String = "UTC") -> [String] {
        let tz = zone(name)
        let schedule = Alarm.Schedule.relative(.init(time: .init(hour: hour, minute: minute), repeats: repeats))
        return schedule.fireDates(after: instant(from), count: count, in: tz).map { ISO8601Local.string(from: $0, in: tz) }
    }

    @Test func theThirtyFirstRingsOnTheLastDayOfShorterMonths() {
        #expect(dates(7, 0, .monthly(day: 31), from: "2027-01-31T08:00:00Z", count: 5) == [
            "2027-02-28T07:00:00+00:00", "2027-03-31T07:00:00+00:00", "2027-04-30T07:00:00+00:00", "2027-05-31T07:00:00+00:00", "2027-06-30T07:00:00+00:00",
        ])
        #expect(dates(7, 0, .monthly(day: 30), from: "2028-01-30T06:00:00Z", count: 3) == [
            "2028-01-30T07:00:00+00:00", "2028-02-29T07:00:00+00:00", "2028-03-30T07:00:00+00:00",
        ], "a leap February ends on the 29th")
        #expect(dates(23, 59, .monthly(day: 15), from: "2027-12-15T23:59:00Z", count: 2) == ["2028-01-15T23:59:00+00:00", "2028-02-15T23:59:00+00:00"],
                "across the year's end, and not again at the instant itself")
    }

    @Test func februaryTheTwentyNinthRingsOnTheTwentyEighthInOtherYears() {
        #expect(dates(9, 0, .yearly(month: 2, day: 29), from: "2027-01-01T00:00:00Z", count: 4) == [
            "2027-02-28T09:00:00+00:00", "2028-02-29T09:00:00+00:00", "2029-02-28T09:00:00+00:00", "2030-02-28T09:00:00+00:00",
        ])
        #expect(dates(9, 0, .yearly(month: 3, day: 21), from: "2027-03-21T09:00:00Z", count: 2) == ["2028-03-21T09:00:00+00:00", "2029-03-21T09:00:00+00:00"])
        #expect(dates(0, 0, .yearly(month: 12, day: 31), from: "2100-12-31T00:00:00Z", count: 1) == ["2101-12-31T00:00:00+00:00"])
    }

    @Test func everyFewDaysCountsFromItsFirstDayAcrossMonthsAndLeapDays() {
        let from = CalendarDay(year: 2028, month: 2, day: 26)
        #expect(dates(7, 0, .everyDays(3, from: from), from: "2028-02-20T00:00:00Z", count: 4) == [
            "2028-02-26T07:00:00+00:00", "2028-02-29T07:00:00+00:00", "2028-03-03T07:00:00+00:00", "2028-03-06T07:00:00+00:00",
        ], "it starts on its first day, not before")
        #expect(dates(7, 0, .everyDays(3, from: from), from: "2028-03-03T07:00:00Z", count: 1) == ["2028-03-06T07:00:00+00:00"])
        #expect(dates(7, 0, .everyDays(366, from: from), from: "2028-02-27T00:00:00Z", count: 1) == ["2029-02-26T07:00:00+00:00"])
        #expect(dates(7, 0, .everyDays(1, from: from), from: "2028-02-27T08:00:00Z", count: 2) == ["2028-02-28T07:00:00+00:00", "2028-02-29T07:00:00+00:00"])
    }

    /// As weekly: in a spring gap the time takes the offset before the change; in a fall-back
    /// overlap it rings once, at its first pass.
    @Test func daylightSavingGapAndOverlapAsWeekly() {
        #expect(dates(2, 30, .monthly(day: 28), from: "2027-03-01T00:00:00Z", count: 2, zone: "Europe/Berlin") == [
            "2027-03-28T03:30:00+02:00", "2027-04-28T02:30:00+02:00",
        ])
        #expect(dates(2, 30, .yearly(month: 10, day: 31), from: "2027-10-30T12:00:00Z", count: 2, zone: "Europe/Berlin") == [
            "2027-10-31T02:30:00+02:00", "2028-10-31T02:30:00+01:00",
        ])
        let overlap = dates(2, 30, .everyDays(2, from: CalendarDay(year: 2027, month: 10, day: 29)), from: "2027-10-30T12:00:00Z",
                            count: 2, zone: "Europe/Berlin")
        #expect(overlap == ["2027-10-31T02:30:00+02:00", "2027-11-02T02:30:00+01:00"], "once in the overlap")
        #expect(dates(2, 15, .everyDays(7, from: CalendarDay(year: 2027, month: 3, day: 7)), from: "2027-03-08T00:00:00Z", count: 1,
                      zone: "America/New_York") == ["2027-03-14T03:15:00-04:00"], "the spring gap")
    }

    @Test func theJSONIsReadBackAndOldFormsStayAsTheyWere() throws {
        for repeats: Recurrence in [.never, .weekly([.monday, .friday]), .monthly(day: 31), .yearly(month: 2, day: 29),
                                    .everyDays(3, from: CalendarDay(year: 2026, month: 11, day: 23))] {
            let json = try JSONCoding.compactEncoder.encode(repeats)
            #expect(try JSONCoding.decoder.decode(Recurrence.self, from: json) == repeats, "\(String(decoding: json, as: UTF8.self))")
        }
        #expect(try JSONCoding.decoder.decode(Recurrence.self, from: Data(#"["Monday", "friday"]"#.utf8)) == .weekly([.monday, .friday]))
        #expect(String(decoding: try JSONCoding.compactEncoder.encode(Recurrence.weekly([.monday])), as: UTF8.self) == #"["mon"]"#)
        #expect(String(decoding: try JSONCoding.compactEncoder.encode(Recurrence.monthly(day: 15)), as: UTF8.self) == #"{"monthly":15}"#)
        #expect(String(decoding: try JSONCoding.compactEncoder.encode(Recurrence.everyDays(3, from: CalendarDay(year: 2026, month: 11, day: 3))),
                       as: UTF8.self).contains(#""from":"2026-11-03""#))
        #expect(Alarm.Schedule.relative(.init(time: .init(hour: 7, minute: 0), repeats: .monthly(day: 1))).isRepeating)
    }

    @Test(arguments: [
        (#"{"monthly": 0}"#, "accepted: 1–31"), (#"{"monthly": 32}"#, "accepted: 1–31"), (#"{"monthly": 1e300}"#, ""),
        (#"{"yearly": {"month": 13, "day": 1}}"#, "accepted: 1–12"), (#"{"yearly": {"month": 4, "day": 31}}"#, "accepted: 1–30"),
        (#"{"yearly": {"month": 2, "day": 30}}"#, "accepted: 1–29"), (#"{"everyDays": 0, "from": "2026-11-23"}"#, "accepted: 1–366"),
        (#"{"everyDays": 367, "from": "2026-11-23"}"#, "accepted: 1–366"), (#"{"everyDays": 3, "from": "2026-02-30"}"#, "not a day"),
        (#"{"everyDays": 3, "from": "tomorrow"}"#, "accepted: YYYY-MM-DD"), (#"{"everyDays": 3}"#, ""), (#"{"daily": 1}"#, "repeats is"),
        (#""daily""#, "repeats is"), (#"["mon", "someday"]"#, "'someday' is not a weekday"), (#"7"#, "repeats is"),
        // One form, whole: no second form, and no key beside it that it does not read.
        (#"{"monthly": 3, "everyDays": 2, "from": "2026-11-23"}"#, "without 'everyDays and monthly' beside it"),
        (#"{"monthly": 3, "from": "2026-11-23"}"#, "without 'from' beside it"), (#"{"monthly": 3, "dai": 2}"#, "without 'dai' beside it"),
    ])
    func anOutOfRangeRecurrenceIsRefusedInWords(json: String, said: String) throws {
        let configuration = #"{"schedule": {"relative": {"time": {"hour": 7, "minute": 0}, "repeats": "# + json
            + #"}}, "presentation": {"alert": {"title": "Up", "stopButton": {"text": "Stop", "textColor": {"red": 1, "green": 1, "blue": 1}, "systemImageName": "stop"}}}}"#
        do {
            _ = try AlarmRequest.decode(configuration: configuration)
            Issue.record("\(json) was accepted")
        } catch {
            #expect(said.isEmpty || error.reason.contains(said), "\(error.reason)")
        }
    }

    @Test func validationRefusesWhatDecodingWouldRefuse() {
        let request = request(schedule: .relative(.init(time: .init(hour: 7, minute: 0), repeats: .monthly(day: 40))))
        #expect(throws: AlarmError.self) { try request.validate(now: Date(), timeZone: UTCTimeZone()) }
    }

    @Test func theCLIFormsReadEachWayToRepeatAndRefuseTwo() throws {
        let now = instant("2026-11-23T20:00:00+00:00"), utc = UTCTimeZone()
        func repeats(_ options: InputParser.Repeats, _ time: String = "7:00") throws -> Recurrence? {
            guard case .relative(let relative) = try InputParser.schedule(time, repeats: options, now: now, timeZone: utc) else { return nil }
            return relative.repeats
        }
        #expect(try repeats(.init(monthly: "15")) == .monthly(day: 15))
        #expect(try repeats(.init(yearly: "03-21")) == .yearly(month: 3, day: 21))
        #expect(try repeats(.init(yearly: "mar 21")) == .yearly(month: 3, day: 21))
        #expect(try repeats(.init(yearly: "2/29")) == .yearly(month: 2, day: 29))
        // 07:00 has passed on the 23rd at 20:00: every 3 days counts from the 24th.
        #expect(try repeats(.init(every: "3d")) == .everyDays(3, from: CalendarDay(year: 2026, month: 11, day: 24)))
        #expect(try repeats(.init(every: "2 weeks"), "21:00") == .everyDays(14, from: CalendarDay(year: 2026, month: 11, day: 23)))
        #expect(try repeats(.init(days: "mon")) == .weekly([.monday]))
        for (options, said) in [(InputParser.Repeats(monthly: "32"), "a day of the month, 1 to 31"), (.init(monthly: "15th"), "1 to 31"),
                                (.init(yearly: "02-30"), "a month and day"), (.init(yearly: "2027-03-21"), "a month and day"),
                                (.init(every: "0d"), "from 1 to 366"), (.init(every: "53w"), "from 1 to 366"), (.init(every: "3h"), "3d, 3 days"),
                                (.init(days: "mon", monthly: "1"), "one of --days, --monthly, --yearly or --every")] {
            #expect(throws: InputError.self) { try repeats(options) }
            do { _ = try repeats(options) } catch { #expect("\(error)".contains(said), "\(error)") }
        }
        #expect(throws: InputError.self, "a date does not repeat") { try repeats(.init(monthly: "1"), "2026-12-24 18:00") }
    }
}
