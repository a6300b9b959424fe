import ArgumentParser
import FoundationEssentials
import Glibc
import ReveilleCalendar
import ReveilleCore
import ReveilleKit
import ReveilleRules
import ReveilleTimeZone
import ReveilleWords

/// `--json`, for every command that prints alarms.
struct OutputOptions: ParsableArguments {
    @Flag(help: ArgumentHelp(L("Print JSON objects (id, title, state, kind, fireDate, timeRemaining, time, repeats, snooze, preAlert, app).")))
    var json = false

    func show(_ record: AlarmRecord, _ done: Done) throws {
        let summary = AlarmSummary(record)
        if json { try Output.json(summary) } else { Output.line(summary.sentence(done)) }
        if let warning = AgentZone.warning(for: record, in: GLibTimeZone.local) { Output.note(warning) }
    }
}

/// How a time of day repeats, shared by `add`, `edit` and `next`: at most one of these.
struct RepeatOptions: ParsableArguments {
    @Option(help: ArgumentHelp(L("Repeat on these weekdays: %@.", InputParser.acceptedWeekdays)),
            completion: .list(AlarmCompletion.weekdays))
    var days: String?

    @Option(help: ArgumentHelp(L("Repeat every month on this day: %@.", InputParser.acceptedMonthDays), valueName: "day"))
    var monthly: String?

    @Option(help: ArgumentHelp(L("Repeat every year on this day: %@.", InputParser.acceptedYearDays), valueName: "month-day"))
    var yearly: String?

    @Option(help: ArgumentHelp(L("Repeat every so many days, from the time's next occurrence: %@.", InputParser.acceptedDayIntervals), valueName: "days"))
    var every: String?

    var repeats: InputParser.Repeats { InputParser.Repeats(days: days, monthly: monthly, yearly: yearly, every: every) }

    /// When `text` rings, repeating as these options say; a refusal of an option's value names it
    /// (`--days: could not read 'funday'`).
    func schedule(_ text: String, now: Date, timeZone: any TimeZoneRules) throws -> Alarm.Schedule {
        do {
            return try InputParser.schedule(text, repeats: repeats, now: now, timeZone: timeZone)
        } catch let error as InputError {
            let option: String? = switch error.accepted {
            case .weekdays: "--days"
            case .monthDays: "--monthly"
            case .yearDays: "--yearly"
            case .dayIntervals: "--every"
            default: nil
            }
            guard let option else { throw error }
            throw ValidationError("\(option): \(error)")
        }
    }
}

