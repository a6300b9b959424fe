import FoundationEssentials
import ReveilleCore

/// What one alarm's notification says in its current state: the alert, the live
/// countdown (AlarmKit's `AlarmPresentation.Countdown`) or the paused countdown.
struct NotificationContent: Equatable {
    var summary: String
    var body: String
    var urgency: Urgency
    /// Buttons: label and role; what a role does is `AlarmEngine`'s rule.
    var buttons: [Button]
    /// Progress 0–100 of a countdown, for the `value` hint.
    var progress: Int?

    /// The protocol's urgency levels (the `urgency` hint).
    enum Urgency: UInt8 { case low = 0, normal = 1, critical = 2 }

    struct Button: Equatable {
        var label: String
        /// Which of the alarm's buttons it is; its raw value is the action key, unique within a
        /// notification whatever the buttons' labels or icons.
        var role: AlarmButtonRole
    }

    static let cancelButton = AlarmButton(text: N_("Cancel"), textColor: .white, systemImageName: "window-close")

    /// The content for `record` at `now`, or `nil` when its state shows nothing
    /// (scheduled, or a countdown without a countdown presentation).
    init?(_ record: AlarmRecord, now: Date, timeZone: any TimeZoneRules) {
        let short = record.id.uuidString.lowercased().prefix(8)
        let presentation = record.presentation
        var lines: [String]
        // How to answer from a terminal, in every body: buttons may be unreachable (a server
        // without actions, dunst without dmenu), and the id keeps two alarms' texts apart.
        var help: [String]
        switch record.alarm.state {
        case .scheduled:
            return nil
        case .alerting:
            let alert = presentation.alert
            summary = alert.title.isEmpty ? L("Alarm") : Self.displayable(alert.title)
            let at = record.alertingSince.map { Self.clock($0, timeZone) } ?? Self.clock(now, timeZone)
            lines = [record.alarm.schedule == nil ? L("Timer · rang at %@", at) : L("Alarm · rang at %@", at)]
            urgency = .critical
            buttons = [Button(label: Self.label(alert.stopButton.text, or: L("Stop")), role: .stop)]
            help = [L("To stop: reveille stop %@", String(short))]
            if let secondary = alert.secondaryButton {
                buttons.append(Button(label: Self.label(secondary.text, or: L("More")), role: .secondary))
                if AlarmEngine.action(for: .secondary, of: record) == .countdown { help.append(L("To snooze: reveille snooze %@", String(short))) }
            }
            progress = nil
        case .countdown:
            guard let countdown = presentation.countdown, let fireDate = record.fireDate else { return nil }
            summary = Self.displayable(countdown.title)
            let left = max(0, fireDate.timeIntervalSince(now))
            lines = [L("Rings at %@ · %@ left", Self.clock(fireDate, timeZone), Self.timeLeft(left))]
            urgency = .normal
            buttons = (countdown.pauseButton.map { [Button(label: Self.label($0.text, or: L("Pause")), role: .pause)] } ?? [])
                + [Button(label: Localization.text(Self.cancelButton.text), role: .cancel)]
            help = [L("To pause: reveille pause %@", String(short))]
            let length = record.countdownLength ?? left
            progress = length > 0 ? Int(((length - left) / length * 100).rounded()).clamped(to: 0...100) : 100
        case .paused:
            guard let paused = presentation.paused else { return nil }
            summary = Self.displayable(paused.title)
            lines = [L("Paused · %@ left", Self.timeLeft(record.pausedTimeRemaining ?? 0))]
            urgency = .normal
            buttons = [Button(label: Self.label(paused.resumeButton.text, or: L("Resume")), role: .resume),
                       Button(label: Localization.text(Self.cancelButton.text), role: .cancel)]
            help = [L("To resume: reveille resume %@", String(short))]
            let length = record.countdownLength ?? 0
            progress = length > 0 ? Int(((length - (record.pausedTimeRemaining ?? 0)) / length * 100).rounded()).clamped(to: 0...100) : nil
        }
        body = (lines + help).joined(separator: "\n")
    }

    /// A button's text made safe and short; `fallback` when nothing printable is left.
    static func label(_ text: String, or fallback: String) -> String {
        let shown = displayable(text, limit: 40)
        // The presets' English labels ("Stop", "Snooze") are msgids: shown in the user's language.
        return shown.isEmpty ? fallback : Localization.text(shown)
    }

    /// Text from an app, made safe to show: control and format characters (a bell, an escape
    /// sequence, a NUL, a direction override) become spaces, runs of white space one space, and
    /// it is cut to `limit` characters of at most 8 Unicode scalars each (so a letter carrying
    /// thousands of combining marks cannot make it long).
    static func displayable(_ text: String, limit: Int = 200) -> String {
        let cleaned = String(text.unicodeScalars.prefix(limit * 16).map {
            [.control, .format].contains($0.properties.generalCategory) ? " " : Character($0)
        })
        let collapsed = cleaned.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        var shown = ""
        var count = 0
        for character in collapsed {
            guard count < limit else { break }
            shown.unicodeScalars.append(contentsOf: character.unicodeScalars.prefix(8))
            count += 1
        }
        return count == limit && collapsed.count > limit ? String(shown.dropLast()) + "…" : shown
    }

    /// `14:32` in `timeZone`.
    /// 19:30 or 7:30 PM, as the agent's `LC_TIME` says.
    static let clockStyle = ClockStyle.fromEnvironment()

    static func clock(_ date: Date, _ timeZone: any TimeZoneRules) -> String {
        let local = ISO8601Local.string(from: date, in: timeZone)
        return clockStyle.format(hour: Int(local.dropFirst(11).prefix(2)) ?? 0, minute: Int(local.dropFirst(14).prefix(2)) ?? 0)
    }

    /// `5 min`, `1 h 20 min` (to the nearest minute), then in the last 50 seconds `50 s`, `40 s`
    /// ... `10 s` (rounded up to ten seconds). Never more than half a minute off, and it only
    /// ever counts down.
    static func timeLeft(_ seconds: TimeInterval) -> String {
        if seconds > 50 {
            let minutes = max(1, Int((seconds / 60).rounded()))
            return minutes >= 60 ? L("%@ h %@ min", String(minutes / 60), String(minutes % 60)) : L("%@ min", String(minutes))
        }
        return L("%@ s", String(max(1, Int((seconds / 10).rounded(.up))) * 10))
    }

    /// How long after `now` a countdown's text next changes: just past the instant its time
    /// left crosses the next step of `timeLeft` (the half minutes above 90 s, then 50, 40 ... 10 s).
    static func nextRefresh(_ record: AlarmRecord, now: Date) -> TimeInterval? {
        guard record.alarm.state == .countdown, let fireDate = record.fireDate else { return nil }
        let left = fireDate.timeIntervalSince(now)
        guard left > 10 else { return nil }
        let step: TimeInterval
        if left > 90 {
            // The minute shown changes at each half minute: 90, 150, 210 ... seconds left.
            step = ((left - 30) / 60).rounded(.up) * 60 - 30
        } else if left > 50 {
            step = 50
        } else {
            step = ((left / 10).rounded(.up) - 1) * 10
        }
        // A little past the step, so the text is read after it changed, not just before.
        return left - step + 0.05
    }
}

private extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
