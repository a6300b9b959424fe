import FoundationEssentials
import ReveilleCore
import ReveilleModel
import ReveilleRules

/// An alarm read from a calendar: what to schedule, and where it came from.
package struct CalendarAlarm: Hashable, Sendable {
    /// The id it had where it was written (a Reveille event's UID); `nil`: a new one is made.
    package var id: UUID?
    package var request: AlarmRequest
    package var disabled: Bool
    /// `"Dentist" (VEVENT 1234@example.com)`: what the user knows it by.
    package var source: String

    /// The same id at every reading of the same event's same reminder (its UID and its place
    /// in the event): what an import gives an alarm that has no `id`, so that importing a
    /// file twice finds what the first import added. `nil` for an event without a UID.
    package var derivedID: UUID?

    package init(id: UUID?, request: AlarmRequest, disabled: Bool, source: String, derivedID: UUID? = nil) {
        (self.id, self.request, self.disabled, self.source, self.derivedID) = (id, request, disabled, source, derivedID)
    }

    /// A UUID (version 8, RFC 9562) from `uid` and `index`: two FNV-1a 64-bit hashes of them,
    /// the same in every process and on every machine.
    package static func derivedID(uid: String, index: Int) -> UUID {
        func fnv1a(_ bytes: some Sequence<UInt8>, basis: UInt64) -> UInt64 {
            bytes.reduce(basis) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        }
        let key = Array("reveille-import\u{0}\(uid)\u{0}\(index)".utf8)
        let high = fnv1a(key, basis: 0xcbf2_9ce4_8422_2325), low = fnv1a(key.reversed(), basis: 0x8422_2325_cbf2_9ce4)
        var bytes = (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) } + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
        bytes[6] = bytes[6] & 0x0f | 0x80  // version 8: custom
        bytes[8] = bytes[8] & 0x3f | 0x80  // the RFC's variant
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}

/// What a calendar held: the alarms it maps to, and each thing that could not be mapped,
/// named with the reason.
package struct CalendarReading: Sendable {
    package var alarms: [CalendarAlarm] = []
    package var unmapped: [String] = []
}

