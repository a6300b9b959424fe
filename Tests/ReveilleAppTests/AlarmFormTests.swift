import FoundationEssentials
@testable import reveille_app
import ReveilleCalendar
import ReveilleCore
import ReveilleKit
import ReveilleModel
import ReveilleRules
import ReveilleTimeZone
import SystemPackage
import Testing

/// The dialog's fields and the request they make: read with the CLI's rules, refused naming
/// the field, and only what the person changed is changed (C locale, UTC).
@Suite("Alarm dialog's form")
struct AlarmFormTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000) // 2027-01-15 08:00 UTC, a Friday
    let utc = UTCTimeZone()
    let today = CalendarDay(year: 2027, month: 1, day: 15)

    /// A record as the agent keeps `request`.
    func record(_ request: AlarmRequest) -> AlarmRecord {
        AlarmRecord(id: UUID(), request: request, appID: ClientIdentity.userAppID, phase: .scheduled(fireDate: nil))
    }

    /// An alarm with values the dialog shows rounded or not at all, as the CLI sets them.
    var odd: AlarmRequest {
        var request = AlarmDialog.request(title: "Odd", schedule: .relative(.init(time: .init(hour: 7, minute: 30),
                                                                                  repeats: .everyDays(3, from: CalendarDay(year: 2027, month: 1, day: 2)))),
                                          preAlert: 120, snooze: 45)
        request.sound = .named("/home/someone/Music/gong.ogg")
        request.ring = RingOptions(volume: 0.5, fadeIn: 7, ringLimit: 90, wakesMachine: false)
        return request
    }

    func edit(_ request: AlarmRequest, _ change: (inout AlarmForm) -> Void) throws(FieldRefusal) -> AlarmRequest {
        let initial = AlarmForm(record(request), today: today, timeZone: utc)
        var form = initial
        change(&form)
        return try form.request(changing: request, from: initial, now: now, timeZone: utc)
    }

    func new(_ change: (inout AlarmForm) -> Void) throws(FieldRefusal) -> AlarmRequest {
        let initial = AlarmForm(today: today)
        var form = initial
        change(&form)
        return try form.request(changing: nil, from: initial, now: now, timeZone: utc)
    }

    /// Issue 50: a new alarm's fields show the person's defaults (the agent's settings), and the
    /// alarm says what they showed, changed or not: what the person saw is what it gets.
    @Test func aNewAlarmShowsThePersonsDefaultsAndSaysWhatItShowed() throws {
        let defaults = NewAlarmDefaults(sound: "chime", snooze: 300, ringLimit: 1800)
        let initial = AlarmForm(today: today, defaults: defaults)
        #expect(initial.sound == "chime" && initial.snooze == "5m" && initial.ringLimit == "30m")
        let unchanged = try initial.request(changing: nil, from: initial, now: now, timeZone: utc)
        #expect(unchanged.sound == .named("chime") && unchanged.countdownDuration?.postAlert == 300 && unchanged.ring.ringLimit == 1800)
        var changed = initial
        (changed.sound, changed.snooze, changed.ringLimit, changed.fadeIn) = (nil, "9m", "10m", "12m")
        #expect(throws: FieldRefusal.self, "a fade longer than the ring length shown") {
            _ = try changed.request(changing: nil, from: initial, now: now, timeZone: utc)
        }
        changed.fadeIn = ""
        let said = try changed.request(changing: nil, from: initial, now: now, timeZone: utc)
        #expect(said.sound == .named("alarm"), "Reveille's own sound chosen, by name")
        #expect(said.countdownDuration?.postAlert == 540 && said.ring.ringLimit == 600, "10m said: the default would be 30m")
        #expect(NewAlarmDefaults(sound: "bell", snooze: 60, ringLimit: 60).filling(said, appID: "reveille") == said, "what was said stays")
        // A fade of 20m within the 30m shown is taken, though the built-in limit is 10m.
        var longFade = initial
        longFade.fadeIn = "20m"
        #expect(try longFade.request(changing: nil, from: initial, now: now, timeZone: utc).ring.fadeIn == 1200)
    }

    @Test func anUnchangedFormGivesTheRequestItWasMadeOf() throws {
        #expect(try edit(odd) { _ in } == odd)
        var fixed = odd
        fixed.schedule = .fixed(now.addingTimeInterval(86_400 + 754))
        #expect(try edit(fixed) { _ in } == fixed)
        let form = AlarmForm(record(odd), today: today, timeZone: utc)
        // Shown as typed: the volume where the slider stands (0.5 is 79%), lengths as the CLI takes them.
        #expect(form.volume == 79 && form.fadeIn == "7s" && form.snooze == "45s" && form.ringLimit == "90s" && !form.wakes)
        #expect(form.repeats == .everyDays && form.everyDays == 3 && form.sound == "/home/someone/Music/gong.ogg")
    }

    @Test func aChangedFieldChangesOnlyItsValue() throws {
        var expected = odd
        expected.presentation = .userAlarm(title: "Even", secondaryButton: .snoozeButton, behavior: .countdown)
        #expect(try edit(odd) { $0.title = "  Even " } == expected)
        // A new time alone keeps the day an every-few-days count starts from, as `reveille edit 8:00` does.
        expected = odd
        expected.schedule = .relative(.init(time: .init(hour: 8, minute: 0), repeats: .everyDays(3, from: CalendarDay(year: 2027, month: 1, day: 2))))
        #expect(try edit(odd) { $0.hour = 8; $0.minute = 0 } == expected)
        expected = odd
        expected.ring.volume = nil
        #expect(try edit(odd) { $0.volume = 100 } == expected, "full volume is the default, left unsaid")
        expected.ring.volume = VolumeScale.linear(slider: 0.8)
        #expect(try edit(odd) { $0.volume = 80 } == expected)
        expected = odd
        expected.ring.ringLimit = nil
        #expect(try edit(odd) { $0.ringLimit = "10m" } == expected, "the default ring limit, left unsaid")
        expected = odd
        (expected.sound, expected.ring.wakesMachine, expected.ring.fadeIn) = (.default, nil, nil)
        #expect(try edit(odd) { $0.sound = nil; $0.wakes = true; $0.fadeIn = " " } == expected)
    }

    @Test func aNewAlarmIsTheCLIsWithTheFieldsGiven() throws {
        #expect(try new { _ in } == AlarmDialog.request(title: "Alarm", schedule: .relative(.init(time: .init(hour: 7, minute: 0), repeats: .never)),
                                                        preAlert: nil, snooze: 540), "the built-in defaults, as shown")
        let monthly = try new { $0.repeats = .monthly; $0.monthDay = 31; $0.sound = "bell"; $0.snooze = "5m" }
        #expect(monthly.schedule == .relative(.init(time: .init(hour: 7, minute: 0), repeats: .monthly(day: 31))))
        #expect(monthly.sound == .named("bell") && monthly.countdownDuration?.postAlert == 300)
        #expect(try new { $0.repeats = .yearly; $0.yearMonth = 2; $0.yearDay = 29 }.schedule
                == .relative(.init(time: .init(hour: 7, minute: 0), repeats: .yearly(month: 2, day: 29))))
        // Every few days counts from the time's next occurrence: 07:00 has passed today at 08:00.
        #expect(try new { $0.repeats = .everyDays; $0.everyDays = 2 }.schedule
                == .relative(.init(time: .init(hour: 7, minute: 0), repeats: .everyDays(2, from: CalendarDay(year: 2027, month: 1, day: 16)))))
        #expect(try new { $0.days = [.friday, .monday] }.schedule == .relative(.init(time: .init(hour: 7, minute: 0), repeats: .weekly([.monday, .friday]))))
        // Days chosen on the weekly page do not count once another way to repeat is chosen.
        #expect(try new { $0.days = [.monday]; $0.repeats = .monthly; $0.monthDay = 3 }.schedule
                == .relative(.init(time: .init(hour: 7, minute: 0), repeats: .monthly(day: 3))))
    }

    @Test(arguments: [
        ("snooze", "2d", "Snooze: '2d' is longer than 24h; accepted: 1s to 24h"),
        ("snooze", "soon", "Snooze: could not read 'soon' as a duration; accepted: 90s, 10m, 1h30m, 1h30, 1.5h, 2d, 1:30:00 (h:mm:ss), 5:00 (m:ss)"),
        ("ringLimit", "2s", "Ring for: '2s' is shorter than 5s; accepted: 5s to 24h"),
        ("fadeIn", "-5s", "Fade-in: '-5s': durations are positive: 5m, 90s"),
        ("fadeIn", "20m", "Fade-in 20m is longer than the alarm rings (Ring for 10m); the fade must end within it"),
        ("yearly", "2-30", "Day of the year: could not read '2-30' as a day of the year; accepted: a month and day: 03-21, 3/21, 21.03., mar 21 (February 29 rings on the 28th in other years)"),
        ("volume", "5", "Volume: '5%' could not be heard; accepted: 10% to 100% (an alarm is never silent)"),
    ])
    func aRefusalNamesTheFieldAndWhatIsAccepted(_ field: String, _ text: String, _ message: String) {
        let named = ["snooze": AlarmForm.Field.snooze, "ringLimit": AlarmForm.Field.ringLimit, "fadeIn": AlarmForm.Field.fadeIn,
                     "yearly": AlarmForm.Field.yearDay, "volume": AlarmForm.Field.volume][field]!
        #expect(throws: FieldRefusal(message, field: named)) {
            try new { form in
                switch field {
                case "snooze": form.snooze = text
                case "ringLimit": form.ringLimit = text
                case "fadeIn": form.fadeIn = text
                case "yearly": (form.repeats, form.yearMonth, form.yearDay) = (.yearly, 2, Int(text.dropFirst(2))!)
                default: form.volume = Int(text)!
                }
            }
        }
    }

    /// Ring again (issue 52): typed as the CLI's `--repeat-unanswered`, emptied back to the
    /// setting's default, refused naming the field.
    @Test func ringAgainIsTypedAsTheCLITakesItAndEmptyMeansTheSetting() throws {
        let three = try new { $0.ringAgain = "3x5m" }
        #expect(three.ring.repeatUnanswered == UnansweredRepeat(rings: 3, rest: 300))
        var own = odd
        own.ring.repeatUnanswered = UnansweredRepeat(rings: 2, rest: 60)
        #expect(AlarmForm(record(own), today: today, timeZone: utc).ringAgain == "2x1m")
        #expect(try edit(own) { $0.ringAgain = " " }.ring.repeatUnanswered == nil, "emptied: the setting's")
        #expect(try edit(own) { $0.ringAgain = "off" }.ring.repeatUnanswered == .once)
        #expect(try edit(own) { $0.title = "Other" }.ring.repeatUnanswered == own.ring.repeatUnanswered, "untouched, kept")
        do {
            _ = try new { $0.ringAgain = "12x5m" }
            Issue.record("12 rings were taken")
        } catch {
            #expect(error.field == "Ring again" && error.description.contains("2 to 10 rings"), "\(error.description)")
        }
    }

    @Test func aFadeLongerThanAShorterRingLimitIsRefusedNamingBoth() {
        #expect(throws: FieldRefusal("Fade-in 7s is longer than the alarm rings (Ring for 5s); the fade must end within it", field: AlarmForm.Field.fadeIn)) {
            try edit(odd) { $0.ringLimit = "5s" }
        }
    }
}

