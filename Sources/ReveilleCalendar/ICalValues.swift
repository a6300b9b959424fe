import FoundationEssentials
import ReveilleCore
import ReveilleModel
import ReveilleRules

/// A DATE or DATE-TIME value (RFC 5545 3.3.4/3.3.5) as written: in UTC, in a named zone, on
/// the wall clock wherever it is read (floating), or a whole day.
package struct ICalDateTime: Hashable, Sendable {
    package enum Form: Hashable, Sendable {
        case utc
        case zoned(String)
        case floating
        /// VALUE=DATE: a day, no time.
        case date
    }

    package var wallTime: WallTime
    package var form: Form

    /// A wall-clock reading, seconds whole.
    package struct WallTime: Hashable, Sendable {
        package var year, month, day, hour, minute, second: Int

        /// `2026-12-24T18:00:00`, the form `ISO8601Local.parse` reads.
        var isoText: String {
            "\(year.zeroPadded(4))-\(month.zeroPadded())-\(day.zeroPadded())T\(hour.zeroPadded()):\(minute.zeroPadded()):\(second.zeroPadded())"
        }

        /// `20261224T180000`.
        var compactText: String {
            "\(year.zeroPadded(4))\(month.zeroPadded())\(day.zeroPadded())T\(hour.zeroPadded())\(minute.zeroPadded())\(second.zeroPadded())"
        }

        /// The wall clock of `timeZone` at `instant`.
        init(_ instant: Date, in timeZone: any TimeZoneRules) {
            let text = Array(ISO8601Local.string(from: instant, in: timeZone).utf8)
            func number(_ range: Range<Int>) -> Int { Int(String(decoding: text[range], as: UTF8.self)) ?? 0 }
            (year, month, day, hour, minute, second) = (number(0..<4), number(5..<7), number(8..<10),
                                                        number(11..<13), number(14..<16), number(17..<19))
        }

        init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
            (self.year, self.month, self.day, self.hour, self.minute, self.second) = (year, month, day, hour, minute, second)
        }

        /// The day of the week of this date (proleptic Gregorian).
        var weekday: Locale.Weekday {
            let midnight = ISO8601Local.parse(WallTime(year: year, month: month, day: day, hour: 0, minute: 0, second: 0).isoText,
                                              defaultTimeZone: UTCTimeZone()) ?? Date(timeIntervalSince1970: 0)
            let days = Int((midnight.timeIntervalSince1970 / 86_400).rounded(.down))
            // 1970-01-01 was a Thursday.
            return Weekdays.sundayFirst[((days % 7) + 7 + 4) % 7]
        }
    }

    package init(wallTime: WallTime, form: Form) {
        self.wallTime = wallTime
        self.form = form
    }

    /// Reads a property's value: `20261224T180000Z`, `20261224T180000` with or without a TZID
    /// parameter, or `20261224` (a date).
    package init?(_ property: ICalProperty) {
        let bytes = Array(property.value.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count, bytes[range].allSatisfy({ (48...57).contains($0) }) else { return nil }
            return Int(String(decoding: bytes[range], as: UTF8.self))
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8) else { return nil }
        if bytes.count == 8 {
            wallTime = WallTime(year: year, month: month, day: day, hour: 0, minute: 0, second: 0)
            form = .date
        } else {
            guard bytes.count >= 15, bytes[8] == UInt8(ascii: "T"), let hour = number(9..<11), let minute = number(11..<13),
                  let second = number(13..<15), hour <= 23, minute <= 59, second <= 60 else { return nil }
            wallTime = WallTime(year: year, month: month, day: day, hour: hour, minute: minute, second: min(second, 59))
            if bytes.count == 16, bytes[15] == UInt8(ascii: "Z") {
                form = .utc
            } else if bytes.count == 15 {
                form = property.parameters["TZID"].map(Form.zoned) ?? .floating
            } else {
                return nil
            }
        }
        guard (1...12).contains(month), (1...31).contains(day), ISO8601Local.parse(wallTime.isoText, defaultTimeZone: UTCTimeZone()) != nil
        else { return nil }
    }

    /// `20261224T170000Z`: an instant in UTC.
    package static func utcText(_ instant: Date) -> String {
        WallTime(instant, in: UTCTimeZone()).compactText + "Z"
    }

    /// The zone this value is read in: UTC, its TZID's zone, or `localZone`; `nil` for a TZID
    /// `zones` does not know.
    func zone(localZone: any TimeZoneRules, zones: (String) -> (any TimeZoneRules)?) -> (any TimeZoneRules)? {
        switch form {
        case .utc: UTCTimeZone()
        case .zoned(let name): zones(Self.olsonName(name))
        case .floating, .date: localZone
        }
    }

    /// The instant it names (a date: its midnight), by `WallClock`'s DST rules.
    package func instant(in zone: any TimeZoneRules) -> Date? {
        ISO8601Local.parse(wallTime.isoText, defaultTimeZone: zone)
    }

    /// Thunderbird and Evolution write zone names with a prefix of theirs
    /// (`/mozilla.org/20070129_1/Europe/Berlin`, `/freeassociation.sourceforge.net/Europe/Berlin`):
    /// the tz database name is what follows an area name.
    static func olsonName(_ name: String) -> String {
        guard name.hasPrefix("/") else { return name }
        let parts = name.split(separator: "/")
        let areas: Set<Substring> = ["Africa", "America", "Antarctica", "Arctic", "Asia", "Atlantic", "Australia", "Europe",
                                     "Indian", "Pacific", "Etc"]
        guard let start = parts.firstIndex(where: areas.contains) else { return String(parts.last ?? "") }
        return parts[start...].joined(separator: "/")
    }
}