/// Reveille's alarms as iCalendar (RFC 5545) and back: each alarm one VEVENT with one VALARM
/// (RFC 9074: a stable `UID`), Reveille's own settings in `X-REVEILLE-*` properties; and any
/// calendar's VEVENTs and VTODOs with VALARMs read as alarms. Pure: time zones come in as values.
package enum AlarmCalendar {
    package static let productID = "-//Reveille//Reveille \(ReveilleVersion.current)//EN"

    /// Reveille's own properties on a VEVENT.
    enum Key {
        static let sound = "X-REVEILLE-SOUND", volume = "X-REVEILLE-VOLUME", fadeIn = "X-REVEILLE-FADE-IN"
        static let ringLimit = "X-REVEILLE-RING-LIMIT", wake = "X-REVEILLE-WAKE", secondary = "X-REVEILLE-SECONDARY"
        static let snooze = "X-REVEILLE-SNOOZE", preAlert = "X-REVEILLE-PRE-ALERT", timer = "X-REVEILLE-TIMER"
        static let disabled = "X-REVEILLE-DISABLED", schedule = "X-REVEILLE-SCHEDULE"
        /// `3x5m` (three rings, 5 minutes apart) or `off`, as `--repeat-unanswered` reads it.
        static let repeatUnanswered = "X-REVEILLE-REPEAT-UNANSWERED"
    }

    /// `X-REVEILLE-SCHEDULE`'s value for an alarm at the next occurrence of a time of day,
    /// wherever and whenever the file is read.
    static let nextOccurrence = "NEXT"

    // MARK: Writing

    /// A VCALENDAR with one VEVENT per alarm, and what was left out, each named with the reason.
    package static func calendar(_ records: [AlarmRecord], now: Date, timeZone: any TimeZoneRules) -> (calendar: ICalComponent, leftOut: [String]) {
        var calendar = ICalComponent("VCALENDAR")
        calendar.add("VERSION", "2.0")
        calendar.add("PRODID", productID)
        calendar.add("CALSCALE", "GREGORIAN")
        var leftOut: [String] = []
        for record in records {
            switch event(record, now: now, timeZone: timeZone) {
            case .success(let (event, notes)):
                calendar.components.append(event)
                leftOut += notes
            case .failure(let error):
                leftOut.append(error.description)
            }
        }
        return (calendar, leftOut)
    }

    /// One alarm's VEVENT, with notes on what of it does not travel; fails, naming why, for an
    /// alarm that has no instant to write (a paused timer, one that is ringing its last time).
    /// With `reminder`, the VALARM carries RFC 9074's ACKNOWLEDGED and a snooze VALARM.
    /// `rang`: the occurrence a one-time alarm that ended rang, written as that instant, so its
    /// acknowledgement reads as answered everywhere (a floating "next" time would ring again).
    package static func event(_ record: AlarmRecord, now: Date, timeZone: any TimeZoneRules,
                              reminder: Reminder = Reminder(), rang: Date? = nil) -> Result<(ICalComponent, [String]), ICalError> {
        let name = "\"\(record.title.prefix(60))\" (\(record.id.uuidString.lowercased()))"
        var event = ICalComponent("VEVENT")
        var notes: [String] = []
        event.add("UID", record.id.uuidString.lowercased())
        event.add("DTSTAMP", ICalDateTime.utcText(now))
        event.add("SUMMARY", record.title)
        switch record.schedule {
        case nil:
            guard case .countdown(let until, _, _) = record.phase else {
                return .failure(ICalError("\(name) is a timer that is \(record.state.rawValue), with no end to write; only a running timer is written"))
            }
            event.add("DTSTART", ICalDateTime.utcText(until))
            event.add(Key.timer, ICalDuration.text(record.countdownDuration?.preAlert ?? until.timeIntervalSince(now)))
        case .fixed(let date):
            event.add("DTSTART", ICalDateTime.utcText(date))
        case .relative(let relative) where relative.repeats == .never && rang != nil:
            event.add("DTSTART", ICalDateTime.utcText(rang ?? now))
        case .relative(let relative):
            guard let next = record.fireDate ?? record.schedule?.nextFireDate(after: now, in: timeZone) else {
                return .failure(ICalError("\(name) repeats on no weekday, so it has no occurrence to write"))
            }
            // Floating: the wall-clock time wherever the calendar is read, as the alarm follows the zone.
            var wall = ICalDateTime.WallTime(next, in: timeZone)
            (wall.hour, wall.minute, wall.second) = (relative.time.hour, relative.time.minute, 0)
            event.add("DTSTART", wall.compactText)
            switch relative.repeats {
            case .never: event.add(Key.schedule, nextOccurrence)
            case .weekly(let days): event.add("RRULE", ICalRecurrence.rule(days))
            case .monthly, .yearly, .everyDays: event.add("RRULE", ICalRecurrence.rule(relative.repeats))
            }
        }
        let request = record.request
        if let preAlert = request.countdownDuration?.preAlert, record.schedule != nil { event.add(Key.preAlert, ICalDuration.text(preAlert)) }
        if let postAlert = request.countdownDuration?.postAlert { event.add(Key.snooze, ICalDuration.text(postAlert)) }
        switch SecondaryButton.of(request) {
        case .success(let button): event.add(Key.secondary, button.text)
        case .failure(let reason):
            event.add(Key.secondary, SecondaryButton.none.text)
            notes.append("\(name): \(reason.description)")
        }
        if case .named(let sound) = request.sound { event.add(Key.sound, sound) }
        if let volume = request.ring.volume { event.add(Key.volume, String(volume)) }
        if let fadeIn = request.ring.fadeIn { event.add(Key.fadeIn, ICalDuration.text(fadeIn)) }
        if let ringLimit = request.ring.ringLimit { event.add(Key.ringLimit, ICalDuration.text(ringLimit)) }
        if request.ring.wakesMachine == false { event.add(Key.wake, "FALSE") }
        if let plan = request.ring.repeatUnanswered { event.add(Key.repeatUnanswered, plan.text) }
        if record.disabled { event.add(Key.disabled, "TRUE") }
        var alarm = ICalComponent("VALARM")
        alarm.add("UID", valarmUID(record.id))
        alarm.add("ACTION", "DISPLAY")
        alarm.add("DESCRIPTION", record.title)
        alarm.add("TRIGGER", "PT0S")
        alarm.add("ACKNOWLEDGED", reminder.acknowledged.map(ICalDateTime.utcText))
        event.components.append(alarm)
        if let until = reminder.snoozedUntil {
            // One snooze VALARM at most: a new snooze replaces it, so snoozes never pile up.
            var snooze = ICalComponent("VALARM")
            snooze.add("UID", valarmUID(record.id) + "-snooze")
            snooze.add("RELATED-TO", valarmUID(record.id), parameters: ["RELTYPE": "SNOOZE"])
            snooze.add("ACTION", "DISPLAY")
            snooze.add("DESCRIPTION", record.title)
            snooze.add("TRIGGER", ICalDateTime.utcText(until), parameters: ["VALUE": "DATE-TIME"])
            event.components.append(snooze)
        }
        return .success((event, notes))
    }

    /// Where an alarm's reminder stands on every machine (RFC 9074): the instant it was last
    /// dismissed, and the instant a snooze rings it again.
    package struct Reminder: Hashable, Sendable {
        package var acknowledged: Date?
        package var snoozedUntil: Date?

        package init(acknowledged: Date? = nil, snoozedUntil: Date? = nil) {
            self.acknowledged = acknowledged
            self.snoozedUntil = snoozedUntil
        }

        /// Read from a Reveille event: its VALARM's ACKNOWLEDGED, and the trigger of the snooze
        /// VALARM related to it, both UTC.
        package init(_ event: ICalComponent) {
            let alarms = event.components(named: "VALARM")
            let ring = alarms.first { $0.value("RELATED-TO") == nil }
            func utc(_ property: ICalProperty?) -> Date? {
                property.flatMap(ICalDateTime.init).flatMap { $0.form == .utc ? $0.instant(in: UTCTimeZone()) : nil }
            }
            acknowledged = utc(ring?.property("ACKNOWLEDGED"))
            let ringUID = ring?.value("UID")
            snoozedUntil = alarms.first { $0.property("RELATED-TO")?.parameters["RELTYPE"]?.uppercased() == "SNOOZE"
                && $0.value("RELATED-TO") == ringUID }.flatMap { utc($0.property("TRIGGER")) }
        }
    }

    /// The stable UID of an alarm's VALARM (RFC 9074 3): every machine acknowledges that one.
    package static func valarmUID(_ id: UUID) -> String { id.uuidString.lowercased() + "-ring" }

    // MARK: Reading

    /// The alarms in `components` (VCALENDARs, or VEVENTs and VTODOs themselves): one per VALARM
    /// (and per REPEAT of it) that can ring, none in the past. `zones` looks up a TZID.
    package static func alarms(in components: [ICalComponent], now: Date, timeZone: any TimeZoneRules,
                              zones: @escaping (String) -> (any TimeZoneRules)?, defaultTitle: String) -> CalendarReading {
        var reading = CalendarReading()
        for component in components {
            switch component.name {
            case "VCALENDAR":
                let inner = alarms(in: component.components.filter { $0.name != "VCALENDAR" }, now: now, timeZone: timeZone,
                                   zones: zones, defaultTitle: defaultTitle)
                reading.alarms += inner.alarms
                reading.unmapped += inner.unmapped
            case "VEVENT", "VTODO":
                let reader = EventReader(component: component, now: now, localZone: timeZone, zones: zones, defaultTitle: defaultTitle)
                reader.read(into: &reading)
            case "VTIMEZONE": continue
            default:
                reading.unmapped.append("\(component.name.prefix(40)): not an event or a to-do; only VEVENT and VTODO are read")
            }
        }
        return reading
    }
}

