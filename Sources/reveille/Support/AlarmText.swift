import FoundationEssentials
import SystemPackage
import ReveilleTimeZone
import ReveilleKit

/// How the CLI shows an alarm: one table row, a detail block, or a JSON object.
struct AlarmSummary: Encodable, Equatable {
    var id: String
    var title: String
    var state: String
    var kind: String
    /// When it next alerts (scheduled, countdown) or alerted (alerting): local ISO 8601 with offset.
    var fireDate: String?
    /// Seconds left in a running or paused countdown.
    var timeRemaining: Double?
    /// The wall-clock time of a relative alarm, HH:MM.
    var time: String?
    /// Weekdays of a repeating alarm.
    var repeats: [String]?
    /// Seconds a snooze (or Repeat) waits; only when the second button snoozes or repeats.
    var snooze: Double?
    var preAlert: Double?
    var app: String
    /// Whether it rings at all (`reveille disable` turns it off).
    var enabled: Bool
    /// The alert's second button as `--secondary` writes it: snooze, repeat, none, open:ID, run:ARGV.
    var secondary: String
    /// `default`, a sound name, or a path.
    var sound: String
    /// 0 to 1; full volume when absent.
    var volume: Double?
    var fade: Double?
    /// Seconds it rings unanswered before it is reported missed.
    var ringLimit: Double
    /// Whether it wakes the computer from suspend.
    var wakes: Bool

    /// The instant `fireDate` writes, kept to avoid reading the text back.
    private var shownDate: Date?

    private enum CodingKeys: String, CodingKey {
        case id, title, state, kind, fireDate, timeRemaining, time, repeats, snooze, preAlert, app, enabled, secondary,
             sound, volume, fade, ringLimit, wakes
    }

    init(_ listing: AlarmListing, now: Date = Date(), timeZone: any TimeZoneRules = GLibTimeZone.local) {
        let alarm = listing.alarm
        id = listing.id.uuidString.lowercased()
        title = listing.title
        state = alarm.state.rawValue
        kind = alarm.schedule == nil ? "timer" : "alarm"
        shownDate = alarm.state == .alerting ? listing.alertingSince : listing.fireDate
        fireDate = shownDate.map { ISO8601Local.millisecondString(from: $0, in: timeZone) }
        switch alarm.state {
        case .paused: timeRemaining = listing.pausedTimeRemaining
        case .countdown: timeRemaining = listing.fireDate.map { (max(0, $0.timeIntervalSince(now)) * 10).rounded() / 10 }
        default: timeRemaining = nil
        }
        if case .relative(let relative) = alarm.schedule {
            time = "\(relative.time.hour.zeroPadded()):\(relative.time.minute.zeroPadded())"
            if case .weekly(let days) = relative.repeats { repeats = days.map(\.rawValue) }
        }
        preAlert = alarm.schedule == nil ? nil : alarm.countdownDuration?.preAlert
        app = listing.appID
        enabled = !listing.disabled
        switch (listing.secondaryButtonBehavior, listing.secondaryIntent) {
        case (.countdown?, _):
            secondary = listing.secondaryButton == AlarmButton.repeatButton.text ? "repeat" : "snooze"
            snooze = alarm.countdownDuration?.postAlertOrPreAlert
        case (.custom?, .openApp(let desktopID)?): secondary = "open:\(desktopID)"
        case (.custom?, .run(let arguments)?): secondary = "run:" + arguments.map(Self.quoted).joined(separator: " ")
        case (.custom?, nil): secondary = "custom"
        case (nil, _): secondary = "none"
        }
        sound = switch listing.sound {
        case .default: "default"
        case .named(let name): name
        }
        volume = listing.ring.volume
        fade = listing.ring.fadeIn
        ringLimit = listing.ring.ringLimit ?? RingOptions.defaultRingLimit
        wakes = listing.ring.wakesMachine != false
    }