/// The recent timers beside the presets: what the person started, newest first, kept in the
/// app's own small file and judged when read.
@Suite("Recent timers")
struct RecentTimersTests {
    func timer(_ length: TimeInterval, app: String = ClientIdentity.userAppID) -> AlarmRecord {
        AlarmRecord(id: UUID(), request: AlarmDialog.request(title: "T", schedule: nil, preAlert: length, snooze: 540), appID: app,
                    phase: .countdown(until: Date(), length: length, previouslyElapsed: nil))
    }

    @Test func theTimersStartedSinceTheWindowOpenedNewestFirstNoPresetsNoApps() {
        var recent = RecentTimers()
        let before = timer(420)
        var changed = recent.follow([before])
        #expect(!changed && recent.lengths.isEmpty, "what ran when the window opened was started before")
        let first = timer(150), preset = timer(300), app = timer(90, app: "org.test.Kitchen")
        changed = recent.follow([before, first, preset, app])
        #expect(changed && recent.lengths == [150], "a preset's length and an app's timer are not kept")
        changed = recent.follow([before, first, preset, app])
        #expect(!changed, "a timer seen again is not counted again")
        changed = recent.follow([first, timer(420)])
        #expect(changed && recent.lengths == [420, 150])
        for length in [10.0, 20, 30, 40] { _ = recent.follow([timer(length)]) }
        #expect(recent.lengths == [40, 30, 20, 10], "at most \(RecentTimers.kept)")
        _ = recent.follow([timer(20)])
        #expect(recent.lengths == [20, 40, 30, 10], "each length once")
    }

