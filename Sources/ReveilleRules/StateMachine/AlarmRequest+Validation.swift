import FoundationEssentials
import ReveilleModel

extension AlarmRequest {
    /// The latest fixed instant, still the year 9999 in every zone: 9999-12-31T23:59:59 at UTC+14.
    static let latestFixed = Date(timeIntervalSince1970: 253402250399)

    // The bounds live in `WireLimits`; these names stay for the code that words them.
    package static let maximumCountdown: TimeInterval = WireLimits.maximumCountdown
    package static let maximumTitleLength = WireLimits.titleCharacters
    package static let maximumTitleBytes = WireLimits.titleBytes
    package static let maximumButtonTextLength = WireLimits.buttonTextCharacters
    package static let maximumButtonTextBytes = WireLimits.buttonTextBytes
    package static let maximumIconNameBytes = WireLimits.iconNameBytes
    package static let maximumMetadataBytes = WireLimits.metadataBytes

    /// `400 days`, `90 seconds`, `-5 seconds`, `1.5 hours`, `86400.001 seconds`: a length as a person
    /// says it, never rounded. Any double is
    /// worded without converting it to an integer, so a refusal can never trap.
    package static func spoken(_ seconds: TimeInterval) -> String {
        guard seconds.isFinite else { return "\(seconds) seconds" }
        let magnitude = abs(seconds)
        let (unit, size): (String, Double) = magnitude >= 2 * 86_400 ? ("days", 86_400) : magnitude >= 2 * 3600 ? ("hours", 3600)
            : magnitude >= 120 ? ("minutes", 60) : ("seconds", 1)
        let value = seconds / size
        // Past 2^53 a double has no fraction, and `Int(value)` would trap past Int.max.
        guard abs(value) < 9_007_199_254_740_992 else { return "\(value) \(unit)" }
        if value == value.rounded() { return "\(Int(value)) \(unit)" }
        let tenths = (value * 10).rounded() / 10
        // A rounding that would hide why it was refused (86,400.001 s as "24.0 hours"): the
        // seconds exactly, as the double's shortest text.
        guard abs(tenths * size - seconds) <= magnitude * 1e-12 else { return "\(seconds) seconds" }
        return "\(tenths) \(unit)"
    }