    /// An argument as `run:` reads it back: quoted when it holds a space, quote or backslash.
    private static func quoted(_ argument: String) -> String {
        guard argument.isEmpty || argument.contains(where: { " '\"\\".contains($0) }) else { return argument }
        return "'" + argument.replacing("'", with: #"'\''"#) + "'"
    }

    init(_ record: AlarmRecord, now: Date = Date()) {
        self.init(AlarmListing(record), now: now)
    }

    var shortID: String { String(id.prefix(8)) }

    /// How this process shows times of day (`LC_TIME`: 19:30 or 7:30 PM).
    static let clock = ClockStyle.fromEnvironment()

    /// `2026-11-22 07:30` (or `2026-11-22 7:30 AM`) from local ISO 8601 text.
    static func dateAndTime(_ iso: String) -> String {
        let hour = Int(iso.dropFirst(11).prefix(2)) ?? 0, minute = Int(iso.dropFirst(14).prefix(2)) ?? 0
        return "\(iso.prefix(10)) \(clock.format(hour: hour, minute: minute))"
    }

    /// `in 11h 07m`, `in 42s`, `3m ago`.
    static func relative(_ seconds: Double) -> String {
        let total = Int(abs(seconds).rounded())
        let (days, hours, minutes, secs) = (total / 86_400, total / 3600 % 24, total / 60 % 60, total % 60)
        let text = days > 0 ? "\(days)d \(hours)h" : hours > 0 ? "\(hours)h \(minutes.zeroPadded())m"
            : minutes > 0 ? "\(minutes)m \(secs.zeroPadded())s" : "\(secs)s"
        return seconds >= 0 ? "in \(text)" : "\(text) ago"
    }

    /// What the NEXT column says: when it rings, or how it stands.
    func when(now: Date = Date()) -> String {
        guard enabled else { return "off" }
        switch state {
        case "paused": return "paused, \(Self.relative(timeRemaining ?? 0).dropFirst(3)) left"
        case "alerting": return "ringing"
        default:
            guard let fireDate, let shownDate else { return "-" }
            return "\(Self.dateAndTime(fireDate)) (\(Self.relative(shownDate.timeIntervalSince(now))))"
        }
    }

    var repeatText: String {
        guard let repeats else { return kind == "timer" ? "timer" : "once" }
        switch Set(repeats) {
        case ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]: return "daily"
        case ["mon", "tue", "wed", "thu", "fri"]: return "weekdays"
        case ["sat", "sun"]: return "weekends"
        default: return repeats.joined(separator: ",")
        }
    }

    /// `rings 2026-11-22 07:30 (in 11h 07m)`, `ringing`, `paused, 4m left`.
    var whenSentence: String {
        guard enabled else { return "off until `reveille enable \(shortID)`" }
        return switch state {
        case "alerting", "paused": when()
        default: "rings \(when())"
        }
    }

    /// For an alarm that ended: `, which would have rung 2026-11-22 07:30 (in 11h 07m)`.
    var endedSentence: String {
        switch state {
        case "scheduled", "countdown": ", which would have rung \(when())"
        case "paused": " (it was paused, \(when().dropFirst(8)))"
        default: ""
        }
    }

    /// `Scheduled alarm 3f2a9c1e "Wake up": rings 2026-11-22 07:30 (in 11h 07m)`.
    func sentence(verb: String) -> String {
        "\(verb) \(kind) \(shortID) \(title.debugDescription): \(whenSentence)"
    }

    /// `key: value` lines for `reveille show`.
    var details: String {
        var lines = [("id", id), ("title", title), ("state", state), ("kind", kind), ("next", when()), ("repeats", repeatText)]
        if let snooze { lines.append(("snooze", Self.relative(snooze).dropFirst(3).description)) }
        if let preAlert { lines.append(("pre-alert", Self.relative(preAlert).dropFirst(3).description)) }
        lines.append(("button", secondary))
        lines.append(("sound", sound + (volume.map { " at \(Int(($0 * 100).rounded()))%" } ?? "")
                      + (fade.map { ", rising over \(Self.relative($0).dropFirst(3))" } ?? "")))
        lines.append(("rings for", "\(Self.relative(ringLimit).dropFirst(3)) unanswered"))
        lines.append(("wakes", wakes ? "the computer from suspend" : "no (--no-wake)"))
        if !enabled { lines.append(("enabled", "no (reveille enable \(shortID))")) }
        lines.append(("app", app))
        return lines.map { "\($0.0):".padded(to: 11) + $0.1 }.joined(separator: "\n")
    }

    static func table(_ summaries: [AlarmSummary]) -> String {
        let header = ["ID", "STATE", "NEXT", "REPEATS", "TITLE"]
        let rows = summaries.map { [$0.shortID, $0.state, $0.when(), $0.repeatText, $0.title] }
        let widths = (0..<header.count).map { column in ([header] + rows).map { $0[column].count }.max()! }
        return ([header] + rows).map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padded(to: widths[index])
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}

/// Printing for humans or for `--json`, flushed at once so pipes see every line.
enum Output {
    static func line(_ text: String) {
        write(text + "\n")
    }

    /// Writes `text` to standard output unbuffered.
    static func write(_ text: String) {
        _ = try? FileDescriptor.standardOutput.writeAll(text.utf8)
    }

    /// Writes a line to standard error.
    static func note(_ text: String) {
        _ = try? FileDescriptor.standardError.writeAll((text + "\n").utf8)
    }

    static func json<Value: Encodable>(_ value: Value) throws {
        line(String(decoding: try JSONCoding.compactEncoder.encode(value), as: UTF8.self))
    }
}
