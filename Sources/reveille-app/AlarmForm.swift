import FoundationEssentials
import ReveilleCalendar
import ReveilleCore
import ReveilleKit
import ReveilleModel
import ReveilleRules
import ReveilleTimeZone
import ReveilleWords

/// What the alarm dialog's fields hold, as the person sees and types them, and the request
/// they make: read with the CLI's rules (`InputParser`, `FieldInput`), a refusal naming the
/// field. Only what the person changed is written into the request, so that an unchanged
/// field never rewrites a value the dialog shows rounded (a volume, a length in seconds) or
/// recomputes one it does not show (where an every-few-days count starts).
struct AlarmForm: Equatable {
    /// The ways a time of day repeats, as the dialog offers them.
    enum Repeat: Equatable, CaseIterable {
        /// On the chosen weekdays; on none, once.
        case weekly
        case monthly
        case yearly
        case everyDays
    }

    var hour = 7
    var minute = 0
    var repeats = Repeat.weekly
    var days: [Locale.Weekday] = []
    var monthDay = 1
    var yearMonth = 1
    var yearDay = 1
    var everyDays = 2
    var title = L("Alarm")
    /// A sound's name (or a path the CLI gave); `nil` for Reveille's own alarm sound.
    var sound: String?
    /// Where the desktop's volume slider stands, 10 to 100.
    var volume = 100
    /// Lengths as they are typed (`30s`, `9m`); an empty fade-in is none.
    var fadeIn = ""
    var snooze = "9m"
    var ringLimit = DurationRange.typed(RingOptions.defaultRingLimit)
    /// How it rings again unanswered, as typed (`3x5m`, `off`); empty: the agent's setting.
    var ringAgain = ""
    var wakes = true

    /// The field names refusals give, as the dialog labels them.
    enum Field {
        static var time: String { L("Time") }
        static var monthDay: String { L("Day of the month") }
        static var yearDay: String { L("Day of the year") }
        static var everyDays: String { L("Number of days") }
        static var volume: String { L("Volume") }
        static var fadeIn: String { L("Fade-in") }
        static var snooze: String { L("Snooze") }
        static var ringLimit: String { L("Ring for") }
        static var ringAgain: String { L("Ring again") }
    }

    /// The fields of a new alarm, its monthly and yearly days `today`, its sound, snooze and ring
    /// length the person's defaults (the agent's settings): what the agent gives an alarm made
    /// without them, so that the dialog shows what the alarm will have.
    init(today: CalendarDay, defaults: NewAlarmDefaults = .init()) {
        (monthDay, yearMonth, yearDay) = (today.day, today.month, today.day)
        sound = defaults.sound
        snooze = DurationRange.typed(defaults.snooze)
        ringLimit = DurationRange.typed(defaults.ringLimit)
    }

    /// The fields as `record` has them.
    init(_ record: AlarmRecord, today: CalendarDay, timeZone: any TimeZoneRules = GLibTimeZone.local) {
        self.init(today: today)
        switch record.schedule {
        case .relative(let relative)?:
            (hour, minute) = (relative.time.hour, relative.time.minute)
            switch relative.repeats {
            case .never: break
            case .weekly(let chosen): days = AlarmWords.week.filter(chosen.contains)
            case .monthly(let day): (repeats, monthDay) = (.monthly, day)
            case .yearly(let month, let day): (repeats, yearMonth, yearDay) = (.yearly, month, day)
            case .everyDays(let count, _): (repeats, everyDays) = (.everyDays, count)
            }
        case .fixed(let date)?:
            (hour, minute) = AlarmWords.localTime(date, timeZone: timeZone)
        case nil:
            break
        }
        title = record.title
        if case .named(let name) = record.sound { sound = name }
        volume = record.ring.volume.map { Int((VolumeScale.slider(linear: $0) * 100).rounded()) } ?? 100
        fadeIn = record.ring.fadeIn.flatMap { $0 > 0 ? DurationRange.typed($0) : nil } ?? ""
        snooze = DurationRange.typed(record.countdownDuration?.postAlert ?? 9 * 60)
        ringLimit = DurationRange.typed(record.ring.ringLimit ?? RingOptions.defaultRingLimit)
        ringAgain = record.ring.repeatUnanswered?.text ?? ""
        wakes = record.ring.wakesMachine != false
    }

