import FoundationEssentials
import ReveilleCore
import ReveilleModel
import ReveilleRules

/// Reads one VEVENT or VTODO as alarms: each VALARM's TRIGGER resolved against DTSTART (or
/// DTEND, DUE), its REPEAT and DURATION as further rings, an RRULE as weekdays, Reveille's
/// `X-REVEILLE-*` settings; every value checked, what cannot be held named.
struct EventReader {
    let component: ICalComponent
    let now: Date
    let localZone: any TimeZoneRules
    let zones: (String) -> (any TimeZoneRules)?
    let defaultTitle: String

    /// A VALARM's REPEAT asks for at most this many further rings.
    static let maximumRepeats = 12
    /// The alarms one reading makes, in all (Reveille keeps 10,000 alarms per app).
    static let maximumAlarms = WireLimits.pageAlarms
    /// A snooze when the calendar names none: the CLI's default.
    static let defaultSnooze: TimeInterval = 540

    /// Where a trigger is counted from: a date-time and seconds after it (DTSTART + DURATION).
    private struct Anchor {
        var dateTime: ICalDateTime
        var plus: TimeInterval = 0
    }

    func read(into reading: inout CalendarReading) {
        let name = self.name
        let valarms = component.components(named: "VALARM")
        guard !valarms.isEmpty else {
            reading.unmapped.append("\(name): has no VALARM, so no reminder to ring")
            return
        }
        if component.property("EXDATE") != nil || component.property("RDATE") != nil {
            reading.unmapped.append("\(name): its added or removed occurrences (RDATE, EXDATE) are not kept; it rings on every day its RRULE names")
        }
        var notes: [String] = []
        let settings = Settings(component, notes: &notes)
        reading.unmapped += notes.map { "\(name): \($0)" }
        var first = true
        var index = 0
        // One event's moved occurrences (RECURRENCE-ID) share its UID: each is its own.
        let occurrenceUID = component.value("UID").map { uid in component.value("RECURRENCE-ID").map { "\(uid)\u{0}\($0)" } ?? uid }
        for valarm in valarms {
            let rings: [RingTime]
            switch ringTimes(valarm) {
            case .failure(let reason):
                reading.unmapped.append("\(name): \(reason.description)")
                continue
            case .success(let times): rings = times
            }
            for ring in rings {
                // Counted for every ring, a past one too: a reminder keeps its place as others pass.
                defer { index += 1 }
                guard reading.alarms.count < Self.maximumAlarms else {
                    reading.unmapped.append("\(name): not read; a calendar makes at most \(Self.maximumAlarms) alarms")
                    return
                }
                if case .once(let date) = ring, date <= now {
                    reading.unmapped.append("\(name): its reminder at \(ISO8601Local.string(from: date, in: localZone)) is past")
                    continue
                }
                let id = first ? component.value("UID").flatMap(UUID.init(uuidString:)) : nil
                first = false
                reading.alarms.append(CalendarAlarm(id: id, request: settings.request(ring: ring, title: title, now: now),
                                                    disabled: settings.disabled, source: name,
                                                    derivedID: occurrenceUID.map { CalendarAlarm.derivedID(uid: $0, index: index) }))
            }
        }
    }

    /// SUMMARY, else the first VALARM's DESCRIPTION, else `defaultTitle`; cut to what a title may hold.
    var title: String {
        let text = [component.value("SUMMARY"), component.components(named: "VALARM").first?.value("DESCRIPTION")]
            .compactMap { $0 }.first { !$0.trimmed().isEmpty } ?? defaultTitle
        var cut = String(text.prefix(WireLimits.titleCharacters))
        while cut.utf8.count > WireLimits.titleBytes { cut.removeLast() }
        return cut
    }

    /// `"Dentist" (VEVENT 1234@example.com)`.
    var name: String {
        "\"\(title.prefix(60))\" (\(component.name) \(component.value("UID")?.prefix(80) ?? "without UID"))"
    }

