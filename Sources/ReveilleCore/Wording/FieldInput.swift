import FoundationEssentials
import Glibc
import ReveilleModel
import ReveilleRules
import ReveilleWords

/// A value typed into a named field (a CLI option, a dialog's field) that is refused: the
/// field's name, what was typed and what is accepted, in the user's words.
package struct FieldRefusal: Error, Equatable, CustomStringConvertible {
    package var description: String
    /// The field refused (as named in `description`), for a dialog to take the person to it.
    package var field: String

    package init(_ description: String, field: String) {
        self.description = description
        self.field = field
    }
}

/// The values people type for an alarm's lengths and loudness, read and bounded as the agent
/// bounds them, so that the CLI and the app refuse a wrong one themselves, naming the field
/// (`--snooze`, `Snooze`): the agent's own refusal names the request's fields (ringLimit,
/// fadeIn), which are an app's words, not a person's.
package enum FieldInput {
    /// A duration within `range`, refused naming `field`.
    package static func duration(_ text: String, field: String, within range: DurationRange) throws(FieldRefusal) -> TimeInterval {
        let seconds: TimeInterval
        do { seconds = try InputParser.duration(text) } catch { throw FieldRefusal("\(field): \(error)", field: field) }
        try range.check(seconds, text: text, field: field)
        return seconds
    }

    /// A timer's length: a duration or a bare number of seconds, within a countdown's bounds.
    package static func timerLength(_ text: String, field: String) throws(FieldRefusal) -> TimeInterval {
        let seconds: TimeInterval
        do { seconds = try InputParser.timerLength(text) } catch { throw FieldRefusal("\(field): \(error)", field: field) }
        try DurationRange.countdown.check(seconds, text: text, field: field)
        return seconds
    }

    /// `80%` or `0.8` on the desktop's volume slider → the stream's linear volume (0.512), so that
    /// the sound settings show the alarm at 80%. A bare number over 1 is refused: `2` could mean
    /// 2% or 200%.
    package static func volume(_ text: String, field: String) throws(FieldRefusal) -> Double {
        let percent = text.hasSuffix("%")
        guard let value = Double(percent ? String(text.dropLast()) : text), value.isFinite, value >= 0 else {
            throw FieldRefusal(L("%@: could not read '%@'; accepted: a percentage (10%% to 100%%, like 80%%) or a fraction (0.1 to 1, like 0.8)", field, text), field: field)
        }
        if !percent, value > 1, value <= 100 {
            throw FieldRefusal(L("%@: '%@' is neither a fraction (0.1 to 1) nor a percentage; write %@%% or %@", field, text, text, String(value / 100)), field: field)
        }
        let fraction = percent ? value / 100 : value
        guard fraction <= 1 else { throw FieldRefusal(L("%@: '%@' is over 100%%; accepted: 10%% to 100%%", field, text), field: field) }
        // An alarm is never silent: below 10% on the slider it could not be heard.
        guard VolumeScale.linear(slider: fraction) >= RingOptions.quietestVolume * (1 - 1e-9) else {
            throw FieldRefusal(L("%@: '%@' could not be heard; accepted: 10%% to 100%% (an alarm is never silent)", field, text), field: field)
        }
        return VolumeScale.linear(slider: fraction)
    }

    /// How an alarm rings again unanswered, as typed (`3x5m`, `off`; `InputParser.unansweredRepeat`),
    /// refused naming `field` and what is accepted.
    package static func unansweredRepeat(_ text: String, field: String) throws(FieldRefusal) -> UnansweredRepeat {
        guard let plan = InputParser.unansweredRepeat(text) else {
            throw FieldRefusal(L("%@: '%@' is not understood; accepted: off, or the rings in all and the rest between them, e.g. 3x5m (2 to 10 rings, 5s to 1h apart)",
                                 field, text), field: field)
        }
        return plan
    }

    /// Refuses a fade-in longer than the alarm rings (`ring.ringLimit`, else the default), naming
    /// both fields with what was typed (or the stored value, as it is typed).
    package static func checkFade(_ ring: RingOptions, fade: (field: String, text: String?),
                                  ringLimit: (field: String, text: String?)) throws(FieldRefusal) {
        let limit = ring.ringLimit ?? RingOptions.defaultRingLimit
        guard let fadeIn = ring.fadeIn, fadeIn > limit else { return }
        throw FieldRefusal(L("%@ %@ is longer than the alarm rings (%@ %@); the fade must end within it",
                             fade.field, fade.text ?? DurationRange.typed(fadeIn), ringLimit.field, ringLimit.text ?? DurationRange.typed(limit)),
                           field: fade.field)
    }
}

/// The desktop's volume sliders (GNOME, KDE, pavucontrol) show PulseAudio's cubic scale; the
/// agent takes a stream's linear volume (its amplitude). People speak the slider's scale.
package enum VolumeScale {
    /// The linear volume the slider shows at `slider` (0 to 1).
    package static func linear(slider: Double) -> Double { slider * slider * slider }

    /// Where the slider stands at linear volume `linear` (0 to 1).
    package static func slider(linear: Double) -> Double { cbrt(max(0, linear)) }
}

/// The lengths the agent accepts for what a duration field sets.
package struct DurationRange: Sendable {
    /// `nil`: anything longer than zero (which the parser requires of every duration).
    package var shortest: TimeInterval?
    package var longest: TimeInterval

    package init(shortest: TimeInterval?, longest: TimeInterval) {
        self.shortest = shortest
        self.longest = longest
    }

    /// A timer's length, a pre-alert, a repeat (`AlarmRequest.validate`).
    package static let countdown = DurationRange(shortest: nil, longest: WireLimits.maximumCountdown)
    /// A snooze, configured or chosen at the moment (`AlarmRecord.checkSnoozeLength`).
    package static let snooze = DurationRange(shortest: WireLimits.minimumSnooze, longest: WireLimits.maximumSnooze)
    package static let ringLimit = DurationRange(shortest: WireLimits.shortestRingLimit, longest: WireLimits.longestRingLimit)

    package func check(_ seconds: TimeInterval, text: String, field: String) throws(FieldRefusal) {
        let accepted = shortest.map { L("%@ to %@", Self.typed($0), Self.typed(longest)) } ?? L("up to %@", Self.typed(longest))
        if seconds > longest {
            throw FieldRefusal(L("%@: '%@' is longer than %@; accepted: %@", field, text, Self.typed(longest), accepted), field: field)
        }
        if let shortest, seconds < shortest {
            throw FieldRefusal(L("%@: '%@' is shorter than %@; accepted: %@", field, text, Self.typed(shortest), accepted), field: field)
        }
    }

    /// A length as it is typed: `366d`, `24h`, `90m`, `5s` (`InputParser.typed`).
    package static func typed(_ seconds: TimeInterval) -> String { InputParser.typed(seconds) }
}
