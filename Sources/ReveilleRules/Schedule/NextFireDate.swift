import FoundationEssentials
import ReveilleModel

extension Alarm.Schedule {
    /// The first instant strictly after `instant` at which this schedule alerts, or `nil`
    /// when it never will again (a fixed instant already past, or a weekly schedule with no days).
    package func nextFireDate(after instant: Date, in timeZone: any TimeZoneRules) -> Date? {
        switch self {
        case .fixed(let date):
            return date > instant ? date : nil
        case .relative(let relative):
            return relative.nextFireDate(after: instant, in: timeZone)
        }
    }

    /// The next `count` fire instants after `instant`, as `reveille next` prints them.
    package func fireDates(after instant: Date, count: Int, in timeZone: any TimeZoneRules) -> [Date] {
        var dates: [Date] = []
        var cursor = instant
        while dates.count < count, let next = nextFireDate(after: cursor, in: timeZone) {
            dates.append(next)
            cursor = next
        }
        return dates
    }
}

extension Alarm.Schedule.Relative {
    /// Whether `instant` is one of this schedule's occurrences in `timeZone`: its wall clock
    /// shows the alarm's time then, on a day the alarm rings (either pass of an autumn hour).
    func names(_ instant: Date, in timeZone: any TimeZoneRules) -> Bool {
        let day = CivilDate(containing: instant, in: timeZone)
        return WallClock.occurrences(on: day, hour: time.hour, minute: time.minute, in: timeZone).contains(instant)
            && repeats.days(from: day.adding(days: -1)).contains(day)
    }

    func nextFireDate(after instant: Date, in timeZone: any TimeZoneRules) -> Date? {
        // Start a day early: near a transition the local day of `instant` may be
        // one off from the day whose wall time comes next.
        let start = CivilDate(containing: instant, in: timeZone).adding(days: -1)
        for day in repeats.days(from: start) {
            if let next = WallClock.occurrence(on: day, hour: time.hour, minute: time.minute, after: instant, in: timeZone) {
                return next
            }
        }
        return nil
    }
}

extension Alarm.Schedule.Relative.Recurrence {
    /// The days it rings on from `start` on, in order, enough of them that one holds the next
    /// occurrence after an instant on `start`'s next day (the earlier ones may have passed).
    func days(from start: CivilDate) -> [CivilDate] {
        switch self {
        case .never:
            return (0...9).map(start.adding)
        case .weekly(let weekdays):
            let allowed = Set(weekdays)
            return (0...9).map(start.adding).filter { allowed.contains($0.weekday) }
        case .monthly(let day):
            // This month's, then the next two: a month without the day rings on its last.
            return (0...2).map { offset in
                let index = start.year * 12 + (start.month - 1) + offset
                let (year, month) = (index / 12, index % 12 + 1)
                return CivilDate(year: year, month: month, day: min(day, CalendarDay.days(inMonth: month, year: year)))
            }.filter { $0.daysSinceEpoch >= start.daysSinceEpoch }
        case .yearly(let month, let day):
            // February 29 rings on February 28 in other years.
            return (0...2).map { offset in
                CivilDate(year: start.year + offset, month: month, day: min(day, CalendarDay.days(inMonth: month, year: start.year + offset)))
            }.filter { $0.daysSinceEpoch >= start.daysSinceEpoch }
        case .everyDays(let count, let from):
            guard count > 0 else { return [] }
            let first = CivilDate(year: from.year, month: from.month, day: from.day)
            // The first day of the cycle on or after `start` (never before `from`).
            let passed = max(0, start.daysSinceEpoch - first.daysSinceEpoch)
            let cycles = (passed + count - 1) / count
            return (0...2).map { first.adding(days: (cycles + $0) * count) }
        }
    }
}