    /// When `valarm` rings: once, or on weekdays, and again for each REPEAT.
    private func ringTimes(_ valarm: ICalComponent) -> Result<[RingTime], ICalError> {
        if valarm.property("RELATED-TO")?.parameters["RELTYPE"]?.uppercased() == "SNOOZE" {
            return .failure(ICalError("a snoozed reminder (RFC 9074 RELTYPE=SNOOZE) is not read as an alarm of its own"))
        }
        let action = valarm.value("ACTION")?.uppercased() ?? "DISPLAY"
        guard action == "DISPLAY" || action == "AUDIO" else {
            return .failure(ICalError("its ACTION:\(action.prefix(20)) reminder is not rung; DISPLAY and AUDIO reminders are"))
        }
        guard let trigger = valarm.property("TRIGGER") else {
            return .failure(ICalError("a VALARM has no TRIGGER"))
        }
        let base: RingTime
        if trigger.parameters["VALUE"]?.uppercased() != "DATE-TIME", let offset = ICalDuration.seconds(trigger.value) {
            let related = trigger.parameters["RELATED"]?.uppercased() == "END" ? endAnchor : startAnchor
            guard let anchor = related else {
                return .failure(ICalError("its TRIGGER \(trigger.value.prefix(30)) counts from a \(trigger.parameters["RELATED"] == "END" ? "DTEND or DUE" : "DTSTART") it does not have"))
            }
            switch ringTime(at: anchor) {
            case .success(let time):
                guard let shifted = time.shifted(by: offset + anchor.plus) else { return .failure(Self.crossesMidnight) }
                base = shifted
            case .failure(let reason): return .failure(reason)
            }
        } else if let absolute = ICalDateTime(trigger) {
            guard let zone = absolute.zone(localZone: localZone, zones: zones), let instant = absolute.instant(in: zone) else {
                return .failure(ICalError("its TRIGGER's time zone \(trigger.parameters["TZID"]?.prefix(60) ?? "") is not one this system knows"))
            }
            base = .once(instant)
        } else {
            return .failure(ICalError("its TRIGGER \(trigger.value.prefix(40)) is neither a duration (-PT15M) nor a UTC date-time (20261224T170000Z)"))
        }
        if case .once(let date) = base, let acknowledged = valarm.property("ACKNOWLEDGED").flatMap(ICalDateTime.init),
           acknowledged.form == .utc, let when = acknowledged.instant(in: UTCTimeZone()), when >= date {
            return .failure(ICalError("its reminder was acknowledged at \(ISO8601Local.string(from: when, in: localZone)) (ACKNOWLEDGED)"))
        }
        let repeats = valarm.value("REPEAT").map { Int($0.trimmed()) } ?? 0
        guard let repeats, repeats >= 0 else {
            return .failure(ICalError("its REPEAT \(valarm.value("REPEAT")?.prefix(20) ?? "") is not a whole number"))
        }
        guard repeats > 0 else { return .success([base]) }
        guard repeats <= Self.maximumRepeats else {
            return .failure(ICalError("its REPEAT:\(repeats) asks for more than \(Self.maximumRepeats) further rings"))
        }
        guard let interval = valarm.value("DURATION").flatMap(ICalDuration.seconds), interval >= 60 else {
            return .failure(ICalError("its REPEAT needs a DURATION of a minute or more between rings"))
        }
        let rings = (0...repeats).compactMap { base.shifted(by: Double($0) * interval) }
        return rings.count == repeats + 1 ? .success(rings) : .failure(Self.crossesMidnight)
    }

    /// DTSTART (a to-do without one: its DUE).
    private var startAnchor: Anchor? {
        (component.property("DTSTART") ?? (component.name == "VTODO" ? component.property("DUE") : nil))
            .flatMap(ICalDateTime.init).map { Anchor(dateTime: $0) }
    }