/// What the alert shows and how it snoozes, shared by `add` and `timer`.
struct AlertOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: ArgumentHelp(L("The notification's title.")))
    var title: String?

    // `.unconditional`: a value that starts with '-' (`--fade -5s`) is the option's, refused by its own rule.
    @Option(parsing: .unconditional, help: ArgumentHelp(L("How long Snooze waits before ringing again (%@). Default: the snooze setting (9m unless changed).", InputParser.acceptedDurations)))
    var snooze: String?

    @Option(help: ArgumentHelp(
        L("The alert's second button: snooze (default), repeat, none, open:DESKTOP_ID, or run:'COMMAND'."),
        discussion: L("open:org.gnome.Calendar opens that app with the alarm's id. run:'/usr/bin/notify-send \"Tea ready\"' runs the command without a shell: spaces separate arguments, 'single' or \"double\" quotes group them, a backslash keeps the next character; the program needs an absolute path. Both get REVEILLE_ALARM_ID and REVEILLE_ACTION in their environment. As in AlarmKit, the alarm rings on after an open: or run: button; Stop ends it (or the command can: reveille stop \"$REVEILLE_ALARM_ID\").")))
    var secondary: String?

    @Option(help: ArgumentHelp(L("A sound name (see `reveille sounds`) or a path to a sound file. Default: the sound setting (Reveille's alarm unless changed).")),
            completion: .custom { _, _, prefix in AlarmCompletion.sounds(prefix) })
    var sound: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(L("The alarm's loudness on the desktop's volume slider: a percentage (80%%) or a fraction (0.8).")))
    var volume: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(L("Rise from silence to full volume over this long (%@).", InputParser.acceptedDurations)))
    var fade: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(L("Stop ringing unanswered after this long and report the alarm missed. Default: the ringLimit setting (10m unless changed).")))
    var ringLimit: String?

    @Option(parsing: .unconditional, help: ArgumentHelp(L("Unanswered, rest and ring again: the rings in all and the rest between them, e.g. 3x5m (2 to 10 rings, 5s to 1h apart), or off. Default: the repeatUnanswered setting (off unless set).")))
    var repeatUnanswered: String?

    @Flag(help: ArgumentHelp(L("Do not wake the computer from suspend for this alarm (see `reveille status`).")))
    var noWake = false

    /// The request for `schedule`, with a Stop button and a Snooze (or Repeat) button.
    func request(schedule: Alarm.Schedule?, preAlert: TimeInterval?, defaultTitle: String,
                 repeatAfter: TimeInterval? = nil) throws -> AlarmRequest {
        try refuseContradictions(repeating: repeatAfter != nil)
        // Without --snooze, the length is the agent's snooze setting, given when the alarm is made.
        let postAlert = try repeatAfter ?? snooze.map { try Parse.duration($0, option: "--snooze", within: .snooze) }
        let (button, behavior, intent) = try Parse.secondary(repeatAfter == nil ? secondary ?? "snooze" : "repeat")
        let ring = try ringOptions(RingOptions(wakesMachine: noWake ? false : nil), new: true)
        return AlarmRequest(schedule: schedule, countdownDuration: .init(preAlert: preAlert, postAlert: postAlert),
                            presentation: .reveille(title: title ?? defaultTitle, secondaryButton: button, behavior: behavior),
                            sound: Parse.sound(sound), ring: ring, secondaryIntent: intent)
    }

    /// Options that say opposite things are refused naming both, rather than one silently
    /// winning (`timer 10m --repeat 5m --snooze 3m` had dropped the snooze).
    func refuseContradictions(repeating: Bool) throws {
        if repeating, let secondary {
            throw ValidationError(L("--repeat makes the second button Repeat; leave out --secondary %@, or --repeat", secondary))
        }
        if repeating, let snooze {
            throw ValidationError(L("--repeat and --snooze %@ contradict each other: with --repeat the second button repeats and does not snooze; leave out one of them", snooze))
        }
        // With `--secondary repeat` (add has no --repeat) the length is how long Repeat waits.
        if let snooze, let secondary, secondary != "snooze", secondary != "repeat" {
            throw ValidationError(L("--snooze %@ and --secondary %@ contradict each other: the second button does not snooze; leave out one of them", snooze, secondary))
        }
    }

    /// `ring` with the volume, fade and ring limit these options give, each within the agent's bounds
    /// and refused in the options' words (the agent names its fields: ringLimit, fadeIn).
    /// `new`: a new alarm, whose ring limit, unless given, the agent makes its default or the
    /// fade's length, whichever is longer (the fade is not checked against the built-in 10m).
    func ringOptions(_ ring: RingOptions, new: Bool = false) throws -> RingOptions {
        var ring = ring
        if let volume { ring.volume = try Parse.percentage(volume) }
        if let ringLimit { ring.ringLimit = try Parse.duration(ringLimit, option: "--ring-limit", within: .ringLimit) }
        if let fade { ring.fadeIn = try Parse.duration(fade, option: "--fade", within: .countdown) }
        if let repeatUnanswered {
            ring.repeatUnanswered = try Parse.usage { () throws(FieldRefusal) in try FieldInput.unansweredRepeat(repeatUnanswered, field: "--repeat-unanswered") }
        }
        if !new || ringLimit != nil {
            try Parse.usage { () throws(FieldRefusal) in
                try FieldInput.checkFade(ring, fade: ("--fade", fade), ringLimit: ("--ring-limit", ringLimit))
            }
        }
        return ring
    }
}

