import Foundation
@testable import ReveilleCalendar
import ReveilleCore
import ReveilleModel
import ReveilleRules
import ReveilleTimeZone
import Testing

private func zone(_ name: String) -> GLibTimeZone { GLibTimeZone(identifier: name)! }
private func zones(_ name: String) -> (any TimeZoneRules)? { GLibTimeZone(identifier: name) }
private func instant(_ text: String) -> Date { ISO8601Local.parse(text, defaultTimeZone: UTCTimeZone())! }

/// The user's alarm as the CLI makes it, with every setting Reveille carries.
private func request(_ schedule: Alarm.Schedule?, title: String = "Wake up", preAlert: TimeInterval? = nil,
                     snooze: TimeInterval = 540, secondary: SecondaryButton = .snooze, sound: AlertConfiguration.AlertSound = .default,
                     ring: RingOptions = RingOptions()) -> AlarmRequest {
    let (button, behavior, intent) = secondary.parts
    return AlarmRequest(schedule: schedule, countdownDuration: .init(preAlert: preAlert, postAlert: snooze),
                        presentation: .userAlarm(title: title, secondaryButton: button, behavior: behavior),
                        sound: sound, ring: ring, secondaryIntent: intent)
}

/// Writes `records` as a calendar, reads the text back through libical, and maps it again.
private func roundTrip(_ records: [AlarmRecord], now: Date, in timeZone: any TimeZoneRules) throws -> (CalendarReading, String) {
    let (calendar, leftOut) = AlarmCalendar.calendar(records, now: now, timeZone: timeZone)
    #expect(leftOut.isEmpty, "\(leftOut)")
    let text = calendar.text
    let document = try ICalParser.parse(text, limits: .file)
    #expect(document.problems.isEmpty, "\(document.problems)")
    return (AlarmCalendar.alarms(in: document.components, now: now, timeZone: timeZone, zones: zones, defaultTitle: "Alarm"), text)
}

private func fixture(_ name: String) throws -> String {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return try String(contentsOf: root.appendingPathComponent("Fuzz/corpus/ical/\(name)"), encoding: .utf8)
}

private func read(_ text: String, now: Date, in timeZone: any TimeZoneRules) throws -> CalendarReading {
    let document = try ICalParser.parse(text, limits: .file)
    return AlarmCalendar.alarms(in: document.components, now: now, timeZone: timeZone, zones: zones, defaultTitle: "Alarm")
}

