import FoundationEssentials

/// Reads the times, dates, durations and weekday lists people type.
public enum InputParser {
    public static let acceptedTimes = "07:30, 7:30, 7:30pm, 7pm, 19:30"
    public static let acceptedDates = "2026-12-24 18:00, 2026-12-24T18:00, 2026-12-24T18:00+01:00, today 18:00, tomorrow 7:30"
    public static let acceptedDurations = "90s, 10m, 1h30m, 1.5h, 2d, 1:30:00 (h:mm:ss), 5:00 (m:ss)"
    public static let acceptedWeekdays = "mon,wed,fri or mon-fri (mon tue wed thu fri sat sun, or full names), weekdays, weekends, daily"

    /// A time of day: `07:30`, `7:30`, `7:30pm`, `7pm`, `19:30`.
    public static func timeOfDay(_ text: String) throws -> Alarm.Schedule.Relative.Time {
        let error = InputError(text: text, expected: "a time of day", accepted: acceptedTimes)
        let pattern = /^(\d{1,2})(?::(\d{2}))?\s*([aApP][mM])?$/
        guard let match = text.trimmed().wholeMatch(of: pattern),
              var hour = Int(match.1) else { throw error }
        let minute = match.2.flatMap { Int($0) } ?? 0
        if let meridiem = match.3?.lowercased() {
            guard (1...12).contains(hour) else { throw error }
            hour = hour % 12 + (meridiem == "pm" ? 12 : 0)
        } else if match.2 == nil {
            throw error // a bare number is ambiguous: 7 could be a duration or a time
        }
        guard (0...23).contains(hour), (0...59).contains(minute) else { throw error }
        return .init(hour: hour, minute: minute)
    }

    /// A length of time: `90s`, `10m`, `1h30m`, `1.5h`, `2d`, `1:30:00`, `5:00`.
    public static func duration(_ text: String) throws -> TimeInterval {
        let error = InputError(text: text, expected: "a duration", accepted: acceptedDurations)
        let trimmed = text.trimmed().lowercased()
        var seconds: Double
        if trimmed.contains(":") {
            let parts = trimmed.split(separator: ":", omittingEmptySubsequences: false)
            guard (2...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }),
                  parts.dropFirst().allSatisfy({ $0.count == 2 && Int($0)! < 60 }) else { throw error }
            seconds = parts.reduce(0) { $0 * 60 + Double($1)! }
        } else {
            let unitPattern = /(\d+(?:\.\d+)?)\s*(days|day|d|hours|hour|hrs|hr|h|minutes|minute|mins|min|m|seconds|second|secs|sec|s)/
            var rest = Substring(trimmed)
            seconds = 0
            guard !rest.isEmpty else { throw error }
            while !rest.isEmpty {
                guard let match = rest.prefixMatch(of: unitPattern), let value = Double(match.1) else { throw error }
                let unit: Double = switch match.2.first! {
                case "d": 86_400
                case "h": 3600
                case "m": 60
                default: 1
                }
                seconds += value * unit
                rest = rest[match.range.upperBound...].drop(while: \.isWhitespace)
            }
        }
        guard seconds > 0, seconds.isFinite else {
            throw InputError(text: text, expected: "a duration longer than zero", accepted: acceptedDurations)
        }
        return seconds
    }

    /// A list of weekdays: `mon,wed,fri`, `mon-fri`, `weekdays`, `weekends`, `daily`. Monday first, no repeats.
    public static func weekdays(_ text: String) throws -> [Locale.Weekday] {
        let week: [Locale.Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday, .saturday, .sunday]
        let error = InputError(text: text, expected: "a list of weekdays", accepted: acceptedWeekdays)
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
                    guard let index = week.firstIndex(where: { day in matches(String(name), day) }) else { throw error }
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

    /// A time of day (relative: the next occurrence, or on `days`) or a date and time (fixed).
    public static func schedule(_ text: String, days: String? = nil, now: Date,
                                timeZone: any TimeZoneRules) throws -> Alarm.Schedule {
        if let time = try? timeOfDay(text) {
            let repeats: Alarm.Schedule.Relative.Recurrence = try days.map { .weekly(try weekdays($0)) } ?? .never
            return .relative(.init(time: time, repeats: repeats))
        }
        if days != nil, (try? instant(text, now: now, timeZone: timeZone)) != nil {
            throw InputError(text: text, expected: "a time of day, since --days repeats a time of day",
                             accepted: acceptedTimes)
        }
        do {
            return .fixed(try instant(text, now: now, timeZone: timeZone))
        } catch {
            throw InputError(text: text, expected: "a time or a date",
                             accepted: "a time of day (\(acceptedTimes)) or a date and time (\(acceptedDates))")
        }
    }

    /// An instant: a date and time (`2026-12-24 18:00`, with or without a UTC offset),
    /// `today 18:00`, `tomorrow 7:30`, or `now`.
    public static func instant(_ text: String, now: Date, timeZone: any TimeZoneRules) throws -> Date {
        let trimmed = text.trimmed()
        if trimmed.lowercased() == "now" { return now }
        if let date = ISO8601Local.parse(trimmed, defaultTimeZone: timeZone) { return date }
        let words = trimmed.split(separator: " ", maxSplits: 1)
        if words.count == 2, let dayOffset = ["today": 0, "tomorrow": 1][words[0].lowercased()],
           let time = try? timeOfDay(String(words[1])) {
            let day = CivilDate(containing: now, in: timeZone).adding(days: dayOffset)
            return WallClock.instant(on: day, hour: time.hour, minute: time.minute, in: timeZone)
        }
        throw InputError(text: text, expected: "a date and time", accepted: acceptedDates)
    }

    /// Splits a command line into arguments, without a shell: spaces separate; 'single quotes'
    /// keep everything literally; "double quotes" keep spaces, with \" and \\ inside; a
    /// backslash outside quotes keeps the next character. Nothing is expanded (no $, ~, *).
    public static func arguments(_ text: String) throws -> [String] {
        var arguments: [String] = []
        var current = ""
        var inWord = false
        var iterator = text.makeIterator()
        let error = { (what: String) in
            InputError(text: text, expected: "a command line (\(what))",
                       accepted: "words separated by spaces; 'single' or \"double\" quotes; \\ before a character to keep it")
        }
        while let character = iterator.next() {
            switch character {
            case " ", "\t":
                if inWord { arguments.append(current); current = ""; inWord = false }
            case "'":
                inWord = true
                while true {
                    guard let next = iterator.next() else { throw error("a ' is not closed") }
                    if next == "'" { break }
                    current.append(next)
                }
            case "\"":
                inWord = true
                while true {
                    guard let next = iterator.next() else { throw error("a \" is not closed") }
                    if next == "\"" { break }
                    if next == "\\", let escaped = iterator.next() {
                        if escaped != "\"" && escaped != "\\" { current.append("\\") }
                        current.append(escaped)
                    } else {
                        current.append(next)
                    }
                }
            case "\\":
                guard let escaped = iterator.next() else { throw error("it ends with a \\") }
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
