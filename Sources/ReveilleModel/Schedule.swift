import FoundationEssentials

extension Alarm {
    /// When an alarm alerts: a fixed instant, or a wall-clock time that follows the time zone.
    public enum Schedule: Hashable, Sendable {
        /// One absolute instant; a change of time zone does not move it.
        case fixed(Date)
        /// A wall-clock time with a recurrence, evaluated in the local time zone.
        case relative(Relative)

        /// A wall-clock time and the days it repeats on.
        public struct Relative: Codable, Hashable, Sendable {
            public var time: Time
            public var repeats: Recurrence

            public init(time: Time, repeats: Recurrence) {
                self.time = time
                self.repeats = repeats
            }

            /// A time of day, as hour (0–23) and minute (0–59).
            public struct Time: Codable, Hashable, Sendable {
                public var hour: Int
                public var minute: Int

                public init(hour: Int, minute: Int) {
                    self.hour = hour
                    self.minute = minute
                }
            }

            /// `.never` alerts at the next occurrence of the time; `.weekly` on the listed days.
            /// `.monthly`, `.yearly` and `.everyDays` are Reveille extensions (AlarmKit has weekly only).
            public enum Recurrence: Hashable, Sendable {
                case never
                case weekly([Locale.Weekday])
                /// On this day of every month (1–31); a month without that day rings on its last day.
                case monthly(day: Int)
                /// On this day every year; February 29 rings on February 28 in other years.
                case yearly(month: Int, day: Int)
                /// Every `n` days (1–366), counted from the calendar day `from`, which rings first.
                case everyDays(Int, from: CalendarDay)
            }
        }
    }
}

/// A day of the calendar without a time zone (a Reveille extension): `2026-11-23` in JSON.
public struct CalendarDay: Hashable, Sendable, Codable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The days of `month` (1–12) in `year` (Gregorian: February has 29 in leap years).
    public static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Whether the day exists, in the years 1970–9999 the calendar code handles.
    public var isValid: Bool {
        (1970...9999).contains(year) && (1...12).contains(month) && (1...Self.days(inMonth: month, year: year)).contains(day)
    }

    /// `2026-03-21`.
    public var description: String {
        func two(_ value: Int) -> String { value < 10 && value >= 0 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))"
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        let parts = text.utf8.count == 10 ? text.split(separator: "-", omittingEmptySubsequences: false) : []
        let numbers = parts.compactMap { $0.utf8.allSatisfy { (48...57).contains($0) } ? Int($0) : nil }
        guard numbers.count == 3, parts.map(\.count) == [4, 2, 2] else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text.prefix(40))' is not a day; accepted: YYYY-MM-DD")
        }
        self.init(year: numbers[0], month: numbers[1], day: numbers[2])
        guard isValid else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(text) is not a day of the years 1970–9999")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

// Readable JSON: {"fixed": "2026-12-24T18:00:00Z"} or {"relative": {"time": {...}, "repeats": [...]}}.
extension Alarm.Schedule {
    /// It rings again and again: on weekdays (AlarmKit's `Alarm.isRepeating`), or monthly,
    /// yearly, every few days.
    public var isRepeating: Bool {
        guard case .relative(let relative) = self else { return false }
        switch relative.repeats {
        case .never: return false
        case .weekly(let days): return !days.isEmpty
        case .monthly, .yearly, .everyDays: return true
        }
    }
}

extension Alarm.Schedule.Relative.Recurrence {
    /// The most days `.everyDays` counts: a year.
    public static let maximumDayInterval = 366

    /// What is out of range, in words, or `nil` when every number is in range: the one check
    /// of decoding (store and wire) and of validation.
    public var outOfRange: String? {
        switch self {
        case .never, .weekly: return nil
        case .monthly(let day):
            return (1...31).contains(day) ? nil : "a monthly recurrence's day is \(day); accepted: 1–31 (a month without that day rings on its last day)"
        case .yearly(let month, let day):
            guard (1...12).contains(month) else { return "a yearly recurrence's month is \(month); accepted: 1–12" }
            // Any year's days: February 29 is accepted (it rings on the 28th in other years).
            let most = CalendarDay.days(inMonth: month, year: 2000)
            return (1...most).contains(day) ? nil : "a yearly recurrence's day is \(day) in month \(month); accepted: 1–\(most)"
        case .everyDays(let count, let from):
            guard (1...Self.maximumDayInterval).contains(count) else {
                return "an every-few-days recurrence counts \(count) days; accepted: 1–\(Self.maximumDayInterval)"
            }
            return from.isValid ? nil : "an every-few-days recurrence starts on \(from), not a day of the years 1970–9999"
        }
    }
}