    /// DTEND or DUE, else DTSTART + DURATION, else the end of DTSTART's day (a whole-day event)
    /// or DTSTART itself.
    private var endAnchor: Anchor? {
        if let end = component.property(component.name == "VTODO" ? "DUE" : "DTEND").flatMap(ICalDateTime.init) {
            return Anchor(dateTime: end)
        }
        guard let start = component.property("DTSTART").flatMap(ICalDateTime.init) else { return nil }
        if let duration = component.value("DURATION").flatMap(ICalDuration.seconds) { return Anchor(dateTime: start, plus: duration) }
        return Anchor(dateTime: start, plus: start.form == .date && component.name == "VEVENT" ? 86_400 : 0)
    }

    static let crossesMidnight = ICalError("its reminder falls on another day than its monthly or yearly event, which no repeat of Reveille's can hold")

    /// The anchor's own time: its instant, its wall-clock time for Reveille's "next occurrence",
    /// or, with an RRULE, its local time of day on the weekdays the rule names.
    private func ringTime(at anchor: Anchor) -> Result<RingTime, ICalError> {
        let start = anchor.dateTime
        guard let zone = start.zone(localZone: localZone, zones: zones), let instant = start.instant(in: zone) else {
            if case .zoned(let name) = start.form {
                return .failure(ICalError("its time zone \(name.prefix(60)) is not one this system knows"))
            }
            return .failure(ICalError("its date \(start.wallTime.isoText) does not exist"))
        }
        if let rule = component.value("RRULE"), let calendar = ICalRecurrence.calendarRepeat(rule, start: start.wallTime) {
            let repeats: Alarm.Schedule.Relative.Recurrence
            switch calendar {
            case .success(let found): repeats = found
            case .failure(let reason): return .failure(reason)
            }
            // Days of the month and year are the wall clock's here: only a time this zone's
            // wall clock shows (floating, or named as this zone) keeps them.
            guard start.form == .floating || start.form == .date || start.form == .zoned(localZone.identifier)
                    || start.form == .utc && localZone.identifier == "UTC" else {
                return .failure(ICalError("its monthly, yearly or every-few-days RRULE is in another time zone; Reveille repeats those on this zone's calendar"))
            }
            return .success(.calendar(minuteOfDay: start.wallTime.hour * 60 + start.wallTime.minute, repeats: repeats))
        }
        if let rule = component.value("RRULE") {
            let days: [Locale.Weekday]
            switch ICalRecurrence.weekdays(rule, startDay: start.wallTime.weekday) {
            case .success(let named): days = named
            case .failure(let reason): return .failure(reason)
            }
            // The time of day here: a wall-clock time in this zone (floating, or named as this
            // zone) is kept as it is, even in a DST gap; an event in another zone rings at its
            // time here on its first day.
            let sameWallClock = start.form == .floating || start.form == .date
                || start.form == .zoned(localZone.identifier) || start.form == .utc && localZone.identifier == "UTC"
            let local = sameWallClock ? start.wallTime : ICalDateTime.WallTime(instant, in: localZone)
            let shift = Self.dayDifference(from: start.wallTime.weekday, to: local.weekday)
            return .success(.weekly(minuteOfDay: local.hour * 60 + local.minute, days: days.map { Weekdays.shifted($0, by: shift) }))
        }
        if component.value(AlarmCalendar.Key.schedule)?.uppercased() == AlarmCalendar.nextOccurrence, start.form == .floating {
            return .success(.next(minuteOfDay: start.wallTime.hour * 60 + start.wallTime.minute))
        }
        return .success(.once(instant))
    }

    /// -3…3 days from `from` to `to`: a zone's day is at most a day off another's.
    private static func dayDifference(from: Locale.Weekday, to: Locale.Weekday) -> Int {
        let difference = (Weekdays.sundayFirst.firstIndex(of: to) ?? 0) - (Weekdays.sundayFirst.firstIndex(of: from) ?? 0)
        return ((difference + 3) % 7 + 7) % 7 - 3
    }
}