/// The weekdays in iCalendar's and Reveille's spellings.
enum Weekdays {
    static let sundayFirst: [Locale.Weekday] = [.sunday, .monday, .tuesday, .wednesday, .thursday, .friday, .saturday]
    static let codes: [Locale.Weekday: String] = [.sunday: "SU", .monday: "MO", .tuesday: "TU", .wednesday: "WE",
                                                  .thursday: "TH", .friday: "FR", .saturday: "SA"]
    static let byCode = Dictionary(uniqueKeysWithValues: codes.map { ($1, $0) })

    /// `day` moved by `days` (negative: earlier).
    static func shifted(_ day: Locale.Weekday, by days: Int) -> Locale.Weekday {
        let index = sundayFirst.firstIndex(of: day) ?? 0
        return sundayFirst[((index + days) % 7 + 7) % 7]
    }
}

/// DURATION values (RFC 5545 3.3.6): `PT15M`, `-P1D`, `P1W`, `-PT1H30M`.
package enum ICalDuration {
    /// Seconds, negative before; `nil` when `text` is not a duration. Each number is bounded
    /// (at most 9 digits), so no text overflows.
    package static func seconds(_ text: String) -> TimeInterval? {
        var rest = Substring(text)
        var sign = 1.0
        if rest.hasPrefix("-") { sign = -1; rest = rest.dropFirst() } else if rest.hasPrefix("+") { rest = rest.dropFirst() }
        guard rest.hasPrefix("P") else { return nil }
        rest = rest.dropFirst()
        var total = 0.0, inTime = false, digits = "", sawUnit = false
        for character in rest {
            if character.isASCII, character.isNumber {
                guard digits.count < 9 else { return nil }
                digits.append(character)
                continue
            }
            if character == "T" {
                guard !inTime, digits.isEmpty else { return nil }
                inTime = true
                continue
            }
            guard let value = Double(digits) else { return nil }
            let unit: Double? = switch (character, inTime) {
            case ("W", false): 604_800
            case ("D", false): 86_400
            case ("H", true): 3600
            case ("M", true): 60
            case ("S", true): 1
            default: nil
            }
            guard let unit else { return nil }
            total += value * unit
            digits = ""
            sawUnit = true
        }
        guard sawUnit, digits.isEmpty else { return nil }
        return sign * total
    }

    /// `PT9M`, `-PT15M`, `P1DT2H`, `PT0S`: whole seconds.
    package static func text(_ seconds: TimeInterval) -> String {
        let whole = seconds.isFinite ? Int(max(-1e12, min(1e12, seconds)).rounded()) : 0
        var rest = abs(whole)
        let days = rest / 86_400
        rest %= 86_400
        var text = whole < 0 ? "-P" : "P"
        if days > 0 { text += "\(days)D" }
        guard rest > 0 || days == 0 else { return text }
        text += "T"
        if rest >= 3600 { text += "\(rest / 3600)H" }
        if rest % 3600 >= 60 { text += "\(rest % 3600 / 60)M" }
        if rest % 60 > 0 || rest == 0 { text += "\(rest % 60)S" }
        return text
    }
}