extension Alarm.Schedule: Codable {
    private enum CodingKeys: String, CodingKey { case fixed, relative }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let date = try container.decodeIfPresent(Date.self, forKey: .fixed) {
            self = .fixed(date)
        } else if let relative = try container.decodeIfPresent(Relative.self, forKey: .relative) {
            self = .relative(relative)
        } else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: decoder.codingPath,
                debugDescription: "a schedule is {\"fixed\": DATE} or {\"relative\": {\"time\": ..., \"repeats\": ...}}"))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .fixed(let date): try container.encode(date, forKey: .fixed)
        case .relative(let relative): try container.encode(relative, forKey: .relative)
        }
    }
}

// `.never` is stored as the string "never", `.weekly` as the list of its days (as AlarmKit's
// clients read them); the extensions as objects: {"monthly": 15}, {"yearly": {"month": 3,
// "day": 21}}, {"everyDays": 3, "from": "2026-11-23"}.
extension Alarm.Schedule.Relative.Recurrence: Codable {
    private enum ExtensionKeys: String, CodingKey { case monthly, yearly, everyDays, from }
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
    private struct MonthDay: Codable { var month: Int, day: Int }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let accepted = "repeats is \"never\", a list of weekdays like [\"mon\", \"fri\"] (full names such as \"monday\" too), "
            + "{\"monthly\": DAY}, {\"yearly\": {\"month\": M, \"day\": D}} or {\"everyDays\": N, \"from\": \"YYYY-MM-DD\"}"
        // The common forms first: each form tried and missed throws an error, built with its
        // coding path and text, and "never" came fourth (15 µs of every alarm a list decoded).
        if let text = try? container.decode(String.self) {
            guard text == "never" else { throw DecodingError.dataCorruptedError(in: container, debugDescription: accepted) }
            self = .never
        } else if let days = try? container.decode([Locale.Weekday].self) {
            self = .weekly(days)
        } else if let names = try? container.decode([String].self) {
            // Full English names too, in any case.
            self = .weekly(try names.map { name in
                guard let day = Self.fullNames[name.lowercased()] ?? Locale.Weekday(rawValue: name.lowercased()) else {
                    throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(name.prefix(40))' is not a weekday; \(accepted)")
                }
                return day
            })
        } else if let keyed = try? decoder.container(keyedBy: ExtensionKeys.self) {
            // One form, whole: {"monthly": 3, "everyDays": 2} was read as monthly, a misspelt
            // key beside a known one left out in silence.
            let given = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue).sorted()
            let forms = given.filter { ["monthly", "yearly", "everyDays"].contains($0) }
            let wanted: Set<String> = forms == ["everyDays"] ? ["everyDays", "from"] : Set(forms)
            if forms.count > 1 || given.contains(where: { !wanted.contains($0) }) {
                let extra = forms.count > 1 ? forms.joined(separator: " and ") : given.first { !wanted.contains($0) }!
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "repeats is one form, without '\(extra.prefix(40))' beside it; \(accepted)")
            }
            if let day = try keyed.decodeIfPresent(Int.self, forKey: .monthly) {
                self = .monthly(day: day)
            } else if let date = try keyed.decodeIfPresent(MonthDay.self, forKey: .yearly) {
                self = .yearly(month: date.month, day: date.day)
            } else if let count = try keyed.decodeIfPresent(Int.self, forKey: .everyDays) {
                self = .everyDays(count, from: try keyed.decode(CalendarDay.self, forKey: .from))
            } else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: accepted)
            }
            if let problem = outOfRange { throw DecodingError.dataCorruptedError(in: container, debugDescription: problem) }
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: accepted)
        }
    }

    private static let fullNames: [String: Locale.Weekday] = [
        "monday": .monday, "tuesday": .tuesday, "wednesday": .wednesday, "thursday": .thursday,
        "friday": .friday, "saturday": .saturday, "sunday": .sunday,
    ]

    public func encode(to encoder: Encoder) throws {
        switch self {
        case .never:
            var container = encoder.singleValueContainer()
            try container.encode("never")
        case .weekly(let days):
            var container = encoder.singleValueContainer()
            try container.encode(days)
        case .monthly(let day):
            var keyed = encoder.container(keyedBy: ExtensionKeys.self)
            try keyed.encode(day, forKey: .monthly)
        case .yearly(let month, let day):
            var keyed = encoder.container(keyedBy: ExtensionKeys.self)
            try keyed.encode(MonthDay(month: month, day: day), forKey: .yearly)
        case .everyDays(let count, let from):
            var keyed = encoder.container(keyedBy: ExtensionKeys.self)
            try keyed.encode(count, forKey: .everyDays)
            try keyed.encode(from, forKey: .from)
        }
    }
}