private func calendar(_ lines: String...) -> String {
    (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN"] + lines + ["END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
}

@Suite("iCalendar mapping")
struct AlarmCalendarTests {
    static let now = instant("2027-01-10T12:00:00Z")

    @Test("every alarm kind and every Reveille setting comes back as it was written")
    func everyFieldRoundTrips() throws {
        let berlin = zone("Europe/Berlin")
        let full = RingOptions(volume: 0.512, fadeIn: 30, ringLimit: 300, wakesMachine: false)
        let requests: [(AlarmRequest, Bool)] = [
            (request(.fixed(instant("2027-02-01T06:15:00Z")), title: "Flight; gate B, \\ bring passport\nand tickets",
                     preAlert: 600, snooze: 300, secondary: .repeat, sound: .named("bell"), ring: full), false),
            (request(.relative(.init(time: .init(hour: 7, minute: 30), repeats: .never)), title: "Next 7:30", secondary: .none), false),
            (request(.relative(.init(time: .init(hour: 6, minute: 0), repeats: .weekly([.monday, .wednesday, .friday]))),
                     title: String(repeating: "Réveil ⏰ ", count: 40) + "!", secondary: .open(desktopID: "org.gnome.Calendar"),
                     sound: .named("/home/me/sounds/rooster.oga"), ring: RingOptions(volume: 1)), false),
            (request(.relative(.init(time: .init(hour: 22, minute: 45), repeats: .weekly([.sunday]))), title: "Disabled"), true),
            (request(nil, title: "Tea", preAlert: 240), false),
        ]
        var records: [AlarmRecord] = []
        for (request, disabled) in requests {
            var record = try AlarmRecord(id: UUID(), request: request, appID: "reveille", now: Self.now, timeZone: berlin)
            if disabled { record = try record.disabling() }
            records.append(record)
        }
        let (reading, text) = try roundTrip(records, now: Self.now, in: berlin)
        #expect(reading.unmapped.isEmpty, "\(reading.unmapped)")
        #expect(text.split(separator: "\r\n").allSatisfy { $0.utf8.count <= 75 }, "every line folded at 75 bytes")
        #expect(reading.alarms.count == records.count)
        for (record, alarm) in zip(records, reading.alarms) {
            #expect(alarm.id == record.id)
            #expect(alarm.disabled == record.disabled)
            if record.schedule == nil {
                // A timer counts down from when it is read to the same end.
                #expect(alarm.request.schedule == nil)
                #expect(alarm.request.countdownDuration?.preAlert == 240)
                var rest = alarm.request
                rest.countdownDuration = record.request.countdownDuration
                #expect(rest == record.request)
            } else {
                #expect(alarm.request == record.request)
            }
        }
    }

    @Test("RFC 9074: a Stop is written as ACKNOWLEDGED and a snooze as one VALARM related to the alarm's, and read back")
    func reminderRoundTrips() throws {
        let record = try AlarmRecord(id: UUID(), request: request(.relative(.init(time: .init(hour: 6, minute: 0), repeats: .weekly([.monday])))),
                                     appID: "reveille", now: Self.now, timeZone: UTCTimeZone())
        let reminder = AlarmCalendar.Reminder(acknowledged: instant("2027-01-11T06:00:42Z"), snoozedUntil: instant("2027-01-11T06:09:00Z"))
        let (event, _) = try AlarmCalendar.event(record, now: Self.now, timeZone: UTCTimeZone(), reminder: reminder).get()
        let text = ICalComponent("VCALENDAR", properties: [ICalProperty("VERSION", "2.0")], components: [event]).text
        #expect(text.contains("ACKNOWLEDGED:20270111T060042Z\r\n"))
        #expect(text.contains("RELATED-TO;RELTYPE=SNOOZE:\(AlarmCalendar.valarmUID(record.id))\r\n"))
        let parsed = try #require(try ICalParser.parse(text, limits: .resource).components.first?.components.first)
        #expect(AlarmCalendar.Reminder(parsed) == reminder)
        // Still one alarm, its snooze named, never a second alarm.
        let reading = AlarmCalendar.alarms(in: [parsed], now: Self.now, timeZone: UTCTimeZone(), zones: zones, defaultTitle: "Alarm")
        #expect(reading.alarms.map(\.request) == [record.request])
        #expect(reading.unmapped.count == 1 && reading.unmapped[0].contains("RELTYPE=SNOOZE"))
    }

    @Test("a run: button is never written: a calendar must not make a machine run a command")
    func runCommandsDoNotTravel() throws {
        var alarm = request(.fixed(instant("2027-02-01T06:15:00Z")))
        alarm.presentation = .userAlarm(title: "Backup", secondaryButton: .openAppButton, behavior: .custom)
        alarm.secondaryIntent = .run(arguments: ["/usr/bin/rm", "-rf", "/"])
        let record = try AlarmRecord(id: UUID(), request: alarm, appID: "reveille", now: Self.now, timeZone: UTCTimeZone())
        let (calendar, leftOut) = AlarmCalendar.calendar([record], now: Self.now, timeZone: UTCTimeZone())
        #expect(!calendar.text.contains("rm"))
        #expect(leftOut.count == 1 && leftOut[0].contains("run: button is not written"))
        let hostile = calendar.text.replacingOccurrences(of: "X-REVEILLE-SECONDARY:none", with: "X-REVEILLE-SECONDARY:run:/bin/sh")
        let reading = try read(hostile, now: Self.now, in: UTCTimeZone())
        #expect(reading.alarms.first?.request.secondaryIntent == nil)
        #expect(reading.unmapped.contains { $0.contains("X-REVEILLE-SECONDARY run:/bin/sh is not snooze, repeat, none or open:DESKTOP_ID") })
    }

    @Test("wall-clock alarms keep their time across a DST change; zoned times in a gap or overlap follow WallClock's rules")
    func daylightSaving() throws {
        let berlin = zone("Europe/Berlin")
        let beforeSpring = instant("2027-03-27T12:00:00Z")
        let weekly = try AlarmRecord(id: UUID(), request: request(.relative(.init(time: .init(hour: 2, minute: 30), repeats: .weekly([.sunday])))),
                                     appID: "reveille", now: beforeSpring, timeZone: berlin)
        let (reading, text) = try roundTrip([weekly], now: beforeSpring, in: berlin)
        #expect(text.contains("DTSTART:20270328T023000\r\n"), "floating, the wall-clock time itself")
        #expect(reading.alarms.first?.request == weekly.request)
        let zoned = try read(calendar(
            "BEGIN:VEVENT", "UID:gap", "SUMMARY:In the gap", "DTSTART;TZID=Europe/Berlin:20270328T023000",
            "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:x", "TRIGGER:PT0S", "END:VALARM", "END:VEVENT",
            "BEGIN:VEVENT", "UID:overlap", "SUMMARY:In the overlap", "DTSTART;TZID=Europe/Berlin:20271031T023000",
            "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:x", "TRIGGER:-PT10M", "END:VALARM", "END:VEVENT"),
            now: beforeSpring, in: UTCTimeZone())
        #expect(zoned.alarms.map(\.request.schedule) == [.fixed(instant("2027-03-28T01:30:00Z")), .fixed(instant("2027-10-31T00:20:00Z"))])
    }

    @Test("RRULE: daily and weekly rules become weekdays, a trigger past midnight moves them, others are named")
    func recurrenceRules() throws {
        func event(_ rule: String, start: String = "20270104T003000", trigger: String = "-PT45M") -> String {
            calendar("BEGIN:VEVENT", "UID:r", "SUMMARY:Rule", "DTSTART:\(start)", "RRULE:\(rule)",
                     "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:x", "TRIGGER:\(trigger)", "END:VALARM", "END:VEVENT")
        }
        func schedule(_ text: String) throws -> Alarm.Schedule? { try read(text, now: Self.now, in: UTCTimeZone()).alarms.first?.request.schedule }
        let weekly = { (hour: Int, minute: Int, days: [Locale.Weekday]) in
            Alarm.Schedule.relative(.init(time: .init(hour: hour, minute: minute), repeats: .weekly(days)))
        }
        // Monday 00:30, 45 minutes before: Sunday, Tuesday and Thursday at 23:45.
        #expect(try schedule(event("FREQ=WEEKLY;BYDAY=MO,WE,FR")) == weekly(23, 45, [.sunday, .tuesday, .thursday]))
        #expect(try schedule(event("FREQ=WEEKLY", trigger: "PT0S")) == weekly(0, 30, [.monday]))
        #expect(try schedule(event("FREQ=DAILY;INTERVAL=1", trigger: "PT1H")) ==
                weekly(1, 30, [.sunday, .monday, .tuesday, .wednesday, .thursday, .friday, .saturday]))
        for (rule, named) in [("FREQ=MONTHLY;BYMONTHDAY=31", "FREQ=MONTHLY"), ("FREQ=WEEKLY;INTERVAL=2", "INTERVAL=2"),
                              ("FREQ=WEEKLY;COUNT=3", "COUNT=3"), ("FREQ=WEEKLY;BYDAY=1MO", "1MO")] {
            let reading = try read(event(rule), now: Self.now, in: UTCTimeZone())
            #expect(reading.alarms.isEmpty)
            #expect(reading.unmapped.count == 1 && reading.unmapped[0].contains(named) && reading.unmapped[0].contains("cannot be held")
                    || reading.unmapped.first?.contains("not a plain weekday") == true, "\(reading.unmapped)")
        }
    }

    @Test("Thunderbird's calendar: zoned event, weekly event and a to-do's DUE, with their triggers")
    func thunderbirdFixture() throws {
        let berlin = zone("Europe/Berlin")
        let reading = try read(try fixture("thunderbird.ics"), now: Self.now, in: berlin)
        #expect(reading.unmapped.isEmpty, "\(reading.unmapped)")
        #expect(reading.alarms.map(\.request.schedule) == [
            .fixed(instant("2035-03-12T07:45:00Z")),
            .relative(.init(time: .init(hour: 5, minute: 45), repeats: .weekly([.monday, .wednesday, .friday]))),
            .fixed(instant("2035-03-20T16:00:00Z")),
        ])
        #expect(reading.alarms.map(\.request.presentation.alert.title.defaultValue) == ["Dentist", "Gym", "Return library books"])
        #expect(reading.alarms[0].id == UUID(uuidString: "5b1c6c1e-7b0a-4f5e-9d5e-3c2f0a1b2c3d"))
    }

    @Test("monthly, yearly and every-N-days alarms come back as written; plain monthly and yearly rules of other calendars are read; a reminder on another day than its monthly event is named")
    func calendarRepeats() throws {
        let berlin = zone("Europe/Berlin")
        let repeats: [Alarm.Schedule.Relative.Recurrence] = [
            .monthly(day: 31), .monthly(day: 15), .yearly(month: 2, day: 29), .yearly(month: 3, day: 21),
            .everyDays(3, from: CalendarDay(year: 2027, month: 1, day: 11)),
        ]
        let records = try repeats.map {
            try AlarmRecord(id: UUID(), request: request(.relative(.init(time: .init(hour: 6, minute: 45), repeats: $0))),
                            appID: ClientIdentity.userAppID, now: Self.now, timeZone: berlin)
        }
        let (reading, _) = try roundTrip(records, now: Self.now, in: berlin)
        #expect(reading.unmapped.isEmpty, "\(reading.unmapped)")
        #expect(reading.alarms.map(\.request.schedule) == repeats.map { .relative(.init(time: .init(hour: 6, minute: 45), repeats: $0)) })

        func event(_ rule: String, start: String = "20270104T073000", trigger: String = "-PT15M") -> String {
            calendar("BEGIN:VEVENT", "UID:r", "SUMMARY:Rule", "DTSTART:\(start)", "RRULE:\(rule)",
                     "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:x", "TRIGGER:\(trigger)", "END:VALARM", "END:VEVENT")
        }
        func schedule(_ text: String) throws -> Alarm.Schedule? { try read(text, now: Self.now, in: UTCTimeZone()).alarms.first?.request.schedule }
        let at715 = { (repeats: Alarm.Schedule.Relative.Recurrence) in Alarm.Schedule.relative(.init(time: .init(hour: 7, minute: 15), repeats: repeats)) }
        #expect(try schedule(event("FREQ=MONTHLY")) == at715(.monthly(day: 4)))
        #expect(try schedule(event("FREQ=YEARLY")) == at715(.yearly(month: 1, day: 4)))
        #expect(try schedule(event("FREQ=YEARLY;BYMONTH=7;BYMONTHDAY=14")) == at715(.yearly(month: 7, day: 14)))
        #expect(try schedule(event("FREQ=DAILY;INTERVAL=2")) == at715(.everyDays(2, from: CalendarDay(year: 2027, month: 1, day: 4))))
        // Every few days, a reminder the evening before moves the first day with it.
        #expect(try schedule(event("FREQ=DAILY;INTERVAL=2", trigger: "-PT8H")) ==
                .relative(.init(time: .init(hour: 23, minute: 30), repeats: .everyDays(2, from: CalendarDay(year: 2027, month: 1, day: 3)))))
        let evening = try read(event("FREQ=MONTHLY;BYMONTHDAY=4", trigger: "-PT8H"), now: Self.now, in: UTCTimeZone())
        #expect(evening.alarms.isEmpty && evening.unmapped.first?.contains("another day") == true, "\(evening.unmapped)")
        for rule in ["FREQ=MONTHLY;COUNT=3", "FREQ=MONTHLY;INTERVAL=2", "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29", "FREQ=MONTHLY;BYMONTHDAY=1,15"] {
            let reading = try read(event(rule), now: Self.now, in: UTCTimeZone())
            #expect(reading.alarms.isEmpty && reading.unmapped.first?.contains("cannot be held") == true, "\(rule): \(reading.unmapped)")
        }
    }

    @Test("GNOME Calendar's file: an Evolution zone name is read; a monthly rule is named, not guessed")
    func gnomeCalendarFixture() throws {
        let reading = try read(try fixture("gnome-calendar.ics"), now: Self.now, in: zone("Europe/Berlin"))
        #expect(reading.alarms.map(\.request.schedule) == [.fixed(instant("2035-12-24T17:00:00Z"))])
        #expect(reading.alarms.first?.request.presentation.alert.title.defaultValue == "Réveillon")
        #expect(reading.unmapped.count == 1 && reading.unmapped[0].contains("New Year's Eve") && reading.unmapped[0].contains("FREQ=MONTHLY"))
    }

    @Test("RFC 5545's examples: an absolute trigger, REPEAT and DURATION, RELATED=END on a to-do; mail reminders named")
    func rfc5545Fixture() throws {
        let reading = try read(try fixture("rfc5545-alarms.ics"), now: Self.now, in: UTCTimeZone())
        let review = (0...4).map { Alarm.Schedule.fixed(instant("2035-03-17T13:30:00Z").addingTimeInterval(Double($0) * 900)) }
        // 08:00 in New York (EDT, -4) is 12:00Z; 30 minutes before, then twice every 15 minutes.
        let breakfast = (0...2).map { Alarm.Schedule.fixed(instant("2035-04-02T11:30:00Z").addingTimeInterval(Double($0) * 900)) }
        #expect(reading.alarms.map(\.request.schedule) == review + breakfast + [.fixed(instant("2035-04-14T23:00:00Z"))])
        #expect(reading.alarms[5].request.presentation.alert.title.defaultValue == "Breakfast meeting")
        #expect(reading.unmapped.count == 1 && reading.unmapped[0].contains("ACTION:EMAIL"), "\(reading.unmapped)")
    }

    @Test("RFC 9074: an acknowledged reminder and a snooze of it are not rung again, and each is named")
    func rfc9074Fixture() throws {
        let reading = try read(try fixture("rfc9074-snooze.ics"), now: Self.now, in: UTCTimeZone())
        #expect(reading.alarms.isEmpty)
        #expect(reading.unmapped.count == 2)
        #expect(reading.unmapped.contains { $0.contains("acknowledged") })
        #expect(reading.unmapped.contains { $0.contains("RELTYPE=SNOOZE") })
    }

    @Test("what cannot ring is named: no VALARM, a past reminder, an unknown zone, a bad trigger, bad settings")
    func unmappableNamed() throws {
        let reading = try read(calendar(
            "BEGIN:VEVENT", "UID:a", "SUMMARY:No reminder", "DTSTART:20350101T100000Z", "END:VEVENT",
            "BEGIN:VEVENT", "UID:b", "SUMMARY:Past", "DTSTART:20200101T100000Z",
            "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:x", "TRIGGER:PT0S", "END:VALARM", "END:VEVENT",
            "BEGIN:VEVENT", "UID:c", "SUMMARY:Nowhere", "DTSTART;TZID=Mars/Olympus:20350101T100000",
            "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:x", "TRIGGER:PT0S", "END:VALARM", "END:VEVENT",
            "BEGIN:VEVENT", "UID:d", "SUMMARY:Bad trigger", "DTSTART:20350101T100000Z",
            "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:x", "TRIGGER:soon", "END:VALARM", "END:VEVENT",
            "BEGIN:VEVENT", "UID:e", "SUMMARY:Loud", "DTSTART:20350101T100000Z", "X-REVEILLE-VOLUME:5", "X-REVEILLE-RING-LIMIT:P400D",
            "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:x", "TRIGGER:PT0S", "REPEAT:1000", "DURATION:PT1M", "END:VALARM",
            "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:x", "TRIGGER:PT0S", "END:VALARM", "END:VEVENT"),
            now: Self.now, in: UTCTimeZone())
        #expect(reading.alarms.map(\.source) == ["\"Loud\" (VEVENT e)"])
        #expect(reading.alarms.first?.request.ring == RingOptions())
        for expected in ["\"No reminder\" (VEVENT a): has no VALARM", "\"Past\" (VEVENT b): its reminder at 2020-01-01T10:00:00+00:00 is past",
                         "time zone Mars/Olympus is not one this system knows", "\"Bad trigger\" (VEVENT d): a VALARM has no TRIGGER",
                         "X-REVEILLE-VOLUME 5 is not a number from 0 to 1", "X-REVEILLE-RING-LIMIT P400D is not a duration",
                         "REPEAT:1000 asks for more than 12"] {
            #expect(reading.unmapped.contains { $0.contains(expected) }, "\(expected)")
        }
    }
}

