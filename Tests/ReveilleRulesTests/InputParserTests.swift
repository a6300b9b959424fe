import Foundation
import ReveilleAgentTesting
@testable import ReveilleCore
import ReveilleModel
@testable import ReveilleRules
import Testing

@Suite("Input parsing")
struct InputParserTests {
    let berlin = zone("Europe/Berlin")
    let now = instant("2027-06-01T10:00:00Z")

    @Test(arguments: [("07:30", 7, 30), ("7:30", 7, 30), ("7:30pm", 19, 30), ("7:30 PM", 19, 30),
                      ("19:30", 19, 30), ("7pm", 19, 0), ("12am", 0, 0), ("12:15pm", 12, 15), ("0:00", 0, 0),
                      ("noon", 12, 0), ("midnight", 0, 0), ("7.30", 7, 30), ("0730", 7, 30), ("7 p.m.", 19, 0)])
    func acceptedTimes(_ text: String, _ hour: Int, _ minute: Int) throws {
        #expect(try InputParser.timeOfDay(text) == .init(hour: hour, minute: minute))
    }

    @Test(arguments: ["24:00", "7:60", "13pm", "7", "seven", "7:3", "", "07:30:00x"])
    func rejectedTimes(_ text: String) {
        #expect {
            try InputParser.timeOfDay(text)
        } throws: { error in
            let text = "\(error)"
            return text.contains("as a time of day") && text.contains("accepted: 07:30")
        }
    }

    @Test(arguments: [("90s", 90.0), ("10m", 600), ("1h30m", 5400), ("1h 30m", 5400), ("1.5h", 5400),
                      ("2d", 172_800), ("1:30:00", 5400), ("5:00", 300), ("10min", 600), ("45sec", 45),
                      ("1h30", 5400), ("1h 30", 5400), ("2m30", 150), ("1d12", 129_600)])
    func acceptedDurations(_ text: String, _ seconds: Double) throws {
        #expect(try InputParser.duration(text) == seconds)
    }

    @Test(arguments: ["10", "1:61", "h", "10x", "1::00", "", "30s10", "1h30x", "1h30.5", "-", "--5m"])
    func rejectedDurations(_ text: String) {
        #expect {
            try InputParser.duration(text)
        } throws: { error in
            "\(error)".contains("'\(text)'") && "\(error)".contains("accepted: 90s")
        }
    }

    /// A hundred thousand dashes are refused at once, as any text that is no length (they had
    /// been read by recursion, a dash at a time: quadratic, and deep enough to end the stack).
    @Test func aRunOfDashesIsRefusedInOneStep() {
        let dashes = String(repeating: "-", count: 100_000) + "5m"
        #expect(throws: InputError.self) { try InputParser.duration(dashes) }
    }

    /// `reveille timer 90` reads seconds, as `sleep 90` does; a duration reads as one.
    @Test(arguments: [("90", 90.0), (" 90 ", 90), ("5m", 300), ("1h30", 5400)])
    func timerLengths(_ text: String, _ seconds: Double) throws {
        #expect(try InputParser.timerLength(text) == seconds)
    }

    /// Issue 40: a length read but zero or below says so, not that it could not be read.
    @Test(arguments: ["0s", "-5m", "-1h30", " -90s ", "0:00"])
    func aZeroOrNegativeLengthIsSaidToBeNotPositive(_ text: String) {
        for read in [InputParser.duration, InputParser.timerLength] as [(String) throws -> TimeInterval] {
            #expect {
                try read(text)
            } throws: { error in
                (error as? InputError)?.expected == .durationLongerThanZero && "\(error)" == "'\(text)': durations are positive: 5m, 90s"
            }
        }
        #expect(throws: InputError.self) { try InputParser.timerLength("0") }
    }

    @Test(arguments: ["-5", "9999999999999999999", "tea"])
    func rejectedTimerLengths(_ text: String) {
        #expect {
            try InputParser.timerLength(text)
        } throws: { error in
            "\(error)".contains("'\(text)'") && "\(error)".contains("90 (seconds)")
        }
    }

    @Test(arguments: ["tonight", "18h", "24h00", "7h60"])
    func refusedEverydayForms(_ text: String) {
        #expect(throws: InputError.self) { try InputParser.schedule(text, now: now, timeZone: berlin) }
    }

    /// An unknown name is answered with the few closest, not every name there is.
    @Test func theClosestNamesComeFirst() {
        let names = ["alarm", "alarm-clock-elapsed", "bell", "chime", "complete", "gentle", "handbell", "message", "phone-incoming-call"]
        #expect(InputParser.closest(to: "bel", among: names).first == "bell" && InputParser.closest(to: "bel", among: names).count == 3)
        #expect(InputParser.closest(to: "Chimes", among: names, count: 1) == ["chime"])
        #expect(InputParser.closest(to: "x", among: []).isEmpty)
        #expect(InputParser.editDistance(Array("kitten"), Array("sitting")) == 3)
    }

    @Test func weekdayLists() throws {
        #expect(try InputParser.weekdays("mon,wed,fri") == [.monday, .wednesday, .friday])
        #expect(try InputParser.weekdays("Friday, monday") == [.monday, .friday])
        #expect(try InputParser.weekdays("weekdays") == [.monday, .tuesday, .wednesday, .thursday, .friday])
        #expect(try InputParser.weekdays("weekends") == [.saturday, .sunday])
        #expect(try InputParser.weekdays("daily") == everyDay)
        #expect(try InputParser.weekdays("fri-mon") == [.monday, .friday, .saturday, .sunday])
        #expect(try InputParser.weekdays("tu,th") == [.tuesday, .thursday])
        for bad in ["", "funday", "mon-", "m", "mon-tue-wed"] {
            #expect(throws: InputError.self) { try InputParser.weekdays(bad) }
        }
    }

    @Test func timeOfDayMakesRelativeAndDateMakesFixed() throws {
        #expect(try InputParser.schedule("7:30", now: now, timeZone: berlin) == relative(7, 30))
        #expect(try InputParser.schedule("7:30", days: "weekdays", now: now, timeZone: berlin)
                == relative(7, 30, [.monday, .tuesday, .wednesday, .thursday, .friday]))
        #expect(try InputParser.schedule("2026-12-24 18:00", now: now, timeZone: berlin)
                == .fixed(instant("2026-12-24T17:00:00Z")))
        #expect(try InputParser.schedule("2026-12-24T18:00", now: now, timeZone: berlin)
                == .fixed(instant("2026-12-24T17:00:00Z")))
        #expect(try InputParser.schedule("2026-12-24T18:00+05:00", now: now, timeZone: berlin)
                == .fixed(instant("2026-12-24T13:00:00Z")))
        #expect(try InputParser.schedule("2026-12-24T18:00:30Z", now: now, timeZone: berlin)
                == .fixed(instant("2026-12-24T18:00:30Z")))
        #expect(throws: InputError.self) { try InputParser.schedule("2026-12-24 18:00", days: "mon", now: now, timeZone: berlin) }
    }

    @Test func todayAndTomorrowAreLocalDays() throws {
        // 10:00Z is 12:00 in Berlin on 1 June.
        #expect(try InputParser.instant("today 18:00", now: now, timeZone: berlin) == instant("2027-06-01T16:00:00Z"))
        #expect(try InputParser.instant("tomorrow 7:30", now: now, timeZone: berlin) == instant("2027-06-02T05:30:00Z"))
        #expect(try InputParser.instant("now", now: now, timeZone: berlin) == now)
    }

    @Test func aTimeTypedDuringTheAutumnOverlapIsItsNextOccurrence() throws {
        // Europe/Berlin, Sunday 31 Oct 2027: 02:00–02:59 happens twice.
        for (now, expected) in [("2027-10-31T02:28:00+02:00", "2027-10-31T02:29:00+02:00"),
                                ("2027-10-31T02:28:00+01:00", "2027-10-31T02:29:00+01:00")] {
            for text in ["2:29", "today 2:29", "sun 2:29", "2027-10-31 02:29", "2027-10-31T02:29"] {
                let date = try InputParser.instant(text, now: instant(now), timeZone: berlin)
                #expect(ISO8601Local.string(from: date, in: berlin) == expected, "\(text) at \(now)")
            }
        }
    }

    @Test func anOffsetTypedInTheOverlapChoosesThePass() throws {
        let secondPass = instant("2027-10-31T02:28:00+01:00")
        for (text, expected) in [("2027-10-31T02:29+02:00", "2027-10-31T00:29:00.000Z"), ("2027-10-31 02:29Z", "2027-10-31T02:29:00.000Z"),
                                 ("2027-10-31T02:29:30", "2027-10-31T01:29:30.000Z"), ("2027-10-31 01:15", "2027-10-30T23:15:00.000Z")] {
            let date = try InputParser.instant(text, now: secondPass, timeZone: berlin)
            #expect(ISO8601Local.utcString(from: date) == expected, "\(text)")
        }
    }

    @Test(arguments: ["2026-13-01 10:00", "2026-02-30 10:00", "yesterday 7:00", "2026-12-24 25:00",
                      "2026-12-24T18:00+25:00", "funday 9:00", "in soon", "13/45 9:00", "next 9:00"])
    func rejectedDates(_ text: String) {
        #expect {
            try InputParser.schedule(text, now: now, timeZone: berlin)
        } throws: { error in
            "\(error)".contains("'\(text)'") && "\(error)".contains("tomorrow 7:30")
        }
    }

    /// Everyday forms, as `at` and `systemd-run` take them, at a fixed "now": Tuesday
    /// 2027-06-01 12:00 in Berlin (10:00Z).
    @Test(arguments: [
        ("in 10 minutes", "2027-06-01T10:10:00Z"), ("in 1h30m", "2027-06-01T11:30:00Z"), ("+10m", "2027-06-01T10:10:00Z"),
        ("19:30:15", "2027-06-01T17:30:15Z"), ("11:00:00", "2027-06-02T09:00:00Z"),
        ("tomorrow noon", "2027-06-02T10:00:00Z"), ("tomorrow", "2027-06-02T07:00:00Z"),
        ("monday 9:00", "2027-06-07T07:00:00Z"), ("sat 10:00", "2027-06-05T08:00:00Z"), ("fri 18:00", "2027-06-04T16:00:00Z"),
        ("friday at 6pm", "2027-06-04T16:00:00Z"), ("tue 18:00", "2027-06-01T16:00:00Z"), ("tue 9:00", "2027-06-08T07:00:00Z"),
        ("next tue 18:00", "2027-06-08T16:00:00Z"), ("next monday 9:00", "2027-06-07T07:00:00Z"),
        ("2027-12-24", "2027-12-24T08:00:00Z"), ("12/24 18:00", "2027-12-24T17:00:00Z"), ("24.12. 18:00", "2027-12-24T17:00:00Z"),
        ("dec 24 18:00", "2027-12-24T17:00:00Z"), ("24 december 2027 7pm", "2027-12-24T18:00:00Z"),
        ("5/1 9:00", "2028-05-01T07:00:00Z"), ("12/24/2027 7 pm", "2027-12-24T18:00:00Z"), ("on 24.12.2027 at 18:00", "2027-12-24T17:00:00Z"),
        ("in 1h30", "2027-06-01T11:30:00Z"), ("in 2m30", "2027-06-01T10:02:30Z"), ("tonight 22:00", "2027-06-01T20:00:00Z"),
        ("tonight 10pm", "2027-06-01T20:00:00Z"), ("tomorrow 7h30", "2027-06-02T05:30:00Z"),
    ])
    func everydayFormsRingOnceAt(_ text: String, _ expected: String) throws {
        #expect(try InputParser.schedule(text, now: now, timeZone: berlin) == .fixed(instant(expected)), "\(text)")
    }

    @Test(arguments: [("noon", 12, 0), ("midnight", 0, 0), ("7.30", 7, 30), ("0730", 7, 30), ("7 pm", 19, 0), ("18h00", 18, 0), ("7h05", 7, 5)])
    func timesOfDayStayTimesOfDay(_ text: String, _ hour: Int, _ minute: Int) throws {
        #expect(try InputParser.schedule(text, now: now, timeZone: berlin) == relative(hour, minute))
    }

    @Test func refusedFormsAreAnsweredWithTheClosestAcceptedOne() {
        func message(_ text: String) -> String {
            do { _ = try InputParser.schedule(text, now: now, timeZone: berlin); return "accepted" } catch { return "\(error)" }
        }
        #expect(message("10m").contains("'in 10m' for an alarm 10m from now, or `reveille timer 10m`"), "\(message("10m"))")
        #expect(message("1h30m").contains("`reveille timer 1h30m`"))
        #expect(message("7").contains("7:00, 7am, or 'in 7m'"), "\(message("7"))")
        #expect(message("19").contains("19:00, 7pm"))
        #expect(message("fri 18:00") == "accepted", "a weekday with a time is one of the accepted forms")
    }

    @Test func iso8601FormatsOffsetsIncludingHalfHours() {
        let date = instant("2027-01-15T12:00:00Z")
        #expect(ISO8601Local.string(from: date, in: zone("Asia/Kolkata")) == "2027-01-15T17:30:00+05:30")
        #expect(ISO8601Local.string(from: date, in: zone("America/St_Johns")) == "2027-01-15T08:30:00-03:30")
        #expect(ISO8601Local.string(from: date, in: zone("UTC")) == "2027-01-15T12:00:00+00:00")
        #expect(ISO8601Local.utcString(from: date.addingTimeInterval(0.25)) == "2027-01-15T12:00:00.250Z")
    }
}

@Suite("Command-line splitting")
struct ArgumentSplittingTests {
    @Test(arguments: [
        (#"/usr/bin/notify-send Tea ready"#, ["/usr/bin/notify-send", "Tea", "ready"]),
        (#"/bin/echo 'a b' "c d" e\ f"#, ["/bin/echo", "a b", "c d", "e f"]),
        (#"/bin/echo '$HOME' "~" ;rm *"#, ["/bin/echo", "$HOME", "~", ";rm", "*"]),
        (#"/bin/echo "say \"hi\" \\ \n" ''"#, ["/bin/echo", #"say "hi" \ \n"#, ""]),
        ("  /bin/true   ", ["/bin/true"]),
    ])
    func splitsWithoutAShell(_ text: String, _ expected: [String]) throws {
        #expect(try InputParser.arguments(text) == expected)
    }

    @Test(arguments: ["/bin/echo 'open", #"/bin/echo "open"#, #"/bin/echo \"#])
    func unbalancedQuotesAreRefused(_ text: String) {
        #expect(throws: InputError.self) { try InputParser.arguments(text) }
    }
}