    @Test func theFileIsPrivateAndJudgedWhenRead() throws {
        let folder = FilePath("/tmp/reveille-app-tests-\(UUID().uuidString)")
        defer { _ = try? FileManager.default.removeItem(atPath: folder.string) }
        let path = folder.appending("reveille/app-recent-timers.json")
        #expect(RecentTimers.read(path) == RecentTimers(), "no file: none")
        let recent = RecentTimers(lengths: [150, 420])
        try recent.write(path)
        #expect(RecentTimers.read(path) == recent)
        #expect(try FileManager.default.attributesOfItem(atPath: path.string)[.posixPermissions] as? Int == 0o600)
        // Lengths no timer may have, presets and repeats are dropped; more than kept are cut.
        try Data("[-1, 1e300, 300, 150, 150, 60.5, 7, 8, 9]".utf8).write(to: URL(fileURLWithPath: path.string))
        #expect(RecentTimers.read(path).lengths == [150, 60.5, 7, 8])
        try Data("not json".utf8).write(to: URL(fileURLWithPath: path.string))
        #expect(RecentTimers.read(path) == RecentTimers())
        try Data(("[" + Array(repeating: "150", count: 400).joined(separator: ",") + "]").utf8).write(to: URL(fileURLWithPath: path.string))
        #expect(RecentTimers.read(path) == RecentTimers(), "a file larger than the app writes is not read")
    }

    @Test(arguments: [(60.0, "1 min"), (150, "2 min 30 s"), (45, "45 s"), (5400, "1 h 30 min"), (7200, "2 h"), (3725, "1 h 2 min 5 s")])
    func aPresetIsNamedByItsLength(_ seconds: TimeInterval, _ label: String) {
        #expect(AlarmWords.preset(seconds: seconds) == label)
    }
}
