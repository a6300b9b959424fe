import FoundationEssentials
import ReveilleCore

/// What one alarm's notification says in its current state: the alert, the live
/// countdown (AlarmKit's `AlarmPresentation.Countdown`) or the paused countdown.
struct NotificationContent: Equatable {
    var summary: String
    var body: String
    var urgency: DesktopNotification.Urgency
    /// Buttons: key, label, icon name, and the action they apply.
    var buttons: [Button]
    /// Progress 0–100 of a countdown, for the `value` hint.
    var progress: Int?

    struct Button: Equatable {
        var label: String
        var icon: String
        var action: AlarmAction
        /// Which of the alarm's buttons it is: `stop`, `secondary`, `pause`, `resume`, `cancel`.
        var role: String
    }

    static let cancelButton = AlarmButton(text: "Cancel", textColor: .white, systemImageName: "window-close")

    /// The content for `record` at `now`, or `nil` when its state shows nothing
    /// (scheduled, or a countdown without a countdown presentation).
    init?(_ record: AlarmRecord, now: Date, timeZone: any TimeZoneRules, hasActions: Bool) {
        let short = record.id.uuidString.lowercased().prefix(8)
        let presentation = record.presentation
        var lines: [String]
        var help: [String] = []
        switch record.alarm.state {
        case .scheduled:
            return nil
        case .alerting:
            let alert = presentation.alert
            summary = alert.title.isEmpty ? "Alarm" : Self.displayable(alert.title)
            let at = record.alertingSince.map { Self.clock($0, timeZone) } ?? Self.clock(now, timeZone)
            lines = ["\(record.alarm.schedule == nil ? "Timer" : "Alarm") · rang at \(at)"]
            urgency = .critical
            buttons = [Button(label: alert.stopButton.text, icon: alert.stopButton.systemImageName, action: .stop, role: "stop")]
            help = ["To stop: reveille stop \(short)"]
            if let secondary = alert.secondaryButton {
                let action: AlarmAction = alert.secondaryButtonBehavior == .countdown ? .countdown : .stop
                buttons.append(Button(label: secondary.text, icon: secondary.systemImageName, action: action, role: "secondary"))
                if action == .countdown { help.append("To snooze: reveille snooze \(short)") }
            }
            progress = nil
        case .countdown:
            guard let countdown = presentation.countdown, let fireDate = record.fireDate else { return nil }
            summary = Self.displayable(countdown.title)
            let left = max(0, fireDate.timeIntervalSince(now))
            lines = ["Rings at \(Self.clock(fireDate, timeZone)) · \(Self.timeLeft(left)) left"]
            urgency = .normal
            buttons = [Button(label: countdown.pauseButton.text, icon: countdown.pauseButton.systemImageName, action: .pause, role: "pause"),
                       Button(label: Self.cancelButton.text, icon: Self.cancelButton.systemImageName, action: .cancel, role: "cancel")]
            help = ["To pause: reveille pause \(short)"]
            let length = record.countdownLength ?? left
            progress = length > 0 ? Int(((length - left) / length * 100).rounded()).clamped(to: 0...100) : 100
        case .paused:
            guard let paused = presentation.paused else { return nil }
            summary = Self.displayable(paused.title)
            lines = ["Paused · \(Self.timeLeft(record.pausedTimeRemaining ?? 0)) left"]
            urgency = .normal
            buttons = [Button(label: paused.resumeButton.text, icon: paused.resumeButton.systemImageName, action: .resume, role: "resume"),
                       Button(label: Self.cancelButton.text, icon: Self.cancelButton.systemImageName, action: .cancel, role: "cancel")]
            help = ["To resume: reveille resume \(short)"]
            let length = record.countdownLength ?? 0
            progress = length > 0 ? Int(((length - (record.pausedTimeRemaining ?? 0)) / length * 100).rounded()).clamped(to: 0...100) : nil
        }
        if !hasActions { lines += help }
        body = lines.joined(separator: "\n")
    }

    /// Text from an app, made safe to show: control characters (a bell, an escape sequence,
    /// a NUL) become spaces, runs of white space one space, and it is cut to 200 characters.
    static func displayable(_ text: String) -> String {
        let cleaned = String(text.unicodeScalars.map { [.control, .format].contains($0.properties.generalCategory) ? " " : Character($0) })
        let collapsed = cleaned.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return collapsed.count > 200 ? String(collapsed.prefix(199)) + "…" : collapsed
    }

    /// `14:32` in `timeZone`.
    static func clock(_ date: Date, _ timeZone: any TimeZoneRules) -> String {
        String(ISO8601Local.string(from: date, in: timeZone).dropFirst(11).prefix(5))
    }

    /// `5 min`, `1 h 20 min`, or in the last minute `40 s` (to ten seconds).
    static func timeLeft(_ seconds: TimeInterval) -> String {
        if seconds > 60 {
            let minutes = Int((seconds / 60).rounded(.up))
            return minutes >= 60 ? "\(minutes / 60) h \(minutes % 60) min" : "\(minutes) min"
        }
        return "\(Int((seconds / 10).rounded(.up)) * 10) s"
    }

    /// When a countdown's text next changes: at each minute boundary, then every ten seconds
    /// in the last minute; a rhythm notification servers tolerate.
    static func nextRefresh(_ record: AlarmRecord, now: Date) -> TimeInterval? {
        guard record.alarm.state == .countdown, let fireDate = record.fireDate else { return nil }
        let left = fireDate.timeIntervalSince(now)
        guard left > 10 else { return nil }
        if left > 60 {
            let intoMinute = left.truncatingRemainder(dividingBy: 60)
            return intoMinute > 0.5 ? intoMinute : 60
        }
        let intoTen = left.truncatingRemainder(dividingBy: 10)
        return intoTen > 0.5 ? intoTen : 10
    }
}

private extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