@Suite("iCalendar bounds")
struct ICalBoundsTests {
    static let event = ["BEGIN:VEVENT", "UID:x", "DTSTART:20350101T100000Z"]

    private func refusal(_ text: String, limits: ICalLimits = .file) -> String? {
        do { _ = try ICalParser.parse(text, limits: limits); return nil } catch { return error.description }
    }

    @Test("an event with 10,000 VALARMs is refused by count, in a file and as a server's resource")
    func tenThousandAlarms() {
        let valarm = ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:x", "TRIGGER:PT0S", "END:VALARM"]
        let text = calendar(Self.event + Array(repeating: valarm, count: 10_000).flatMap { $0 } + ["END:VEVENT"])
        #expect(refusal(text) == "VEVENT x has 10000 VALARMs; at most 64 are accepted in one")
        #expect(refusal(text, limits: .resource)?.hasPrefix("the calendar is ") == true)
    }

    @Test("size, lines, components, nesting and NUL bytes are bounded before libical reads anything")
    func boundsOnTheBytes() {
        #expect(refusal(String(repeating: "X", count: (16 << 20) + 1)) == "the calendar is \((16 << 20) + 1) bytes; at most \(16 << 20) are accepted")
        #expect(refusal(String(repeating: "X:1\n", count: 400_001)) == "the calendar has more than 400000 lines; at most 400000 are accepted")
        let deep = (0..<9).map { "BEGIN:X-\($0)" } + (0..<9).reversed().map { "END:X-\($0)" }
        #expect(refusal(calendar(deep)) == "the calendar nests components more than 8 deep; at most 8 are accepted")
        let many = Array(repeating: ["BEGIN:VTODO", "END:VTODO"], count: 40_000).flatMap { $0 }
        #expect(refusal(calendar(many)) == "the calendar has more than 40000 components; at most 40000 are accepted")
        #expect(refusal("BEGIN:VCALENDAR\r\nSUMMARY:a\0b\r\nEND:VCALENDAR\r\n") == "the calendar contains a NUL byte; iCalendar is text")
        #expect(refusal("<html>not a calendar</html>") == "no iCalendar data found; expected BEGIN:VCALENDAR … END:VCALENDAR")
    }

    @Test("malformed lines come back as problems, the rest is read")
    func malformedLines() throws {
        let document = try ICalParser.parse(calendar(Self.event + ["DTSTAMP:garbage", "SUMMARY:kept", "END:VEVENT"]), limits: .file)
        #expect(document.problems.count == 1 && document.problems[0].contains("DTSTAMP"))
        #expect(document.components.first?.components.first?.value("SUMMARY") == "kept")
    }

    @Test("durations read and written")
    func durations() {
        #expect(ICalDuration.seconds("-PT15M") == -900)
        #expect(ICalDuration.seconds("P1W") == 604_800)
        #expect(ICalDuration.seconds("P1DT2H3M4S") == 93_784)
        #expect(ICalDuration.seconds("PT") == nil)
        #expect(ICalDuration.seconds("P99999999999D") == nil)
        #expect(ICalDuration.seconds("PT1H2") == nil)
        #expect([0, 540, -900, 93_784, 86_400].map(ICalDuration.text) == ["PT0S", "PT9M", "-PT15M", "P1DT2H3M4S", "P1D"])
    }
}

private func calendar(_ lines: [String]) -> String {
    (["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//test//EN"] + lines + ["END:VCALENDAR"]).joined(separator: "\r\n") + "\r\n"
}
