import FoundationEssentials
import ReveilleModel

/// A calendar day without a time zone, with integer day arithmetic
/// (Howard Hinnant's days-from-civil algorithms, proleptic Gregorian).
package struct CivilDate: Hashable, Sendable {
    package var year: Int
    package var month: Int
    package var day: Int

    /// Days since 1970-01-01.
    package var daysSinceEpoch: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    package init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    package init(daysSinceEpoch days: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Whether the day exists (month 1–12, day within that month).
    package var isValid: Bool {
        guard (1...12).contains(month), day >= 1 else { return false }
        return CivilDate(daysSinceEpoch: daysSinceEpoch) == self
    }

    package func adding(days: Int) -> CivilDate { CivilDate(daysSinceEpoch: daysSinceEpoch + days) }

    package var weekday: Locale.Weekday {
        // 1970-01-01 was a Thursday.
        let index = ((daysSinceEpoch % 7) + 7 + 4) % 7
        return [.sunday, .monday, .tuesday, .wednesday, .thursday, .friday, .saturday][index]
    }

    /// The local calendar day of `instant` in `timeZone`.
    package init(containing instant: Date, in timeZone: any TimeZoneRules) {
        let local = instant.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: instant))
        self.init(daysSinceEpoch: Int((local / 86_400).rounded(.down)))
    }
}

/// Turns a wall-clock time on a calendar day into an instant, with defined rules for
/// daylight-saving transitions.
package enum WallClock {
    /// The instant at which the wall clock of `timeZone` shows `date` at `hour:minute:second`.
    ///
    /// In a spring-forward gap the time does not exist: it resolves with the UTC offset in
    /// force before the transition (02:30 in a one-hour gap is 03:30 new time, as mktime does).
    /// In a fall-back overlap the time happens twice: it resolves to the earlier instant.
    package static func instant(on date: CivilDate, hour: Int, minute: Int, second: Double = 0,
                        in timeZone: any TimeZoneRules) -> Date {
        occurrences(on: date, hour: hour, minute: minute, second: second, in: timeZone)[0]
    }

    /// Every instant at which the wall clock of `timeZone` shows `date` at `hour:minute:second`,
    /// earliest first: one, or two in a fall-back overlap; in a spring-forward gap, the one
    /// instant `instant(on:...)` names. Never empty.
    package static func occurrences(on date: CivilDate, hour: Int, minute: Int, second: Double = 0,
                            in timeZone: any TimeZoneRules) -> [Date] {
        let asIfUTC = Double(date.daysSinceEpoch) * 86_400 + Double(hour * 3600 + minute * 60) + second
        let offsetBefore = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: asIfUTC - 86_400))
        let offsetAfter = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: asIfUTC + 86_400))
        let candidates = Set([offsetBefore, offsetAfter,
                              timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: asIfUTC - Double(offsetBefore))),
                              timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: asIfUTC - Double(offsetAfter)))])
        let matching = candidates
            .map { Date(timeIntervalSince1970: asIfUTC - Double($0)) }
            .filter { Double(timeZone.secondsFromGMT(for: $0)) == asIfUTC - $0.timeIntervalSince1970 }
            .sorted()
        return matching.isEmpty ? [Date(timeIntervalSince1970: asIfUTC - Double(offsetBefore))] : matching
    }

    /// The occurrence of `hour:minute:second` on `date` that comes next after `instant`, or
    /// `nil` when none does: the first; in a fall-back overlap the second (its repeat) only
    /// when the clock at `instant` shows an earlier time of that day too (set at 02:28 in the
    /// repeated hour), not once the first has come (02:29 or later), so that a daily alarm
    /// that rang in the first pass does not ring again.
    package static func occurrence(on date: CivilDate, hour: Int, minute: Int, second: Double = 0, after instant: Date,
                           in timeZone: any TimeZoneRules) -> Date? {
        let all = occurrences(on: date, hour: hour, minute: minute, second: second, in: timeZone)
        if all[0] > instant { return all[0] }
        guard let again = all.dropFirst().first, again > instant, CivilDate(containing: instant, in: timeZone) == date,
              secondsIntoDay(at: instant, in: timeZone) < Double(hour * 3600 + minute * 60) + second else { return nil }
        return again
    }

    /// Whether `instant` is the second pass of its wall-clock time (the repeated autumn hour).
    package static func isRepeat(_ instant: Date, in timeZone: any TimeZoneRules) -> Bool {
        let seconds = Int(secondsIntoDay(at: instant, in: timeZone))
        let all = occurrences(on: CivilDate(containing: instant, in: timeZone), hour: seconds / 3600, minute: seconds % 3600 / 60,
                              second: Double(seconds % 60), in: timeZone)
        return all.count == 2 && all[1] == instant
    }

    /// Seconds since local midnight on the wall clock of `timeZone` at `instant`.
    private static func secondsIntoDay(at instant: Date, in timeZone: any TimeZoneRules) -> Double {
        let local = instant.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: instant))
        return local - (local / 86_400).rounded(.down) * 86_400
    }
}

package extension CalendarDay {
    /// The day `days` later (earlier when negative), or `nil` when either is not a real day
    /// of 1970–9999.
    func adding(days: Int) -> CalendarDay? {
        guard isValid else { return nil }
        let moved = CivilDate(year: year, month: month, day: day).adding(days: days)
        let result = CalendarDay(year: moved.year, month: moved.month, day: moved.day)
        return result.isValid ? result : nil
    }
}
