import FoundationEssentials
import ReveilleModel
import ReveilleRules
import ReveilleWords

/// Every notification the agent shows, rendered in one place: an alarm's alert, live
/// countdown (AlarmKit's `AlarmPresentation.Countdown`) or paused countdown; the notice of a
/// missed alarm or of a problem; the prompt that asks whether an app may schedule alarms.
/// App text is made displayable here (`displayable`); `NotificationClient` then escapes markup
/// for a server that reads it (its profile says so), once, for every notification.
package struct NotificationContent: Equatable {
    package var kind: Kind
    package var summary: String
    package var body: String
    package var urgency: Urgency
    /// Buttons: label and key; what an alarm's button does is `AlarmEngine`'s rule.
    package var buttons: [Button]
    /// Progress 0–100 of a countdown, for the `value` hint.
    package var progress: Int?

    package enum Kind: Equatable { case alert, countdown, paused, notice, authorizationPrompt, upcoming }

    /// The protocol's urgency levels (the `urgency` hint).
    package enum Urgency: UInt8 { case low = 0, normal = 1, critical = 2 }

    package struct Button: Equatable {
        package var label: String
        package var key: Key

        /// Which of the alarm's buttons it is; `nil` on a notice or the prompt.
        package var role: AlarmButtonRole? {
            switch key {
            case .alarm(let role): role
            case .longerSnooze: .secondary
            case .dismiss, .allow, .deny, .skipUpcoming: nil
            }
        }
        /// How long it snoozes, for the alert's longer snooze; `nil`: the alarm's own length.
        package var snoozeLength: TimeInterval? { if case .longerSnooze(let length) = key { length } else { nil } }
    }

    /// A button's action key, unique within a notification whatever its label or icon.
    package enum Key: Equatable {
        case alarm(AlarmButtonRole)
        /// The alert's third button: the second button's snooze, for this many seconds.
        case longerSnooze(TimeInterval)
        /// A notice's one button ("default": clicking the notice itself does the same).
        case dismiss
        case allow, deny
        /// The upcoming-alarm notice's button: skip the occurrence it tells of.
        case skipUpcoming

        package var actionKey: String {
            switch self {
            case .alarm(let role): role.rawValue
            case .longerSnooze(let length): "\(AlarmButtonRole.secondary.rawValue):\(Int(length))"
            case .dismiss: "default"
            case .allow: "allow"
            case .deny: "deny"
            case .skipUpcoming: "skip"
            }
        }
    }

    /// The app's icon where it is installed, else a themed alarm clock: a server draws a broken
    /// image for an icon name it cannot find (GNOME Shell does).
    package static let icon = NotificationIcon.name(appIconInstalled: NotificationIcon.isInstalled(NotificationIcon.appIcon))
    package static let desktopEntry = "io.github.reveille.Reveille"
    /// The sound theme's sound the server is asked to play when Reveille plays none (and the
    /// sounder's last resort).
    package static let themeSound = "alarm-clock-elapsed"

    package static let cancelButton = AlarmButton(text: N_("Cancel"), textColor: .white, systemImageName: "window-close")

    /// The content for `record` at `now`, or `nil` when its state shows nothing
    /// (scheduled, or a countdown without a countdown presentation). `buttonsAnswer`: the
    /// server shows buttons a click answers (`NotificationReach.answerable`), so the body needs
    /// no terminal commands, and a snoozing alert offers a third button, a longer snooze.
    package init?(_ record: AlarmRecord, now: Date, timeZone: any TimeZoneRules, buttonsAnswer: Bool = false) {
        let short = record.id.uuidString.lowercased().prefix(8)
        let presentation = record.presentation
        var lines: [String]
        // How to answer from a terminal, wherever buttons may be unreachable (a server without
        // actions, dunst without dmenu, Do Not Disturb); the id keeps two alarms' texts apart.
        var help: [String]
        switch record.state {
        case .scheduled:
            return nil
        case .alerting:
            kind = .alert
            let alert = presentation.alert
            summary = alert.title.defaultValue.isEmpty ? L("Alarm") : Self.displayable(alert.title.defaultValue)
            let at = record.alertingSince.map { Self.clock($0, timeZone) } ?? Self.clock(now, timeZone)
            lines = [record.schedule == nil ? L("Timer · rang at %@", at) : L("Alarm · rang at %@", at)]
            urgency = .critical
            buttons = Self.buttons(record)
            help = [L("To stop: reveille stop %@", String(short))]
            if alert.secondaryButton != nil, AlarmEngine.action(for: .secondary, of: record) == .countdown {
                help.append(L("To snooze: reveille snooze %@", String(short)))
            }
            if buttonsAnswer, let length = Self.longerSnooze(for: record) {
                buttons.append(Button(label: Self.snoozeLabel(length), key: .longerSnooze(length)))
            }
            progress = nil
        case .countdown:
            // Resting between unanswered rings, it is the alert that comes back: shown by its title,
            // whether or not the alarm has a countdown presentation.
            guard let title = record.unanswered == nil ? presentation.countdown?.title : presentation.alert.title,
                  let fireDate = record.fireDate else { return nil }
            kind = .countdown
            summary = Self.displayable(title.defaultValue)
            let left = max(0, fireDate.timeIntervalSince(now))
            lines = [record.unanswered.map {
                L("Unanswered · rings again at %@ (%@ of %@)", Self.clock(fireDate, timeZone), String($0.nextRing), String($0.rings))
            } ?? L("Rings at %@ · %@ left", Self.clock(fireDate, timeZone), Self.timeLeft(left))]
            urgency = .normal
            buttons = Self.buttons(record)
            help = [L("To pause: reveille pause %@", String(short))]
            let length = record.countdownLength ?? left
            progress = length > 0 ? Int(((length - left) / length * 100).rounded()).clamped(to: 0...100) : 100
        case .paused:
            guard let paused = presentation.paused else { return nil }
            kind = .paused
            summary = Self.displayable(paused.title.defaultValue)
            lines = [L("Paused · %@ left", Self.timeLeft(record.pausedTimeRemaining ?? 0))]
            urgency = .normal
            buttons = Self.buttons(record)
            help = [L("To resume: reveille resume %@", String(short))]
            let length = record.countdownLength ?? 0
            progress = length > 0 ? Int(((length - (record.pausedTimeRemaining ?? 0)) / length * 100).rounded()).clamped(to: 0...100) : nil
        }
        body = (lines + (buttonsAnswer ? [] : help)).joined(separator: "\n")
    }

    /// The quiet notice ahead of an alarm's time (`UpcomingNoticePolicy`): no sound, low
    /// urgency, one button that skips the occurrence.
    package init(upcoming summary: String, body: String, skipLabel: String) {
        self.init(kind: .upcoming, summary: summary, body: body, buttons: [Button(label: skipLabel, key: .skipUpcoming)])
        urgency = .low
    }

    private init(kind: Kind, summary: String, body: String, buttons: [Button]) {
        (self.kind, self.summary, self.body, self.buttons, urgency, progress) = (kind, summary, body, buttons, .normal, nil)
    }

    /// A notice, with one Dismiss button, of what the user should know.
    package static func notice(summary: String, body: String) -> NotificationContent {
        NotificationContent(kind: .notice, summary: summary, body: body, buttons: [Button(label: L("Dismiss"), key: .dismiss)])
    }

    /// The notice that an occurrence due at `due` did not ring, or rang unanswered.
    package static func missed(_ record: AlarmRecord, due: Date, reason: MissReason, timeZone: any TimeZoneRules) -> NotificationContent {
        let when = String(ISO8601Local.string(from: due, in: timeZone).prefix(10)) + " " + clock(due, timeZone)
        let text = switch reason {
        case .late: L("It was due at %@ while Reveille could not ring it.", when)
        // It rang to its ring limit: that long, in words (a 5 s limit once read "for 1 minute").
        case .unanswered: L("It rang at %@ for %@ and stopped without an answer.", when,
                            spokenLength(record.ring.ringLimit ?? RingOptions.defaultRingLimit))
        }
        return notice(summary: L("Missed: %@", displayable(record.title)), body: text)
    }

    /// `5 seconds`, `10 minutes`, `1 hour 30 minutes`: a length in words, to the second, in the
    /// user's language.
    package static func spokenLength(_ seconds: TimeInterval) -> String {
        // A ring limit is at most 366 days; a NaN or a giant number must not trap.
        let total = seconds.isFinite ? Int(min(max(seconds, 0), 1e9).rounded()) : 0
        let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
        var parts: [String] = []
        if hours > 0 { parts.append(Ln("%@ hour", "%@ hours", hours, String(hours))) }
        if minutes > 0 { parts.append(Ln("%@ minute", "%@ minutes", minutes, String(minutes))) }
        if rest > 0 || parts.isEmpty { parts.append(Ln("%@ second", "%@ seconds", rest, String(rest))) }
        return parts.joined(separator: " ")
    }

    /// The question whether `appID` may schedule alarms, with the app's reason and, as in every
    /// alert, how to answer from a terminal: buttons may be unreachable (a server without
    /// actions, dunst without dmenu).
    package static func authorizationPrompt(appID: String, usageDescription: String) -> NotificationContent {
        let app = displayable(appID, limit: 100)
        return NotificationContent(kind: .authorizationPrompt, summary: L("%@ wants to schedule alarms", app),
                            body: displayable(usageDescription) + "\n" + L("To answer: reveille auth allow %@ (or deny)", app),
                            buttons: [Button(label: L("Allow"), key: .allow), Button(label: L("Don't Allow"), key: .deny)])
    }

    /// What the server is asked to show. `soundingItself`: Reveille plays the alarm's sound, so
    /// the server must not; otherwise the server may play the theme's alarm sound.
    package func request(soundingItself: Bool = true) -> NotificationRequest {
        var hints: [String: NotificationHint] = ["urgency": .byte(urgency.rawValue), "desktop-entry": .string(Self.desktopEntry)]
        if kind != .notice && kind != .upcoming { hints["resident"] = .bool(true) }
        if let progress { hints["value"] = .int32(Int32(progress)) }
        switch kind {
        case .alert:
            hints["category"] = .string("x-reveille.alarm")
            if soundingItself { hints["suppress-sound"] = .bool(true) } else { hints["sound-name"] = .string(Self.themeSound) }
        case .countdown, .paused:
            hints["category"] = .string("x-reveille.countdown")
            hints["suppress-sound"] = .bool(true)
        case .upcoming:
            hints["category"] = .string("x-reveille.upcoming")
            hints["suppress-sound"] = .bool(true)
        case .notice, .authorizationPrompt:
            break
        }
        // Labels, never `action-icons`: servers that honour it draw an icon instead of the label.
        return NotificationRequest(summary: summary, body: body, icon: Self.icon,
                                          actions: buttons.map { (key: $0.key.actionKey, label: $0.label) }, hints: hints)
    }

    /// The longer snooze an alert offers beside its own: 20 minutes, or an hour when the
    /// alarm's own snooze is 20 minutes or more; `nil` for an alarm whose second button does not
    /// snooze (Repeat, a custom button) or whose snooze is an hour or more already.
    package static func longerSnooze(for record: AlarmRecord) -> TimeInterval? {
        // A longer press of the second button: only beside it.
        guard record.shownButtons.contains(.secondary), AlarmEngine.action(for: .secondary, of: record) == .countdown,
              record.presentation.alert.secondaryButton?.text.defaultValue != AlarmButton.repeatButton.text.defaultValue,
              let own = record.countdownDuration?.postAlertOrPreAlert else { return nil }
        return [20 * 60, 60 * 60].first { $0 > own }
    }

    /// `Snooze 20 min`, `Snooze 1 h`.
    package static func snoozeLabel(_ length: TimeInterval) -> String {
        let minutes = Int(length / 60)
        return minutes % 60 == 0 ? L("Snooze %@ h", String(minutes / 60)) : L("Snooze %@ min", String(minutes))
    }

    /// A button's text made safe and short; `fallback` when nothing printable is left.
    /// The buttons `record` shows in its state (`shownButtons`, the rule a press is held to), labelled.
    private static func buttons(_ record: AlarmRecord) -> [Button] {
        let presentation = record.presentation
        return record.shownButtons.map { role in
            let label = switch role {
            case .stop: label(presentation.alert.stopButton.text.defaultValue, or: L("Stop"))
            case .secondary: label(presentation.alert.secondaryButton?.text.defaultValue ?? "", or: L("More"))
            case .pause: label(presentation.countdown?.pauseButton?.text.defaultValue ?? "", or: L("Pause"))
            case .resume: label(presentation.paused?.resumeButton.text.defaultValue ?? "", or: L("Resume"))
            case .cancel: Localization.text(cancelButton.text.defaultValue)
            }
            return Button(label: label, key: .alarm(role))
        }
    }

    package static func label(_ text: String, or fallback: String) -> String {
        let shown = displayable(text, limit: 40)
        // The presets' English labels ("Stop", "Snooze") are msgids: shown in the user's language.
        return shown.isEmpty ? fallback : Localization.text(shown)
    }

    /// Text from an app, made safe to show: control and format characters (a bell, an escape
    /// sequence, a NUL, a direction override) become spaces, runs of white space one space, and
    /// it is cut to `limit` characters of at most 8 Unicode scalars each (so a letter carrying
    /// thousands of combining marks cannot make it long).
    package static func displayable(_ text: String, limit: Int = 200) -> String {
        // Printable ASCII, short, single-spaced and trimmed is shown as it is: the common title,
        // rendered on the firing path before the alert is sent (the general path took 28 µs).
        if text.utf8.count <= limit, text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }),
           text.utf8.first != 0x20, text.utf8.last != 0x20, !text.contains("  ") {
            return text
        }
        let cleaned = String(text.unicodeScalars.prefix(limit * 16).map { scalar -> Character in
            switch scalar.properties.generalCategory {
            case .control, .format: " "
            default: Character(scalar)
            }
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
    package static var clockStyle: ClockStyle { Localization.clockStyle }

    package static func clock(_ date: Date, _ timeZone: any TimeZoneRules) -> String {
        let local = ISO8601Local.string(from: date, in: timeZone)
        return clockStyle.format(hour: Int(local.dropFirst(11).prefix(2)) ?? 0, minute: Int(local.dropFirst(14).prefix(2)) ?? 0)
    }

    /// `5 min`, `1 h 20 min` (to the nearest minute), then in the last 50 seconds `50 s`, `40 s`
    /// ... `10 s` (rounded up to ten seconds). Never more than half a minute off, and it only
    /// ever counts down.
    package static func timeLeft(_ seconds: TimeInterval) -> String {
        if seconds > 50 {
            let minutes = max(1, Int((seconds / 60).rounded()))
            return minutes >= 60 ? L("%@ h %@ min", String(minutes / 60), String(minutes % 60)) : L("%@ min", String(minutes))
        }
        return L("%@ s", String(max(1, Int((seconds / 10).rounded(.up))) * 10))
    }

    /// How long after `now` a countdown's text next changes: just past the instant its time
    /// left crosses the next step of `timeLeft` (the half minutes above 90 s, then 50, 40 ... 10 s).
    package static func nextRefresh(_ record: AlarmRecord, now: Date) -> TimeInterval? {
        guard record.state == .countdown, let fireDate = record.fireDate else { return nil }
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
