import FoundationEssentials
import ReveilleModel

/// Reads the times, dates, durations and weekday lists people type.
package enum InputParser {
    /// Weekday names in the user's language (what `reveille list` shows), read besides the
    /// English ones; Core passes its translations.
    package typealias WeekdayNames = [Locale.Weekday: String]

    /// Monday first.
    package static let week: [Locale.Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday, .saturday, .sunday]

    /// A time of day: `07:30`, `7:30`, `7.30`, `18h30` (as French and German write it), `0730`, `7:30pm`, `7pm`, `19:30`, `noon`, `midnight`.
    package static func timeOfDay(_ text: String) throws -> Alarm.Schedule.Relative.Time {
        let error = InputError(text: text, expected: .timeOfDay, accepted: .times)
        let trimmed = text.trimmed().lowercased()
        switch trimmed {
        case "noon", "midday": return .init(hour: 12, minute: 0)
        case "midnight": return .init(hour: 0, minute: 0)
        default: break
        }
        if let match = trimmed.wholeMatch(of: /^([01][0-9]|2[0-3])([0-5][0-9])$/), let hour = number(match.1), let minute = number(match.2) {
            return .init(hour: hour, minute: minute)  // 0730, as at(1) reads it
        }
        // `18h30`: the `h` needs its minutes, since `18h` alone is a duration.
        if let match = trimmed.wholeMatch(of: /^([0-9]{1,2})h([0-5][0-9])$/), let hour = number(match.1), hour < 24, let minute = number(match.2) {
            return .init(hour: hour, minute: minute)
        }
        let pattern = /^([0-9]{1,2})(?:[:.]([0-9]{2}))?\s*([ap]\.?m\.?)?$/
        guard let match = trimmed.wholeMatch(of: pattern), var hour = number(match.1) else { throw error }
        guard let minute = match.2.map(number) ?? 0 else { throw error }
        if let meridiem = match.3 {
            guard (1...12).contains(hour) else { throw error }
            hour = hour % 12 + (meridiem.hasPrefix("p") ? 12 : 0)
        } else if match.2 == nil {
            throw error // a bare number is ambiguous: 7 could be a duration or a time
        }
        guard (0...23).contains(hour), (0...59).contains(minute) else { throw error }
        return .init(hour: hour, minute: minute)
    }

    /// A timer's length: a duration, or a bare number of seconds (`timer 90`, as `sleep 90`).
    package static func timerLength(_ text: String) throws -> TimeInterval {
        do {
            if let seconds = number(Substring(text.trimmed())) { return try duration("\(seconds)s") }
            return try duration(text)
        } catch let error as InputError {
            throw InputError(text: text, expected: error.expected, accepted: .timerLengths)
        }
    }

    /// A length as it is typed: `366d`, `24h`, `90m`, `5s` (the forms are English in every
    /// language), read back by `duration` as the same number of seconds.
    package static func typed(_ seconds: TimeInterval) -> String {
        // A stored value out of any range still shows (Int() of it would trap).
        guard seconds.isFinite, abs(seconds) < 1e15 else { return "\(seconds)s" }
        let whole = Int(seconds)
        guard Double(whole) == seconds else { return "\(seconds)s" }
        if whole >= 2 * 86_400, whole % 86_400 == 0 { return "\(whole / 86_400)d" }
        if whole >= 3600, whole % 3600 == 0 { return "\(whole / 3600)h" }
        if whole >= 60, whole % 60 == 0 { return "\(whole / 60)m" }
        return "\(whole)s"
    }

    /// How an alarm rings again unanswered, as typed (`--repeat-unanswered`, the setting):
    /// `off` (or `once`, `1`), `3` (three rings in all, the default rest apart), `3x5m` (three
    /// rings, 5 minutes' rest between). `nil` when it is none of these or out of range.
    package static func unansweredRepeat(_ text: String) -> UnansweredRepeat? {
        let trimmed = text.trimmed().lowercased()
        if ["off", "once", "no", "none", "1"].contains(trimmed) { return .once }
        let parts = trimmed.split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
        guard let ringsText = parts.first, ringsText.count <= 3, ringsText.utf8.allSatisfy({ (48...57).contains($0) }),
              let rings = Int(ringsText) else { return nil }
        var plan = UnansweredRepeat(rings: rings)
        if parts.count == 2 {
            guard let rest = try? duration(String(parts[1])) else { return nil }
            plan.rest = rest
        }
        return (try? plan.validate()) == nil ? nil : plan
    }

    /// What `--repeat-unanswered` and the setting accept, in words (English, as the settings'
    /// `accepted` texts are).
    package static let unansweredRepeatForms = "\"off\", or the rings in all and the rest between them, e.g. \"3x5m\" (2 to 10 rings, 5s to 1h apart)"

    /// A length of time: `90s`, `10m`, `1h30m`, `1h30` (the last number in the next smaller
    /// unit), `1.5h`, `2d`, `1:30:00`, `5:00`.
    package static func duration(_ text: String) throws -> TimeInterval {
        let error = InputError(text: text, expected: .duration, accepted: .durations)
        let trimmed = text.trimmed().lowercased()
        // `-5m`: a length below zero is refused as one, not as text that could not be read.
        // One minus only: a run of them is not read (it had recursed once a dash, quadratic).
        if trimmed.hasPrefix("-"), !trimmed.dropFirst().hasPrefix("-"), (try? duration(String(trimmed.dropFirst()))) != nil {
            throw InputError(text: text, expected: .durationLongerThanZero, accepted: .durations)
        }
        var seconds: Double
        if trimmed.contains(":") {
            let parts = trimmed.split(separator: ":", omittingEmptySubsequences: false)
            // ASCII digits only (`isNumber` takes ½ and ٣, which Double cannot read), any count.
            let numbers = parts.compactMap { $0.utf8.allSatisfy { (48...57).contains($0) } ? Double($0) : nil }
            guard (2...3).contains(parts.count), numbers.count == parts.count,
                  parts.dropFirst().allSatisfy({ $0.count == 2 }), numbers.dropFirst().allSatisfy({ $0 < 60 }) else { throw error }
            seconds = numbers.reduce(0) { $0 * 60 + $1 }
        } else {
            let unitPattern = /([0-9]+(?:\.[0-9]+)?)\s*(days|day|d|hours|hour|hrs|hr|h|minutes|minute|mins|min|m|seconds|second|secs|sec|s)/
            var rest = Substring(trimmed)
            seconds = 0
            guard !rest.isEmpty else { throw error }
            var lastUnit: Double?
            while !rest.isEmpty {
                guard let match = rest.prefixMatch(of: unitPattern), let value = Double(match.1) else {
                    // `1h30`, `2m30`, `1d12`: a last bare whole number counts in the unit below the one before it.
                    guard let lastUnit, lastUnit > 1, let value = number(rest) else { throw error }
                    seconds += Double(value) * (lastUnit == 86_400 ? 3600 : lastUnit / 60)
                    break
                }
                let unit: Double = switch match.2.first! {
                case "d": 86_400
                case "h": 3600
                case "m": 60
                default: 1
                }
                seconds += value * unit
                lastUnit = unit
                rest = rest[match.range.upperBound...].drop(while: \.isWhitespace)
            }
        }
        guard seconds > 0 else {
            throw InputError(text: text, expected: .durationLongerThanZero, accepted: .durations)
        }
        guard seconds <= maximumDuration else {
            throw InputError(text: text, expected: .durationAtMost(days: Int(maximumDuration / 86_400)), accepted: .durations)
        }
        return seconds
    }

    /// The longest duration read: 100 years. Beyond it no alarm is meant, and date arithmetic
    /// on the instant it names would leave the years the calendar code handles (to 9999).
    package static let maximumDuration: TimeInterval = 36_600 * 86_400

    /// A run of ASCII digits as a number, or `nil`: `Int` of other text (digits of other
    /// scripts, which a Regex's `\d` takes, or more digits than an `Int` holds) is never forced.
    static func number(_ digits: Substring) -> Int? {
        guard !digits.isEmpty, digits.count <= 18, digits.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return Int(digits)
    }

    /// A list of weekdays: `mon,wed,fri`, `mon-fri`, `weekdays`, `weekends`, `daily`. Monday first, no repeats.
    /// `localNames`: the short names in the user's language, read after the English ones.
    package static func weekdays(_ text: String, localNames: WeekdayNames) throws -> [Locale.Weekday] {
        let error = InputError(text: text, expected: .weekdays, accepted: .weekdays)
        var chosen = Set<Locale.Weekday>()
        let items = text.lowercased().split(whereSeparator: { $0 == "," || $0 == " " })
        guard !items.isEmpty else { throw error }
        for item in items {
            switch item {
            case "daily", "everyday", "all": chosen.formUnion(week)
            case "weekdays": chosen.formUnion(week.prefix(5))
            case "weekends", "weekend": chosen.formUnion(week.suffix(2))
            default:
                let ends = item.split(separator: "-", omittingEmptySubsequences: false)
                guard (1...2).contains(ends.count) else { throw error }
                let indices = try ends.map { name -> Int in
                    // English first; then the short names the CLI shows in the user's language
                    // (`lun,mar`), so that what `reveille list` prints can be typed back.
                    guard let index = week.firstIndex(where: { day in matches(String(name), day) })
                        ?? week.firstIndex(where: { day in localNames[day].map { $0.lowercased() == name } == true })
                    else { throw error }
                    return index
                }
                // A range may wrap past Sunday: fri-mon is fri, sat, sun, mon.
                var index = indices[0]
                while true {
                    chosen.insert(week[index])
                    if index == indices.last! { break }
                    index = (index + 1) % 7
                }
            }
        }
        return week.filter(chosen.contains)
    }

    /// How a time of day repeats, as the CLI's options give it: at most one of them.
    package struct Repeats: Sendable {
        /// `--days`: weekdays.
        package var days: String?
        /// `--monthly`: a day of the month.
        package var monthly: String?
        /// `--yearly`: a day of the year.
        package var yearly: String?
        /// `--every`: a number of days.
        package var every: String?

        package init(days: String? = nil, monthly: String? = nil, yearly: String? = nil, every: String? = nil) {
            (self.days, self.monthly, self.yearly, self.every) = (days, monthly, yearly, every)
        }

        /// The options given, as typed: `--monthly 15`.
        package var given: [String] {
            [("--days", days), ("--monthly", monthly), ("--yearly", yearly), ("--every", every)].compactMap { option, value in
                value.map { "\(option) \($0)" }
            }
        }

        package var isEmpty: Bool { given.isEmpty }
    }

    /// The recurrence `repeats` names (`.never` when none is given); `firstDay` is the day an
    /// every-few-days count starts on (the time's next occurrence).
    package static func recurrence(_ repeats: Repeats, localNames: WeekdayNames,
                                   firstDay: () -> CalendarDay) throws -> Alarm.Schedule.Relative.Recurrence {
        guard repeats.given.count <= 1 else {
            throw InputError(text: repeats.given.joined(separator: " "), expected: .oneWayToRepeat, accepted: .repeatOptions)
        }
        if let days = repeats.days { return .weekly(try weekdays(days, localNames: localNames)) }
        if let monthly = repeats.monthly {
            guard let day = number(Substring(monthly.trimmed())), (1...31).contains(day) else {
                throw InputError(text: monthly, expected: .dayOfMonth, accepted: .monthDays)
            }
            return .monthly(day: day)
        }
        if let yearly = repeats.yearly {
            let words = yearly.lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
            let numeric = words.count == 1 ? words[0].wholeMatch(of: /^([0-9]{1,2})-([0-9]{1,2})$/) : nil
            let monthDay = numeric.flatMap { match in number(match.1).flatMap { month in number(match.2).map { (month, $0) } } }
                ?? calendarDay(words).flatMap { $0.year == nil ? ($0.month, $0.day) : nil }
            guard let (month, day) = monthDay, (1...12).contains(month),
                  (1...CalendarDay.days(inMonth: month, year: 2000)).contains(day) else {
                throw InputError(text: yearly, expected: .dayOfYear, accepted: .yearDays)
            }
            return .yearly(month: month, day: day)
        }
        if let every = repeats.every {
            let trimmed = every.trimmed().lowercased()
            let match = trimmed.wholeMatch(of: /^([0-9]{1,4})\s*(d|days?|w|weeks?)?$/)
            guard let match, let count = number(match.1),
                  case let days = match.2?.first == "w" ? count * 7 : count,
                  (1...Alarm.Schedule.Relative.Recurrence.maximumDayInterval).contains(days) else {
                throw InputError(text: every, expected: .numberOfDays, accepted: .dayIntervals)
            }
            return .everyDays(days, from: firstDay())
        }
        return .never
    }

    /// When to ring: a time of day (relative: its next occurrence, or as `repeats` says), or an
    /// instant (fixed): a date or day with a time, a weekday (the next one; `next` skips today),
    /// or an offset from now (`in 10m`, `+10m`). A day without a time rings at 09:00.
    package static func schedule(_ text: String, repeats: Repeats, localNames: WeekdayNames, now: Date,
                                timeZone: any TimeZoneRules) throws -> Alarm.Schedule {
        if let time = try? timeOfDay(text) {
            let recurrence = try recurrence(repeats, localNames: localNames) {
                // Every few days counts from the day the time next comes.
                let next = Alarm.Schedule.relative(.init(time: time, repeats: .never)).nextFireDate(after: now, in: timeZone) ?? now
                let day = CivilDate(containing: next, in: timeZone)
                return CalendarDay(year: day.year, month: day.month, day: day.day)
            }
            return .relative(.init(time: time, repeats: recurrence))
        }
        if !repeats.isEmpty, (try? instant(text, now: now, timeZone: timeZone)) != nil {
            throw InputError(text: text, expected: .timeOfDayToRepeat(options: repeats.given.joined(separator: " ")),
                             accepted: .times)
        }
        do {
            return .fixed(try instant(text, now: now, timeZone: timeZone))
        } catch let error as InputError where error.expected != .dateAndTime {
            throw error
        } catch {
            throw refusal(text)
        }
    }

    /// The closest accepted form to `text`, which nothing accepted.
    static func refusal(_ text: String) -> InputError {
        let trimmed = text.trimmed()
        if (try? duration(trimmed)) != nil, !trimmed.contains(":") {
            return InputError(text: text, expected: .whenNotHowLong(trimmed), accepted: .offsetOrTimer(trimmed))
        }
        if let hour = Int(trimmed), (0...23).contains(hour) {
            return InputError(text: text, expected: .whenNotBareNumber, accepted: .hourForms(hour: hour))
        }
        return InputError(text: text, expected: .timeOrDate, accepted: .timeOrDayAndTime)
    }

    /// The time of day a day without one rings at.
    package static let defaultTimeOfDay = Alarm.Schedule.Relative.Time(hour: 9, minute: 0)

    /// An instant: `now`; an offset (`in 1h30m`, `+10m`); an ISO 8601 date and time (with or
    /// without a UTC offset); or a day (`today`, `tomorrow`, a weekday, `next` weekday,
    /// `2026-12-24`, `12/24`, `24.12.`, `dec 24`, with an optional year) with an optional time
    /// (09:00 without one; seconds allowed: `19:30:15`). A time alone is its next occurrence.
    package static func instant(_ text: String, now: Date, timeZone: any TimeZoneRules) throws -> Date {
        let error = InputError(text: text, expected: .dateAndTime, accepted: .dates)
        let trimmed = text.trimmed()
        if trimmed.lowercased() == "now" { return now }
        if let date = ISO8601Local.parse(trimmed, defaultTimeZone: timeZone), trimmed.contains(where: { $0 == "T" || $0 == " " || $0 == "t" }) {
            // Without an offset it is a wall time: in an autumn overlap, its next occurrence, as for
            // `today 2:29` (ISO8601Local takes the first). After the date, only an offset has Z, + or -.
            guard !trimmed.dropFirst(10).contains(where: { "Zz+-".contains($0) }),
                  let wall = ISO8601Local.parse(trimmed, defaultTimeZone: UTCTimeZone()) else { return date }
            let day = CivilDate(containing: wall, in: UTCTimeZone())
            let second = wall.timeIntervalSince1970 - Double(day.daysSinceEpoch) * 86_400
            let hour = Int(second / 3600), minute = Int(second / 60) % 60
            return WallClock.occurrence(on: day, hour: hour, minute: minute, second: second - Double(hour * 3600 + minute * 60),
                                        after: now, in: timeZone) ?? date
        }
        var words = trimmed.lowercased().split(whereSeparator: \.isWhitespace).map(String.init).filter { $0 != "at" && $0 != "on" }
        // An offset from now.
        if words.first == "in" || words.first?.hasPrefix("+") == true {
            let rest = words.first == "in" ? words.dropFirst().joined(separator: " ")
                : String(words.joined(separator: " ").dropFirst())
            guard let seconds = try? duration(rest) else { throw error }
            return now.addingTimeInterval(seconds)
        }
        // A time at the end (to the second, or a time of day), else the day's default.
        var clock: (hour: Int, minute: Int, second: Double)?
        if let last = words.last {
            if let match = last.wholeMatch(of: /^([0-9]{1,2}):([0-5][0-9]):([0-5][0-9])$/), let hour = number(match.1), hour < 24,
               let minute = number(match.2), let second = number(match.3) {
                clock = (hour, minute, Double(second))
            } else if let time = try? timeOfDay(last) {
                clock = (time.hour, time.minute, 0)
            } else if words.count >= 2, let time = try? timeOfDay(words.suffix(2).joined(separator: " ")) {
                clock = (time.hour, time.minute, 0)  // "7 pm"
                words.removeLast()
            }
            if clock != nil { words.removeLast() }
        }
        let today = CivilDate(containing: now, in: timeZone)
        let time = clock ?? (defaultTimeOfDay.hour, defaultTimeOfDay.minute, 0)
        /// The time on `day` that comes next after now (in an autumn overlap, possibly its second pass).
        func ahead(_ day: CivilDate) -> Date? {
            WallClock.occurrence(on: day, hour: time.hour, minute: time.minute, second: time.second, after: now, in: timeZone)
        }
        /// The time on `day`: the one ahead, else (passed) its first occurrence.
        func at(_ day: CivilDate) -> Date {
            ahead(day) ?? WallClock.instant(on: day, hour: time.hour, minute: time.minute, second: time.second, in: timeZone)
        }
        /// The first of `candidates` (days from today) whose instant is still ahead.
        func firstAhead(_ days: some Sequence<Int>, from start: CivilDate = today, where accept: (CivilDate) -> Bool = { _ in true }) -> Date? {
            days.lazy.map { start.adding(days: $0) }.filter(accept).compactMap(ahead).first
        }
        switch words.count {
        case 0:
            guard clock != nil, let date = firstAhead(0...1) else { throw error }
            return date
        case 1 where words[0] == "today" || (words[0] == "tonight" && clock != nil):
            return at(today)
        case 1 where words[0] == "tomorrow":
            return at(today.adding(days: 1))
        case 1 where weekday(words[0]) != nil:
            guard let day = weekday(words[0]), let date = firstAhead(0...7, where: { $0.weekday == day }) else { throw error }
            return date
        case 2 where words[0] == "next" && weekday(words[1]) != nil:
            guard let day = weekday(words[1]), let date = firstAhead(1...7, where: { $0.weekday == day }) else { throw error }
            return date
        default:
            guard let (month, day, year) = calendarDay(words) else { throw error }
            if let year {
                let date = CivilDate(year: year, month: month, day: day)
                guard date.isValid else { throw error }
                return at(date)
            }
            // Without a year: the next time that day comes.
            for year in today.year...(today.year + 8) {
                let date = CivilDate(year: year, month: month, day: day)
                if date.isValid, let next = ahead(date) { return next }
            }
            throw error
        }
    }

    /// A calendar day as people write it: `2026-12-24`, `12/24[/2026]`, `24.12.[2026]`,
    /// `dec 24 [2026]`, `24 dec [2026]` (month names in English, 3 letters or whole).
    static func calendarDay(_ words: [String]) -> (month: Int, day: Int, year: Int?)? {
        let text = words.joined(separator: " ")
        if let match = text.wholeMatch(of: /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})$/) {
            guard let year = number(match.1), let month = number(match.2), let day = number(match.3) else { return nil }
            return (month, day, year)
        }
        if let match = text.wholeMatch(of: /^([0-9]{1,2})\/([0-9]{1,2})(?:\/([0-9]{4}))?$/) {
            guard let month = number(match.1), let day = number(match.2) else { return nil }
            return (month, day, match.3.flatMap(number))
        }
        if let match = text.wholeMatch(of: /^([0-9]{1,2})\.([0-9]{1,2})\.([0-9]{4})?$/) {
            guard let day = number(match.1), let month = number(match.2) else { return nil }
            return (month, day, match.3.flatMap(number))
        }
        let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        func month(_ word: String) -> Int? {
            guard word.count >= 3, let index = months.firstIndex(where: { word.hasPrefix($0) }) else { return nil }
            let full = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
                        "october", "november", "december"][index]
            return full.hasPrefix(word.filter { $0 != "." }) ? index + 1 : nil
        }
        guard (2...3).contains(words.count) else { return nil }
        let year = words.count == 3 ? number(Substring(words[2])).flatMap { (1970...9999).contains($0) ? $0 : nil } : nil
        if words.count == 3, year == nil { return nil }
        func day(_ word: String) -> Int? { number(Substring(word.filter { $0 != "," && $0 != "." })).flatMap { $0 <= 31 ? $0 : nil } }
        if let m = month(words[0]), let d = day(words[1]) { return (m, d, year) }
        if let d = day(words[0]), let m = month(words[1]) { return (m, d, year) }
        return nil
    }

    /// A weekday by its name, whole or from its first two or three letters.
    static func weekday(_ word: String) -> Locale.Weekday? {
        week.first { matches(word, $0) }
    }

    /// Splits a command line into arguments, without a shell: spaces separate; 'single quotes'
    /// keep everything literally; "double quotes" keep spaces, with \" and \\ inside; a
    /// backslash outside quotes keeps the next character. Nothing is expanded (no $, ~, *).
    /// Kept rather than GLib's `g_shell_parse_argv`, which follows sh: a word starting with `#`
    /// begins a comment, so `notify-send Take pill #2` would lose its last word, and a `\$` or
    /// a backquote inside double quotes is read as sh reads it.
    package static func arguments(_ text: String) throws -> [String] {
        var arguments: [String] = []
        var current = ""
        var inWord = false
        var iterator = text.makeIterator()
        let error = { (fault: InputError.CommandLineFault) in
            InputError(text: text, expected: .commandLine(fault), accepted: .commandLineQuoting)
        }
        while let character = iterator.next() {
            switch character {
            case " ", "\t":
                if inWord { arguments.append(current); current = ""; inWord = false }
            case "'":
                inWord = true
                while true {
                    guard let next = iterator.next() else { throw error(.singleQuoteNotClosed) }
                    if next == "'" { break }
                    current.append(next)
                }
            case "\"":
                inWord = true
                while true {
                    guard let next = iterator.next() else { throw error(.doubleQuoteNotClosed) }
                    if next == "\"" { break }
                    if next == "\\", let escaped = iterator.next() {
                        if escaped != "\"" && escaped != "\\" { current.append("\\") }
                        current.append(escaped)
                    } else {
                        current.append(next)
                    }
                }
            case "\\":
                guard let escaped = iterator.next() else { throw error(.endsWithBackslash) }
                current.append(escaped)
                inWord = true
            default:
                current.append(character)
                inWord = true
            }
        }
        if inWord { arguments.append(current) }
        return arguments
    }

    private static func matches(_ name: String, _ day: Locale.Weekday) -> Bool {
        let full: String = switch day {
        case .monday: "monday"
        case .tuesday: "tuesday"
        case .wednesday: "wednesday"
        case .thursday: "thursday"
        case .friday: "friday"
        case .saturday: "saturday"
        case .sunday: "sunday"
        @unknown default: ""
        }
        return name.count >= 2 && full.hasPrefix(name) && (name.count >= 3 || ["mo", "tu", "we", "th", "fr", "sa", "su"].contains(name))
    }
}

extension InputParser {
    /// The `count` names closest to `text` (regardless of case, by edit distance; ties by name),
    /// to suggest instead of listing every name.
    package static func closest(to text: String, among names: [String], count: Int = 3) -> [String] {
        let wanted = Array(text.lowercased().prefix(maximumComparedLength))
        return names.map { (name: $0, distance: editDistance(wanted, Array($0.lowercased().prefix(maximumComparedLength)))) }
            .sorted { ($0.distance, $0.name) < ($1.distance, $1.name) }
            .prefix(count).map(\.name)
    }

    /// Names are compared on their first 100 characters: the cost stays bounded whatever is typed.
    static let maximumComparedLength = 100

    /// Levenshtein distance: the insertions, deletions and substitutions from `a` to `b`.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, left) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, right) in b.enumerated() {
                current[j + 1] = Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (left == right ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

extension UnansweredRepeat {
    /// As it is typed: `off`, or `3x5m` (three rings, 5 minutes apart); read back by
    /// `InputParser.unansweredRepeat`.
    package var text: String { repeats ? "\(rings)x\(InputParser.typed(rest))" : "off" }
}