/// The alert's second button, as the CLI's `--secondary` names it. A `run:` command never
/// travels in a calendar: whoever can write the calendar could make every machine run it.
package enum SecondaryButton: Hashable, Sendable {
    case snooze, `repeat`, none
    case open(desktopID: String)

    /// The button `request` has, or why it cannot be written.
    static func of(_ request: AlarmRequest) -> Result<SecondaryButton, ICalError> {
        let alert = request.presentation.alert
        guard let button = alert.secondaryButton else { return .success(.none) }
        switch (alert.secondaryButtonBehavior, request.secondaryIntent) {
        case (.custom, .openApp(let desktopID)?): return .success(.open(desktopID: desktopID))
        case (.custom, .run?): return .failure(ICalError("its run: button is not written (a command never travels in a calendar); written as none"))
        case (.custom, _): return .failure(ICalError("its app-defined button is not written; written as none"))
        default: return .success(button == .repeatButton ? .repeat : .snooze)
        }
    }

    /// `snooze`, `repeat`, `none`, `open:DESKTOP_ID`; `nil` for anything else (`run:` included).
    package init?(text: String) {
        switch text {
        case "snooze": self = .snooze
        case "repeat": self = .repeat
        case "none": self = .none
        default:
            guard text.hasPrefix("open:"), text.count > 5 else { return nil }
            self = .open(desktopID: String(text.dropFirst(5)))
        }
    }

    package var text: String {
        switch self {
        case .snooze: "snooze"
        case .repeat: "repeat"
        case .none: "none"
        case .open(let desktopID): "open:\(desktopID)"
        }
    }

    /// The button, what it does, and its intent.
    package var parts: (AlarmButton?, AlarmPresentation.Alert.SecondaryButtonBehavior?, AlarmIntent?) {
        switch self {
        case .snooze: (.snoozeButton, .countdown, nil)
        case .repeat: (.repeatButton, .countdown, nil)
        case .none: (nil, nil, nil)
        case .open(let desktopID): (.openAppButton, .custom, .openApp(desktopID: desktopID))
        }
    }
}