    /// `original` (`nil` for a new alarm) with what differs from `initial`, the fields as the
    /// dialog opened: `original` itself when nothing does.
    func request(changing original: AlarmRequest?, from initial: AlarmForm, now: Date,
                 timeZone: any TimeZoneRules) throws(FieldRefusal) -> AlarmRequest {
        // A new alarm leaves out what the person did not change: the agent gives it their defaults.
        var request = original ?? AlarmDialog.request(title: L("Alarm"), schedule: nil, preAlert: nil, snooze: nil)
        let repeatChanged = recurrenceFields != initial.recurrenceFields
        if original == nil || repeatChanged || (hour, minute) != (initial.hour, initial.minute) {
            request.schedule = try schedule(now: now, timeZone: timeZone)
            // A new time alone keeps how it repeats, as `reveille edit` does (an every-few-days
            // count keeps the day it counts from).
            if !repeatChanged, case .relative(var relative)? = request.schedule, case .relative(let before)? = original?.schedule {
                relative.repeats = before.repeats
                request.schedule = .relative(relative)
            }
        }
        if original == nil || title != initial.title {
            let alert = request.presentation.alert
            let trimmed = title.trimmed()
            request.presentation = .userAlarm(title: trimmed.isEmpty ? L("Alarm") : trimmed,
                                              secondaryButton: alert.secondaryButton, behavior: alert.secondaryButtonBehavior)
        }
        // A new alarm says the sound, snooze and ring length its dialog showed (the person's
        // defaults, or what they chose): what the person saw is what it gets, whatever the
        // agent's settings are by then, and an agent older than those settings takes it too.
        let new = original == nil
        if new || sound != initial.sound {
            // Reveille's own sound, shown where the defaults name another, is said by name.
            request.sound = sound.map { .named($0) } ?? (new && initial.sound != nil ? .named(SoundNames.reveillesOwn) : .default)
        }
        if volume != initial.volume {
            request.ring.volume = volume >= 100 ? nil : try FieldInput.volume("\(volume)%", field: Field.volume)
        }
        if fadeIn != initial.fadeIn {
            let text = fadeIn.trimmed()
            request.ring.fadeIn = text.isEmpty ? nil : try FieldInput.duration(text, field: Field.fadeIn, within: .countdown)
        }
        if new || snooze != initial.snooze {
            let length = try FieldInput.duration(snooze.trimmed(), field: Field.snooze, within: .snooze)
            request.countdownDuration = .init(preAlert: request.countdownDuration?.preAlert, postAlert: length)
        }
        if new || ringLimit != initial.ringLimit {
            let limit = try FieldInput.duration(ringLimit.trimmed(), field: Field.ringLimit, within: .ringLimit)
            // The built-in limit stays unsaid, as the CLI leaves it: for a change always (a change is
            // given no default), for a new alarm when the defaults showed it too (else the agent
            // would give the person's default in its place).
            let builtIn = DurationRange.typed(RingOptions.defaultRingLimit)
            request.ring.ringLimit = limit == RingOptions.defaultRingLimit && (!new || initial.ringLimit == builtIn) ? nil : limit
        }
        try FieldInput.checkFade(request.ring, fade: (Field.fadeIn, fadeIn != initial.fadeIn ? fadeIn.trimmed() : nil),
                                 ringLimit: (Field.ringLimit, ringLimit != initial.ringLimit ? ringLimit.trimmed() : nil))
        if ringAgain != initial.ringAgain {
            let text = ringAgain.trimmed()
            request.ring.repeatUnanswered = text.isEmpty ? nil : try FieldInput.unansweredRepeat(text, field: Field.ringAgain)
        }
        if wakes != initial.wakes { request.ring.wakesMachine = wakes ? nil : false }
        return request
    }

    /// The fields that say how it repeats: only the chosen way's own count.
    private var recurrenceFields: [Int] {
        switch repeats {
        case .weekly: [0] + days.map { AlarmWords.week.firstIndex(of: $0) ?? 0 }
        case .monthly: [1, monthDay]
        case .yearly: [2, yearMonth, yearDay]
        case .everyDays: [3, everyDays]
        }
    }

    /// The time of day, repeating as the fields say, read as `reveille add` reads its options.
    private func schedule(now: Date, timeZone: any TimeZoneRules) throws(FieldRefusal) -> Alarm.Schedule {
        let options = switch repeats {
        case .weekly: InputParser.Repeats()
        case .monthly: InputParser.Repeats(monthly: String(monthDay))
        case .yearly: InputParser.Repeats(yearly: "\(yearMonth)-\(yearDay)")
        case .everyDays: InputParser.Repeats(every: String(everyDays))
        }
        do {
            var schedule = try InputParser.schedule("\(hour.zeroPadded()):\(minute.zeroPadded())", repeats: options, now: now, timeZone: timeZone)
            // Toggles cannot name a day wrongly: they are the days themselves.
            if repeats == .weekly, !days.isEmpty, case .relative(var relative) = schedule {
                relative.repeats = .weekly(AlarmWords.week.filter(days.contains))
                schedule = .relative(relative)
            }
            return schedule
        } catch let error as InputError {
            let field = switch error.accepted {
            case .monthDays: Field.monthDay
            case .yearDays: Field.yearDay
            case .dayIntervals: Field.everyDays
            default: Field.time
            }
            throw FieldRefusal("\(field): \(error)", field: field)
        } catch {
            throw FieldRefusal("\(Field.time): \(error)", field: Field.time)
        }
    }
}