extension AlertOptions {
    /// Changes in `request` only what these options give (`reveille edit`).
    func apply(to request: inout AlarmRequest, repeatAfter: TimeInterval?) throws {
        try refuseContradictions(repeating: repeatAfter != nil)
        if let postAlert = try repeatAfter ?? snooze.map({ try Parse.duration($0, option: "--snooze", within: .snooze) }) {
            request.countdownDuration = .init(preAlert: request.countdownDuration?.preAlert, postAlert: postAlert)
        }
        var alert = request.presentation.alert
        if let choice = repeatAfter != nil ? "repeat" : secondary {
            let (button, behavior, intent) = try Parse.secondary(choice)
            (alert.secondaryButton, alert.secondaryButtonBehavior, request.secondaryIntent) = (button, behavior, intent)
        }
        if title != nil || alert != request.presentation.alert {
            request.presentation = .reveille(title: title ?? alert.title.defaultValue, secondaryButton: alert.secondaryButton,
                                             behavior: alert.secondaryButtonBehavior)
        }
        if sound != nil { request.sound = Parse.sound(sound) }
        request.ring = try ringOptions(request.ring)
        if noWake { request.ring.wakesMachine = false }
    }
}

extension AlarmPresentation {
    /// What the CLI's alarms show: the title in every state, Stop, the second button, Pause, Resume.
    static func reveille(title: String, secondaryButton: AlarmButton?,
                         behavior: AlarmPresentation.Alert.SecondaryButtonBehavior?) -> AlarmPresentation {
        // The same as the alarms read from a calendar show, so an exported alarm comes back alike.
        .userAlarm(title: title, secondaryButton: secondaryButton, behavior: behavior)
    }
}

/// A value typed as several words (`add tomorrow 7:30`, `timer 1h 30m`): people do not quote.
enum Words {
    /// The words as one text; none is a usage error naming the argument.
    static func joined(_ words: [String], name: String) throws -> String {
        guard !words.isEmpty else { throw ValidationError(L("Missing expected argument '<%@>'", name)) }
        return words.joined(separator: " ")
    }
}

/// Option values read with `InputParser` and Core's `FieldInput` (the app's dialog reads its
/// fields with the same rules), errors naming the option.
enum Parse {
    /// A duration within `range` (the agent's bound for what it sets), refused naming `option`.
    static func duration(_ text: String, option: String, within range: DurationRange) throws -> TimeInterval {
        try usage { () throws(FieldRefusal) in try FieldInput.duration(text, field: option, within: range) }
    }

    /// A timer's length: a duration or a bare number of seconds, within a countdown's bounds.
    static func timerLength(_ text: String, option: String) throws -> TimeInterval {
        try usage { () throws(FieldRefusal) in try FieldInput.timerLength(text, field: option) }
    }

    /// A field's refusal as a usage error: the CLI shows the command's usage with it.
    static func usage<Value>(_ read: () throws(FieldRefusal) -> Value) throws -> Value {
        do { return try read() } catch { throw ValidationError(error.description) }
    }

    /// `--secondary`: the button, what it does, and its intent.
    static func secondary(_ text: String) throws -> (AlarmButton?, AlarmPresentation.Alert.SecondaryButtonBehavior?, AlarmIntent?) {
        switch text {
        case "snooze": return (.snoozeButton, .countdown, nil)
        case "repeat": return (.repeatButton, .countdown, nil)
        case "none": return (nil, nil, nil)
        default: break
        }
        let intent: AlarmIntent
        let button: AlarmButton
        if text.hasPrefix("open:") {
            intent = .openApp(desktopID: String(text.dropFirst(5)))
            button = .openAppButton
        } else if text.hasPrefix("run:") {
            intent = .run(arguments: try InputParser.arguments(String(text.dropFirst(4))))
            button = AlarmButton(text: N_("Run"), textColor: .white, systemImageName: "system-run")
        } else {
            throw ValidationError(L("--secondary: '%@' is not snooze, repeat, none, open:DESKTOP_ID or run:'COMMAND'", text))
        }
        do { try intent.validate() } catch { throw ValidationError("--secondary: \(error.reason)") }
        return (button, .custom, intent)
    }

    /// `80%` or `0.8` on the desktop's volume slider → the stream's linear volume (`FieldInput.volume`).
    static func percentage(_ text: String) throws -> Double {
        try usage { () throws(FieldRefusal) in try FieldInput.volume(text, field: "--volume") }
    }

    /// A sound option: a name, or a path made absolute (the agent may run in another folder).
    static func sound(_ text: String?) -> AlertConfiguration.AlertSound {
        guard let text, text != "default" else { return .default }
        guard text.contains("/") else { return .named(text) }
        return .named(URL(fileURLWithPath: text).standardizedFileURL.path)
    }
}