extension AlarmPresentation {
    /// What the user's own alarms show: the title in every state, Stop, the second button,
    /// Pause, Resume (the CLI's alarms, and the ones read from a calendar).
    package static func userAlarm(title: String, secondaryButton: AlarmButton?,
                                 behavior: AlarmPresentation.Alert.SecondaryButtonBehavior?) -> AlarmPresentation {
        AlarmPresentation(
            alert: .init(title: title, stopButton: .stopButton, secondaryButton: secondaryButton, secondaryButtonBehavior: behavior),
            countdown: .init(title: title, pauseButton: .pauseButton), paused: .init(title: title))
    }
}

/// When one reminder rings, before it becomes a schedule: shifted by triggers and repeats.
enum RingTime: Hashable {
    case once(Date)
    /// The next time the wall clock shows this (Reveille's one-time relative alarm).
    case next(minuteOfDay: Int)
    case weekly(minuteOfDay: Int, days: [Locale.Weekday])
    /// Monthly, yearly or every few days at this time of day.
    case calendar(minuteOfDay: Int, repeats: Alarm.Schedule.Relative.Recurrence)

    /// Moved by `seconds` (a trigger's offset, a repeat's interval); a weekly time that crosses
    /// midnight moves its weekdays with it, an every-few-days one its first day. `nil`: a
    /// monthly or yearly time that would cross midnight, which no such repeat can hold (the day
    /// before the 1st is the 28th, 29th, 30th or 31st).
    func shifted(by seconds: TimeInterval) -> RingTime? {
        switch self {
        case .calendar(let minute, let repeats):
            let total = minute + Int((seconds / 60).rounded(.down))
            let dayShift = Int((Double(total) / 1440).rounded(.down))
            let minuteOfDay = total - dayShift * 1440
            guard dayShift != 0 else { return .calendar(minuteOfDay: minuteOfDay, repeats: repeats) }
            guard case .everyDays(let n, let from) = repeats, let moved = from.adding(days: dayShift) else { return nil }
            return .calendar(minuteOfDay: minuteOfDay, repeats: .everyDays(n, from: moved))
        case .once(let date): return .once(date.addingTimeInterval(seconds))
        case .next(let minute):
            return .next(minuteOfDay: ((minute + Int((seconds / 60).rounded(.down))) % 1440 + 1440) % 1440)
        case .weekly(let minute, let days):
            let total = minute + Int((seconds / 60).rounded(.down))
            let dayShift = Int((Double(total) / 1440).rounded(.down))
            return .weekly(minuteOfDay: total - dayShift * 1440, days: days.map { Weekdays.shifted($0, by: dayShift) })
        }
    }

    var schedule: Alarm.Schedule {
        switch self {
        case .once(let date): .fixed(date)
        case .next(let minute): .relative(.init(time: .init(hour: minute / 60, minute: minute % 60), repeats: .never))
        case .weekly(let minute, let days):
            .relative(.init(time: .init(hour: minute / 60, minute: minute % 60), repeats: .weekly(days)))
        case .calendar(let minute, let repeats):
            .relative(.init(time: .init(hour: minute / 60, minute: minute % 60), repeats: repeats))
        }
    }
}
