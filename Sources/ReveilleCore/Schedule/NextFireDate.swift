import FoundationEssentials

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
    func nextFireDate(after instant: Date, in timeZone: any TimeZoneRules) -> Date? {
        let allowedDays: Set<Locale.Weekday>?
        switch repeats {
        case .never: allowedDays = nil
        case .weekly(let days):
            guard !days.isEmpty else { return nil }
            allowedDays = Set(days)
        }
        // Start a day early: near a transition the local day of `instant` may be
        // one off from the day whose wall time comes next.
        let start = CivilDate(containing: instant, in: timeZone).adding(days: -1)
        for offset in 0...9 {
            let day = start.adding(days: offset)
            if let allowedDays, !allowedDays.contains(day.weekday) { continue }
            if let next = WallClock.occurrence(on: day, hour: time.hour, minute: time.minute, after: instant, in: timeZone) {
                return next
            }
        }
        return nil
    }
}