/// The RRULEs Reveille's weekly schedule can hold: FREQ=WEEKLY or DAILY, every week or day,
/// with plain weekdays and no end; anything else is named, never approximated.
enum ICalRecurrence {
    /// The weekdays `rule` repeats on (`startDay`, DTSTART's day, when it names none), or the
    /// reason it cannot be held.
    static func weekdays(_ rule: String, startDay: Locale.Weekday) -> Result<[Locale.Weekday], ICalError> {
        var parts: [String: String] = [:]
        for part in rule.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { return .failure(ICalError("RRULE \(rule.prefix(80)) is not NAME=VALUE;…")) }
            parts[pair[0].uppercased()] = String(pair[1])
        }
        let supported = "Reveille repeats an alarm every week on chosen weekdays (FREQ=WEEKLY or FREQ=DAILY, no INTERVAL, COUNT or UNTIL)"
        guard let frequency = parts["FREQ"], frequency == "WEEKLY" || frequency == "DAILY" else {
            return .failure(ICalError("RRULE FREQ=\(parts["FREQ"]?.prefix(20) ?? "") cannot be held: \(supported)"))
        }
        if let interval = parts["INTERVAL"], interval != "1" {
            return .failure(ICalError("RRULE INTERVAL=\(interval.prefix(20)) cannot be held: \(supported)"))
        }
        for key in parts.keys.sorted() where !["FREQ", "INTERVAL", "BYDAY", "WKST"].contains(key) {
            return .failure(ICalError("RRULE \(key.prefix(20))=\(parts[key]!.prefix(40)) cannot be held: \(supported)"))
        }
        guard let byDay = parts["BYDAY"] else {
            return .success(frequency == "DAILY" ? Weekdays.sundayFirst : [startDay])
        }
        var days: [Locale.Weekday] = []
        for code in byDay.split(separator: ",") {
            guard let day = Weekdays.byCode[code.uppercased()] else {
                return .failure(ICalError("RRULE BYDAY=\(byDay.prefix(40)) names \(code.prefix(10)), not a plain weekday: \(supported)"))
            }
            if !days.contains(day) { days.append(day) }
        }
        return .success(days)
    }

    /// The RRULE of a Reveille repeat. A day that some months or years lack is written as the
    /// last of the days up to it (`BYMONTHDAY=28,29,30,31;BYSETPOS=-1`), which is what Reveille
    /// rings: the 31st, or the month's last day; February 29, or the 28th. Every N days counts
    /// from DTSTART, which is an occurrence.
    static func rule(_ recurrence: Alarm.Schedule.Relative.Recurrence) -> String {
        func days(upTo day: Int, shortest: Int) -> String {
            day <= shortest ? "BYMONTHDAY=\(day)"
                : "BYMONTHDAY=" + (shortest...day).map(String.init).joined(separator: ",") + ";BYSETPOS=-1"
        }
        switch recurrence {
        case .never: return ""
        case .weekly(let weekdays): return rule(weekdays)
        case .monthly(let day): return "FREQ=MONTHLY;" + days(upTo: day, shortest: 28)
        case .yearly(let month, let day):
            return "FREQ=YEARLY;BYMONTH=\(month);" + days(upTo: day, shortest: CalendarDay.days(inMonth: month, year: 2001))
        case .everyDays(let n, _): return "FREQ=DAILY;INTERVAL=\(n)"
        }
    }

    /// The monthly, yearly or every-N-days repeat `rule` names (the forms `rule(_:)` writes, and
    /// the plain ones other calendars write); `nil` when it is none of those (weekly and daily
    /// rules are read by `weekdays`), a failure naming what cannot be held.
    static func calendarRepeat(_ rule: String, start: ICalDateTime.WallTime) -> Result<Alarm.Schedule.Relative.Recurrence, ICalError>? {
        var parts: [String: String] = [:]
        for part in rule.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { return .failure(ICalError("RRULE \(rule.prefix(80)) is not NAME=VALUE;…")) }
            parts[pair[0].uppercased()] = String(pair[1]).uppercased()
        }
        let frequency = parts["FREQ"] ?? ""
        let interval = parts["INTERVAL"].flatMap { Int($0) } ?? 1
        guard frequency == "MONTHLY" || frequency == "YEARLY" || frequency == "DAILY" && interval > 1 else { return nil }
        let supported = "Reveille repeats monthly on a day, yearly on a date, or every N days (no COUNT, UNTIL or BYDAY)"
        for key in parts.keys.sorted() where !["FREQ", "INTERVAL", "BYMONTHDAY", "BYMONTH", "BYSETPOS", "WKST"].contains(key) {
            return .failure(ICalError("RRULE \(key.prefix(20))=\(parts[key]!.prefix(40)) cannot be held: \(supported)"))
        }
        if frequency == "DAILY" {
            guard interval <= 366, parts["BYMONTHDAY"] == nil, parts["BYMONTH"] == nil, parts["BYSETPOS"] == nil else {
                return .failure(ICalError("RRULE \(rule.prefix(80)) cannot be held: \(supported), N at most 366"))
            }
            return .success(.everyDays(interval, from: CalendarDay(year: start.year, month: start.month, day: start.day)))
        }
        guard interval == 1 else { return .failure(ICalError("RRULE INTERVAL=\(interval) cannot be held: \(supported)")) }
        // One day, or the last of the days up to it (`28,29,30,31;BYSETPOS=-1`), as `rule(_:)` writes it.
        let days = (parts["BYMONTHDAY"] ?? String(start.day)).split(separator: ",").map { Int($0) }
        guard !days.isEmpty, days.allSatisfy({ $0.map { (1...31).contains($0) } == true }) else {
            return .failure(ICalError("RRULE BYMONTHDAY=\(parts["BYMONTHDAY"]?.prefix(40) ?? "") cannot be held: \(supported)"))
        }
        let sorted = days.compactMap { $0 }.sorted()
        let contiguous = zip(sorted, sorted.dropFirst()).allSatisfy { $1 == $0 + 1 }
        guard sorted.count == 1 && parts["BYSETPOS"] == nil || contiguous && parts["BYSETPOS"] == "-1" else {
            return .failure(ICalError("RRULE \(rule.prefix(80)) cannot be held: \(supported)"))
        }
        let day = sorted.last!
        if frequency == "MONTHLY" {
            guard parts["BYMONTH"] == nil else { return .failure(ICalError("RRULE BYMONTH cannot be held in a monthly rule: \(supported)")) }
            // A lone 29th–31st skips the months without it; Reveille would ring on their last day.
            guard sorted.count > 1 || day <= 28 else {
                return .failure(ICalError("RRULE \(rule.prefix(80)) cannot be held: it skips the months without day \(day), where Reveille rings on their last day (BYMONTHDAY=28,…,\(day);BYSETPOS=-1 says so)"))
            }
            return .success(.monthly(day: day))
        }
        let month = parts["BYMONTH"].flatMap { Int($0) } ?? start.month
        guard (1...12).contains(month), day <= CalendarDay.days(inMonth: month, year: 2000) else {
            return .failure(ICalError("RRULE \(rule.prefix(80)) names no date of the year: \(supported)"))
        }
        guard sorted.count > 1 || day <= CalendarDay.days(inMonth: month, year: 2001) else {
            return .failure(ICalError("RRULE \(rule.prefix(80)) cannot be held: February 29 alone skips the other years, where Reveille rings on the 28th (BYMONTHDAY=28,29;BYSETPOS=-1 says so)"))
        }
        return .success(.yearly(month: month, day: day))
    }

    /// `FREQ=WEEKLY;BYDAY=MO,WE`, days in the week's order from Monday.
    static func rule(_ days: [Locale.Weekday]) -> String {
        let ordered = (Weekdays.sundayFirst.dropFirst() + [.sunday]).filter(days.contains)
        return "FREQ=WEEKLY;BYDAY=" + ordered.compactMap { Weekdays.codes[$0] }.joined(separator: ",")
    }
}
