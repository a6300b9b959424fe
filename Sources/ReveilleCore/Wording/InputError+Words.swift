import FoundationEssentials
import ReveilleModel
import ReveilleRules
import ReveilleWords

extension InputError: CustomStringConvertible {
    /// The refusal in the user's words: the text, what it was read as, what is accepted.
    package var description: String {
        // Zero or below: what was typed was read; only its sign is wrong.
        if expected == .durationLongerThanZero { return InputParser.notPositive(text) }
        return L("could not read '%@' as %@; accepted: %@", text, expected.words, accepted.words)
    }
}

extension InputError.Expected {
    /// What the text was read as, in the user's words.
    package var words: String {
        switch self {
        case .timeOfDay: L("a time of day")
        case .duration: L("a duration")
        case .durationLongerThanZero: L("a duration longer than zero")
        case .durationAtMost(let days): L("a duration of at most %@ days (100 years)", String(days))
        case .weekdays: L("a list of weekdays")
        case .oneWayToRepeat: L("one way to repeat")
        case .dayOfMonth: L("a day of the month")
        case .dayOfYear: L("a day of the year")
        case .numberOfDays: L("a number of days")
        case .timeOfDayToRepeat(let options): L("a time of day, since %@ repeats a time of day", options)
        case .dateAndTime: L("a date and time")
        case .whenNotHowLong(let length): L("a time or a date (%@ is how long, not when)", length)
        case .whenNotBareNumber: L("a time or a date (a bare number could be either)")
        case .timeOrDate: L("a time or a date")
        case .commandLine(let fault): L("a command line (%@)", fault.words)
        case .alertOptionOnce: "an option of reveille-alert given once"
        case .alertOptionValue: "an option followed by its value"
        case .alertAlarmID: "the alarm's UUID (--alarm)"
        case .alertStopLabel: "a Stop label (--stop)"
        }
    }
}

extension InputError.CommandLineFault {
    package var words: String {
        switch self {
        case .singleQuoteNotClosed: L("a ' is not closed")
        case .doubleQuoteNotClosed: L("a \" is not closed")
        case .endsWithBackslash: L("it ends with a \\")
        }
    }
}

extension InputError.Accepted {
    /// The accepted forms, in the user's words (the forms themselves are typed in English).
    package var words: String {
        switch self {
        case .times: InputParser.acceptedTimes
        case .dates: InputParser.acceptedDates
        case .durations: InputParser.acceptedDurations
        case .timerLengths: InputParser.acceptedTimerLengths
        case .weekdays: InputParser.acceptedWeekdays
        case .monthDays: InputParser.acceptedMonthDays
        case .yearDays: InputParser.acceptedYearDays
        case .dayIntervals: InputParser.acceptedDayIntervals
        case .repeatOptions: L("one of --days, --monthly, --yearly or --every")
        case .offsetOrTimer(let length):
            L("'in %1$@' for an alarm %1$@ from now, or `reveille timer %1$@` for a timer", length)
        case .hourForms(let hour):
            L("%@, %@, or 'in %@m'", "\(hour):00", "\(hour % 12 == 0 ? 12 : hour % 12)\(hour < 12 ? "am" : "pm")", String(hour))
        case .timeOrDayAndTime:
            L("a time of day (%@) or a day and time (%@)", InputParser.acceptedTimes, InputParser.acceptedDates)
        case .commandLineQuoting:
            L("words separated by spaces; 'single' or \"double\" quotes; \\ before a character to keep it")
        case .alertWindowArguments: AlertWindowArguments.accepted
        }
    }
}

extension InputParser {
    /// A zero or negative length (`-5m`, `0s`), as typed.
    package static func notPositive(_ text: String) -> String {
        L("'%@': durations are positive: 5m, 90s", text)
    }

    // The forms are typed in English whatever the language; only the words around them are translated.
    package static var acceptedTimes: String { "07:30, 7:30, 7.30, 18h30, 0730, 7:30pm, 7pm, 19:30, noon, midnight" }
    package static var acceptedDates: String {
        "in 10m, +1h30m, in 1h30, tomorrow 7:30, tonight 22:00, fri 18:00, next mon 9:00, 2026-12-24 18:00, 12/24 18:00, 24.12. 18:00, dec 24 18:00, "
            + "19:30:15, 2026-12-24T18:00+01:00 " + L("(a day without a time: 09:00)")
    }
    package static var acceptedDurations: String { "90s, 10m, 1h30m, 1h30, 1.5h, 2d, 1:30:00 (h:mm:ss), 5:00 (m:ss)" }
    /// A timer's length also reads a bare number, as seconds, as `sleep` does.
    package static var acceptedTimerLengths: String { acceptedDurations + ", " + L("90 (seconds)") }
    package static var acceptedWeekdays: String {
        L("mon,wed,fri or mon-fri (mon tue wed thu fri sat sun, full names, or the short names `reveille list` shows), weekdays, weekends, daily")
    }
    package static var acceptedMonthDays: String { L("a day of the month, 1 to 31 (a month without that day rings on its last day)") }
    package static var acceptedYearDays: String { L("a month and day: 03-21, 3/21, 21.03., mar 21 (February 29 rings on the 28th in other years)") }
    package static var acceptedDayIntervals: String { L("a number of days from 1 to 366: 3d, 3 days, 2w") }

    /// A weekday's short name in the user's language: `mon`, `Mo`, `lun`.
    package static func shortName(_ day: Locale.Weekday) -> String {
        switch day {
        case .monday: L("mon")
        case .tuesday: L("tue")
        case .wednesday: L("wed")
        case .thursday: L("thu")
        case .friday: L("fri")
        case .saturday: L("sat")
        case .sunday: L("sun")
        @unknown default: ""
        }
    }

    /// The short names `reveille list` shows, which the parser reads back.
    package static var localWeekdayNames: WeekdayNames {
        Dictionary(uniqueKeysWithValues: week.map { ($0, shortName($0)) })
    }

    /// `weekdays(_:localNames:)` reading the user's language's short names too.
    package static func weekdays(_ text: String) throws -> [Locale.Weekday] {
        try weekdays(text, localNames: localWeekdayNames)
    }

    /// `schedule(_:repeats:localNames:now:timeZone:)` reading the user's language's short weekday names too.
    package static func schedule(_ text: String, repeats: Repeats, now: Date, timeZone: any TimeZoneRules) throws -> Alarm.Schedule {
        try schedule(text, repeats: repeats, localNames: localWeekdayNames, now: now, timeZone: timeZone)
    }

    /// A time of day repeating on `days` (or a date, when `days` is `nil`), as `schedule(_:repeats:now:timeZone:)`.
    package static func schedule(_ text: String, days: String? = nil, now: Date, timeZone: any TimeZoneRules) throws -> Alarm.Schedule {
        try schedule(text, repeats: Repeats(days: days), now: now, timeZone: timeZone)
    }
}
