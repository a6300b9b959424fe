/// Text a person typed that could not be read: the text, what it was read as and what is
/// accepted, as data. Core words it in the user's language (`description`).
package struct InputError: Error, Hashable, Sendable {
    package var text: String
    package var expected: Expected
    package var accepted: Accepted

    package init(text: String, expected: Expected, accepted: Accepted) {
        self.text = text
        self.expected = expected
        self.accepted = accepted
    }

    /// What the text was read as.
    package enum Expected: Hashable, Sendable {
        case timeOfDay
        case duration
        case durationLongerThanZero
        /// A duration of at most this many days.
        case durationAtMost(days: Int)
        case weekdays
        case oneWayToRepeat
        case dayOfMonth
        case dayOfYear
        case numberOfDays
        /// A time of day, since these options (as typed: `--days mon`) repeat one.
        case timeOfDayToRepeat(options: String)
        case dateAndTime
        /// A time or a date, where the text (trimmed) reads as how long instead.
        case whenNotHowLong(String)
        /// A time or a date, where the text is a bare number that could be either.
        case whenNotBareNumber
        case timeOrDate
        case commandLine(CommandLineFault)
        /// `reveille-alert`'s arguments (only the agent writes them: not translated).
        case alertOptionOnce, alertOptionValue, alertAlarmID, alertStopLabel
    }

    /// What is wrong in a command line.
    package enum CommandLineFault: Hashable, Sendable {
        case singleQuoteNotClosed, doubleQuoteNotClosed, endsWithBackslash
    }

    /// The forms accepted instead.
    package enum Accepted: Hashable, Sendable {
        case times, dates, durations, timerLengths, weekdays, monthDays, yearDays, dayIntervals
        case repeatOptions
        /// `in LENGTH` or a timer of that length (the text as typed, trimmed).
        case offsetOrTimer(String)
        /// The hour written as a time (`7:00`, `7am`) or an offset (`in 7m`).
        case hourForms(hour: Int)
        case timeOrDayAndTime
        case commandLineQuoting
        case alertWindowArguments
    }
}
