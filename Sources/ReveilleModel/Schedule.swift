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
            public enum Recurrence: Hashable, Sendable {
                case never
                case weekly([Locale.Weekday])
            }
        }
    }
}

// Readable JSON: {"fixed": "2026-12-24T18:00:00Z"} or {"relative": {"time": {...}, "repeats": [...]}}.
extension Alarm.Schedule {
    /// It rings on weekdays, again and again (AlarmKit's `Alarm.isRepeating`).
    public var isRepeating: Bool {
        if case .relative(let relative) = self, case .weekly(let days) = relative.repeats { !days.isEmpty } else { false }
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

// `.never` is stored as the string "never", `.weekly` as the list of its days.
extension Alarm.Schedule.Relative.Recurrence: Codable {
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let accepted = "repeats is \"never\" or a list of weekdays like [\"mon\", \"fri\"] (full names such as \"monday\" too)"
        if let days = try? container.decode([Locale.Weekday].self) {
            self = .weekly(days)
        } else if let names = try? container.decode([String].self) {
            // Full English names too, in any case.
            self = .weekly(try names.map { name in
                guard let day = Self.fullNames[name.lowercased()] ?? Locale.Weekday(rawValue: name.lowercased()) else {
                    throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(name.prefix(40))' is not a weekday; \(accepted)")
                }
                return day
            })
        } else if (try? container.decode(String.self)) == "never" {
            self = .never
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: accepted)
        }
    }

    private static let fullNames: [String: Locale.Weekday] = [
        "monday": .monday, "tuesday": .tuesday, "wednesday": .wednesday, "thursday": .thursday,
        "friday": .friday, "saturday": .saturday, "sunday": .sunday,
    ]

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .never: try container.encode("never")
        case .weekly(let days): try container.encode(days)
        }
    }
}
