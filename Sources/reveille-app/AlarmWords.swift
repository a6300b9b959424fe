import FoundationEssentials
import ReveilleCore
import ReveilleKit
import ReveilleRules
import ReveilleTimeZone
import ReveilleWords

/// What the window says of an alarm or a timer: pure functions of the record and the time,
/// in the user's language and clock (`LC_TIME`: 19:30 or 7:30 PM).
enum AlarmWords {
    static let clock = ClockStyle.fromEnvironment()

    /// The days of the week in the order the dialog shows them.
    static let week: [Locale.Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday, .saturday, .sunday]

    /// The time it rings at, large in its row: `07:30`, or for a one-time date `2026-12-24 07:30`.
    static func time(_ record: AlarmRecord, timeZone: any TimeZoneRules = GLibTimeZone.local) -> String {
        switch record.schedule {
        case .relative(let relative)?:
            return clock.format(hour: relative.time.hour, minute: relative.time.minute)
        case .fixed(let date)?:
            return dateAndTime(date, timeZone: timeZone)
        case nil:
            return ""
        }
    }

    /// `2026-12-24 07:30` (or `2026-12-24 7:30 AM`): a day and its time, local.
    static func dateAndTime(_ date: Date, timeZone: any TimeZoneRules = GLibTimeZone.local) -> String {
        let (hour, minute) = localTime(date, timeZone: timeZone)
        return "\(ISO8601Local.string(from: date, in: timeZone).prefix(10)) " + clock.format(hour: hour, minute: minute)
    }

    /// The hour and minute `date` shows on the wall clock in `timeZone`.
    static func localTime(_ date: Date, timeZone: any TimeZoneRules = GLibTimeZone.local) -> (hour: Int, minute: Int) {
        let iso = ISO8601Local.string(from: date, in: timeZone)
        return (Int(iso.dropFirst(11).prefix(2)) ?? 0, Int(iso.dropFirst(14).prefix(2)) ?? 0)
    }

    /// A history entry's line under its title: when it was due, how long it rang, how it ended.
    static func history(_ entry: AlarmHistory.Entry, timeZone: any TimeZoneRules = GLibTimeZone.local) -> String {
        let due = dateAndTime(entry.due, timeZone: timeZone)
        return entry.rang == nil ? L("Due %@ · %@", due, entry.endingWords)
            : L("Due %@ · rang %@ · %@", due, countdown(entry.seconds), entry.endingWords)
    }

    /// How it repeats: `Every day`, `Weekdays`, `Mon Wed Fri`, `Once`, `Monthly on day 15`.
    static func repeats(_ record: AlarmRecord) -> String {
        guard case .relative(let relative)? = record.schedule else { return L("Once") }
        switch relative.repeats {
        case .never: return L("Once")
        case .weekly(let days):
            switch Set(days) {
            case Set(week): return L("Every day")
            case Set(week.prefix(5)): return L("Weekdays")
            case [.saturday, .sunday]: return L("Weekends")
            default: return week.filter(days.contains).map(InputParser.shortName).joined(separator: " ")
            }
        case .monthly(let day): return L("Monthly on day %@", String(day))
        case .yearly(let month, let day): return L("Yearly on %@", "\(month.zeroPadded())-\(day.zeroPadded())")
        case .everyDays(let count, let from): return Ln("Every %@ day from %@", "Every %@ days from %@", count, String(count), from.description)
        }
    }

    /// Whether `schedule` repeats (weekly, monthly, yearly, every few days): it has a next ring to skip.
    static func repeats(_ schedule: Alarm.Schedule?) -> Bool {
        guard case .relative(let relative)? = schedule else { return false }
        return relative.repeats != .never
    }

    /// When it rings next, in words: `Rings in 11 h 7 min`, `Off`, `Ringing`,
    /// `Snoozed until 06:05`, `Skips 2026-11-30 07:30, rings in 2 d 23 h`.
    static func next(_ record: AlarmRecord, now: Date = Date(), timeZone: any TimeZoneRules = GLibTimeZone.local) -> String {
        guard !record.disabled else { return L("Off") }
        if let skipped = record.skippedOccurrence(now: now), let next = record.fireDate {
            return L("Skips %@, rings in %@", dateAndTime(skipped, timeZone: timeZone), span(next.timeIntervalSince(now)))
        }
        switch record.phase {
        case .alerting: return L("Ringing")
        case .paused(let remaining, _): return L("Paused, %@ left", countdown(remaining))
        case .scheduled(nil): return L("Does not ring again")
        // An alarm counts down only once it rang and was snoozed: it rings again then.
        case .countdown(let until, _, _) where record.schedule != nil:
            let (hour, minute) = localTime(until, timeZone: timeZone)
            return L("Snoozed until %@", clock.format(hour: hour, minute: minute))
        case .scheduled(let date?), .countdown(let date, _, _):
            return L("Rings in %@", span(date.timeIntervalSince(now)))
        }
    }

    /// `2 d 3 h`, `11 h 7 min`, `4 min`, `less than a minute`: how long until, to the minute.
    static func span(_ seconds: TimeInterval) -> String {
        let minutes = seconds.isFinite ? Int((min(max(0, seconds), 1e12) / 60).rounded(.up)) : 0
        let (days, hours, rest) = (minutes / 1440, minutes / 60 % 24, minutes % 60)
        if days > 0 { return L("%@ d %@ h", String(days), String(hours)) }
        if hours > 0 { return rest == 0 ? L("%@ h", String(hours)) : L("%@ h %@ min", String(hours), String(rest)) }
        return minutes > 1 ? L("%@ min", String(rest)) : L("less than a minute")
    }

    /// A countdown as a clock shows it: `4:59`, `1:02:03`.
    static func countdown(_ seconds: TimeInterval) -> String {
        let total = seconds.isFinite ? Int(min(max(0, seconds), 1e12).rounded(.up)) : 0
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        return hours > 0 ? "\(hours):\(minutes.zeroPadded()):\(secs.zeroPadded())" : "\(minutes):\(secs.zeroPadded())"
    }

    /// A timer's time left now, and how much of it has run (0 to 1).
    static func remaining(_ record: AlarmRecord, now: Date = Date()) -> (seconds: TimeInterval, done: Double) {
        switch record.phase {
        case .countdown(let until, let length, _):
            let left = max(0, until.timeIntervalSince(now))
            return (left, length > 0 ? 1 - left / length : 1)
        case .paused(let remaining, let length):
            return (remaining, length > 0 ? 1 - remaining / length : 1)
        case .scheduled, .alerting:
            return (0, 1)
        }
    }

    /// The label of a preset: `1 min`, `30 min`, `1 h 30 min`, `45 s`, `2 min 30 s`.
    static func preset(seconds: TimeInterval) -> String {
        let total = seconds.isFinite ? Int(min(max(0, seconds), 1e12).rounded()) : 0
        let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
        if hours > 0 {
            let whole = minutes == 0 ? L("%@ h", String(hours)) : L("%@ h %@ min", String(hours), String(minutes))
            return rest == 0 ? whole : L("%@ %@ s", whole, String(rest))
        }
        if minutes > 0 { return rest == 0 ? L("%@ min", String(minutes)) : L("%@ min %@ s", String(minutes), String(rest)) }
        return L("%@ s", String(rest))
    }

    /// What a ringing alarm's banner says under its title.
    static func ringing(_ record: AlarmRecord) -> String {
        record.schedule == nil ? L("Timer done") : L("Alarm · %@", time(record))
    }
}