    /// Checks the request against AlarmKit's rules; throws `invalidConfiguration`
    /// naming what is wrong and what is accepted.
    package func validate(now: Date, timeZone: any TimeZoneRules) throws(AlarmError) {
        func invalid(_ text: String) -> AlarmError { .invalidConfiguration(text) }
        for (name, value) in [("preAlert", countdownDuration?.preAlert), ("postAlert", countdownDuration?.postAlert)] {
            guard let value else { continue }
            guard value.isFinite, value > 0, value <= Self.maximumCountdown else {
                let what = name == "preAlert" ? "the countdown before it rings (preAlert)" : "the snooze or repeat length (postAlert)"
                throw invalid("\(what) is \(Self.spoken(value)); accepted: more than 0 seconds and at most 366 days")
            }
        }
        switch schedule {
        case nil:
            guard countdownDuration?.preAlert != nil else {
                throw invalid("a timer (no schedule) needs countdownDuration.preAlert, the time until it alerts")
            }
        case .fixed(let date):
            guard date > now else {
                throw invalid("the fixed instant \(ISO8601Local.string(from: date, in: timeZone)) is not in the future")
            }
            // Within the years 1970–9999 in every zone (UTC−12 to UTC+14): 9999-12-31T23:59Z
            // is in the year 10000 east of Greenwich, which no date text shows right.
            guard date <= Self.latestFixed else {
                throw invalid("the fixed instant \(ISO8601Local.utcString(from: date)) is past 9999-12-31T09:59:59Z; accepted: up to that, still the year 9999 in every time zone")
            }
        case .relative(let relative):
            guard (0...23).contains(relative.time.hour), (0...59).contains(relative.time.minute) else {
                throw invalid("time \(relative.time.hour):\(relative.time.minute) is not a time of day; accepted: hour 0–23, minute 0–59")
            }
            if case .weekly(let days) = relative.repeats {
                guard !days.isEmpty else {
                    throw invalid("a weekly recurrence needs at least one weekday; use .never for a one-time alarm")
                }
                guard days.count <= WireLimits.weekdays, Set(days).count == days.count else {
                    throw invalid("a weekly recurrence lists \(days.count) weekdays with repeats; accepted: each weekday at most once (at most 7)")
                }
            }
            if let problem = relative.repeats.outOfRange { throw invalid(problem) }
        }
        try ring.validate()
        if case .named(let name) = sound, name.utf8.count > WireLimits.soundNameBytes {
            throw invalid("the sound name is \(name.utf8.count) bytes long; at most \(WireLimits.soundNameBytes) are accepted")
        }
        for (name, intent) in [("stopIntent", stopIntent), ("secondaryIntent", secondaryIntent)] {
            guard case .run(let arguments)? = intent else { continue }
            let bytes = arguments.reduce(0) { $0 + $1.utf8.count }
            guard arguments.count <= WireLimits.runArguments, bytes <= WireLimits.runBytes else {
                throw invalid("\(name) runs \(arguments.count) arguments of \(bytes) bytes; accepted: at most \(WireLimits.runArguments) arguments and \(WireLimits.runBytes) bytes")
            }
        }
        try stopIntent?.validate()
        try secondaryIntent?.validate()
        let alert = presentation.alert
        // A .custom button without an intent is AlarmKit's too: pressing it changes nothing,
        // and a running app hears of it (ActionInvoked).
        for (name, title) in [("title", alert.title), ("countdown title", presentation.countdown?.title),
                              ("paused title", presentation.paused?.title)] as [(String, LocalizedStringResource?)] {
            guard let title else { continue }
            try Self.check(name, title.defaultValue, characters: Self.maximumTitleLength, bytes: Self.maximumTitleBytes)
        }
        for (name, button) in [("stopButton", alert.stopButton), ("secondaryButton", alert.secondaryButton),
                               ("pauseButton", presentation.countdown?.pauseButton), ("resumeButton", presentation.paused?.resumeButton)] {
            guard let button else { continue }
            try Self.check("\(name).text", button.text.defaultValue, characters: Self.maximumButtonTextLength, bytes: Self.maximumButtonTextBytes)
            try Self.check("\(name).systemImageName", button.systemImageName, characters: Self.maximumIconNameBytes,
                           bytes: Self.maximumIconNameBytes)
        }
        for component in [tintColor.red, tintColor.green, tintColor.blue] where !(component.isFinite && (0...1).contains(component)) {
            throw invalid("tintColor has a component \(component); accepted: red, green and blue each from 0 to 1")
        }
        if let metadata, metadata.utf8.count > Self.maximumMetadataBytes {
            throw invalid("metadata is \(metadata.utf8.count) bytes; at most \(Self.maximumMetadataBytes) are accepted")
        }
        if alert.secondaryButton != nil, alert.secondaryButtonBehavior == nil {
            throw invalid("a secondary button needs a secondaryButtonBehavior: .countdown (snooze/repeat) or .custom")
        }
        if alert.secondaryButtonBehavior == .countdown, countdownDuration?.postAlertOrPreAlert == nil {
            throw invalid("secondaryButtonBehavior .countdown needs countdownDuration.postAlert, the snooze/repeat length (or preAlert, which stands in for it as in AlarmKit)")
        }
        if let metadata, !JSONText.isValid(metadata) {
            throw invalid("metadata is not valid JSON text")
        }
    }

    private static func check(_ name: String, _ text: String, characters: Int, bytes: Int) throws(AlarmError) {
        guard text.count <= characters else {
            throw .invalidConfiguration("the \(name) has \(text.count) characters; at most \(characters) are accepted")
        }
        guard text.utf8.count <= bytes else {
            throw .invalidConfiguration("the \(name) is \(text.utf8.count) bytes long in UTF-8; at most \(bytes) are accepted")
        }
    }
}