/// Reveille's `X-REVEILLE-*` settings on an event, each checked; a bad one is named and left at
/// its default.
private struct Settings {
    var sound: AlertConfiguration.AlertSound = .default
    var ring = RingOptions()
    var secondary: SecondaryButton = .snooze
    var snooze = EventReader.defaultSnooze
    var preAlert: TimeInterval?
    var timer = false
    var disabled = false

    init(_ event: ICalComponent, notes: inout [String]) {
        typealias Key = AlarmCalendar.Key
        func duration(_ key: String, range: ClosedRange<TimeInterval>) -> TimeInterval? {
            guard let text = event.value(key) else { return nil }
            guard let seconds = ICalDuration.seconds(text), range.contains(seconds) else {
                notes.append("\(key) \(text.prefix(40)) is not a duration from \(ICalDuration.text(range.lowerBound)) to \(ICalDuration.text(range.upperBound)); left at its default")
                return nil
            }
            return seconds
        }
        if let name = event.value(Key.sound) {
            if name.isEmpty || name.utf8.count > WireLimits.soundNameBytes {
                notes.append("\(Key.sound) is empty or longer than \(WireLimits.soundNameBytes) bytes; the default sound is used")
            } else {
                sound = name == "default" ? .default : .named(name)
            }
        }
        if let text = event.value(Key.volume) {
            if let volume = Double(text), volume.isFinite, (0...1).contains(volume) { ring.volume = volume } else {
                notes.append("\(Key.volume) \(text.prefix(40)) is not a number from 0 to 1; full volume is used")
            }
        }
        ring.fadeIn = duration(Key.fadeIn, range: 0...86_400)
        ring.ringLimit = duration(Key.ringLimit, range: 5...86_400)
        if event.value(Key.wake)?.uppercased() == "FALSE" { ring.wakesMachine = false }
        if let text = event.value(Key.repeatUnanswered) {
            if let plan = InputParser.unansweredRepeat(text) { ring.repeatUnanswered = plan } else {
                notes.append("\(Key.repeatUnanswered) \(text.prefix(40)) is not off or rings and rest (3x5m: 2 to 10 rings, 5s to 1h apart); the repeat setting is used")
            }
        }
        do { try ring.validate() } catch {
            notes.append("\(error.reason); the ring settings are left at their defaults")
            ring = RingOptions()
        }
        if let text = event.value(Key.secondary) {
            if let button = SecondaryButton(text: text) { secondary = button } else {
                notes.append("\(Key.secondary) \(text.prefix(40)) is not snooze, repeat, none or open:DESKTOP_ID; Snooze is used")
            }
        }
        snooze = duration(Key.snooze, range: 1...WireLimits.maximumCountdown) ?? snooze
        preAlert = duration(Key.preAlert, range: 1...WireLimits.maximumCountdown)
        timer = event.value(Key.timer) != nil
        disabled = event.value(Key.disabled)?.uppercased() == "TRUE"
    }

    /// The request for one ring: a timer counts down to it from `now`.
    func request(ring time: RingTime, title: String, now: Date) -> AlarmRequest {
        let (button, behavior, intent) = secondary.parts
        var schedule: Alarm.Schedule? = time.schedule
        var countdown = Alarm.CountdownDuration(preAlert: preAlert, postAlert: snooze)
        if timer, case .once(let end) = time, end.timeIntervalSince(now) <= WireLimits.maximumCountdown {
            schedule = nil
            countdown.preAlert = end.timeIntervalSince(now)
        }
        return AlarmRequest(schedule: schedule, countdownDuration: countdown,
                            presentation: .userAlarm(title: title, secondaryButton: button, behavior: behavior),
                            sound: sound, ring: ring, secondaryIntent: intent)
    }
}
