import FoundationEssentials
import ReveilleCore
import ReveilleKit
import ReveilleRules
import ReveilleTimeZone
import ReveilleWords
import SystemPackage

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
    /// Reveille's other repeats, as the schedule's JSON writes them: `{"monthly": 15}`,
    /// `{"yearly": {"month": 3, "day": 21}}`, `{"everyDays": 3, "from": "2026-11-23"}`.
    var recurrence: Alarm.Schedule.Relative.Recurrence?
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
    /// 0 to 1 on the desktop's volume slider, as `--volume` reads it (the agent keeps the
    /// stream's linear volume); full volume when absent.
    var volume: Double?
    var fade: Double?
    /// Seconds it rings unanswered before it is reported missed.
    var ringLimit: Double
    /// How it rings again unanswered, as `--repeat-unanswered` writes it (`3x5m`, `off`);
    /// absent when it follows the agent's `repeatUnanswered` setting.
    var repeatUnanswered: String?
    /// It rang unanswered and rests: the ring that comes next, of how many.
    var ringsAgain: RingsAgain?

    /// The ring that comes next after unanswered ones, and how many there are in all.
    struct RingsAgain: Codable, Hashable {
        var ring: Int
        var of: Int
    }
    /// Whether it wakes the computer from suspend: its own option, and where the agent's
    /// `WakeStatus` was asked (`show`, `list`), whether the computer can be woken at all.
    var wakes: Bool
    /// Why it does not wake the computer, where the agent was asked.
    var wakeReason: String?
    /// The occurrence `reveille skip` passed over, while it is ahead (`reveille unskip` brings it back).
    var skipped: String?

    /// The instant `fireDate` writes, kept to avoid reading the text back.
    private var shownDate: Date?

    private enum CodingKeys: String, CodingKey {
        case id, title, state, kind, fireDate, timeRemaining, time, repeats, recurrence, snooze, preAlert, app, enabled, secondary,
             sound, volume, fade, ringLimit, repeatUnanswered, ringsAgain, wakes, wakeReason, skipped
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
            switch relative.repeats {
            case .never: break
            case .weekly(let days): repeats = days.map(\.rawValue)
            case .monthly, .yearly, .everyDays: recurrence = relative.repeats
            }
        }
        preAlert = alarm.schedule == nil ? nil : alarm.countdownDuration?.preAlert
        app = listing.appID
        enabled = !listing.disabled
        switch (listing.secondaryButtonBehavior, listing.secondaryIntent) {
        case (.countdown?, _):
            secondary = listing.secondaryButton == AlarmButton.repeatButton.text.defaultValue ? "repeat" : "snooze"
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
        volume = listing.ring.volume.map { (VolumeScale.slider(linear: $0) * 10_000).rounded() / 10_000 }
        fade = listing.ring.fadeIn
        ringLimit = listing.ring.ringLimit ?? RingOptions.defaultRingLimit
        repeatUnanswered = listing.ring.repeatUnanswered?.text
        ringsAgain = alarm.state == .countdown ? listing.unanswered.map { RingsAgain(ring: $0.nextRing, of: $0.rings) } : nil
        wakes = listing.ring.wakesMachine != false
        skipped = AlarmRecord.skippedOccurrence(state: alarm.state, lastOccurrence: listing.lastOccurrence, now: now)
            .map { ISO8601Local.millisecondString(from: $0, in: timeZone) }
    }

    /// The agent's answer whether the computer can be woken, applied to this alarm.
    mutating func apply(_ status: WakeStatus) {
        (wakes, wakeReason) = status.answer(optedIn: wakes)
    }

    /// An argument as `run:` reads it back: quoted when it holds a space, quote or backslash.
    private static func quoted(_ argument: String) -> String {
        guard argument.isEmpty || argument.contains(where: { " '\"\\".contains($0) }) else { return argument }
        return "'" + argument.replacing("'", with: #"'\''"#) + "'"
    }

    init(_ record: AlarmRecord, now: Date = Date()) {
        self.init(AlarmListing(record), now: now)
    }

    /// How much of the id `shortID` shows: 8 characters, or what tells it apart from the
    /// alarms shown beside it (`IDStarts`).
    var idLength = 8
    var shortID: String { String(id.prefix(idLength)) }

    /// `records`' summaries, their ids shown as long as it takes to tell them apart.
    static func distinct(_ records: [AlarmRecord], now: Date = Date()) -> [AlarmSummary] {
        distinct(records.map { AlarmSummary($0, now: now) })
    }

    /// `summaries`, their ids shown as long as it takes to tell them apart.
    static func distinct(_ summaries: [AlarmSummary]) -> [AlarmSummary] {
        let length = IDStarts.length(for: summaries.map(\.id))
        return summaries.map { summary in
            var summary = summary
            summary.idLength = length
            return summary
        }
    }

    /// How this process shows times of day (`LC_TIME`: 19:30 or 7:30 PM).
    static let clock = ClockStyle.fromEnvironment()

    /// `2026-11-22 07:30` (or `2026-11-22 7:30 AM`) from local ISO 8601 text.
    static func dateAndTime(_ iso: String) -> String {
        let hour = Int(iso.dropFirst(11).prefix(2)) ?? 0, minute = Int(iso.dropFirst(14).prefix(2)) ?? 0
        return "\(iso.prefix(10)) \(clock.format(hour: hour, minute: minute))"
    }

    /// `11h 07m`, `42s`, `2d 3h`: a length, compact.
    static func length(_ seconds: Double) -> String {
        // The agent's number: a NaN or one beyond Int would trap.
        let total = seconds.isFinite ? Int(min(abs(seconds), 1e15).rounded()) : 0
        let (days, hours, minutes, secs) = (total / 86_400, total / 3600 % 24, total / 60 % 60, total % 60)
        return days > 0 ? L("%@d %@h", String(days), String(hours))
            : hours > 0 ? L("%@h %@m", String(hours), minutes.zeroPadded())
            : minutes > 0 ? L("%@m %@s", String(minutes), secs.zeroPadded()) : L("%@s", String(secs))
    }

    /// `in 11h 07m`, `in 42s`, `3m ago`.
    static func relative(_ seconds: Double) -> String {
        seconds >= 0 ? L("in %@", length(seconds)) : L("%@ ago", length(seconds))
    }

    /// A state as people say it; `state` itself stays the JSON's word.
    static func stateWords(_ state: String) -> String {
        switch state {
        case "scheduled": L("scheduled")
        case "countdown": L("countdown")
        case "alerting": L("alerting")
        case "paused": L("paused")
        case "ended": L("ended")
        default: state
        }
    }

    /// What the NEXT column says: when it rings, or how it stands.
    func when(now: Date = Date()) -> String {
        guard enabled else { return L("off") }
        switch state {
        case "paused": return L("paused, %@ left", Self.length(timeRemaining ?? 0))
        case "alerting": return L("ringing")
        default:
            guard let fireDate, let shownDate else { return "-" }
            let next = "\(Self.dateAndTime(fireDate)) (\(Self.relative(shownDate.timeIntervalSince(now))))"
            if let ringsAgain {
                return L("unanswered; rings again %@, %@ of %@", next, String(ringsAgain.ring), String(ringsAgain.of))
            }
            return skipped.map { L("%@, skipping %@", next, Self.dateAndTime($0)) } ?? next
        }
    }

    var repeatText: String {
        if let recurrence, let words = Self.words(recurrence) { return words }
        guard let repeats else { return kind == "timer" ? L("timer") : L("once") }
        switch Set(repeats) {
        case ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]: return L("daily")
        case ["mon", "tue", "wed", "thu", "fri"]: return L("weekdays")
        case ["sat", "sun"]: return L("weekends")
        default: return repeats.map(Self.weekdayWord).joined(separator: ",")
        }
    }

    /// `monthly on day 15`, `yearly on March 21`, `every 3 days from 2026-11-23`; `nil` for
    /// weekly repeats, which `repeatText` words by their days.
    static func words(_ recurrence: Alarm.Schedule.Relative.Recurrence) -> String? {
        switch recurrence {
        case .never, .weekly:
            return nil
        case .monthly(let day):
            return day > 28 ? L("monthly on day %@ (or the month's last day)", String(day)) : L("monthly on day %@", String(day))
        case .yearly(2, 29):
            return L("yearly on February 29 (February 28 in other years)")
        case .yearly(let month, let day):
            return L("yearly on %@ %@", monthName(month), String(day))
        case .everyDays(let count, let from):
            return Ln("every %@ day from %@", "every %@ days from %@", count, String(count), from.description)
        }
    }

    /// A month's name in the user's language.
    static func monthName(_ month: Int) -> String {
        switch month {
        case 1: L("January")
        case 2: L("February")
        case 3: L("March")
        case 4: L("April")
        case 5: L("May")
        case 6: L("June")
        case 7: L("July")
        case 8: L("August")
        case 9: L("September")
        case 10: L("October")
        case 11: L("November")
        case 12: L("December")
        default: String(month)
        }
    }

    /// A weekday's short name in the user's language (`--days` takes these as well as English).
    static func weekdayWord(_ day: String) -> String {
        guard let weekday = Locale.Weekday(rawValue: day) else { return day }
        return InputParser.shortName(weekday)
    }

    /// `rings 2026-11-22 07:30 (in 11h 07m)`, `ringing`, `paused, 4m left`.
    var whenSentence: String {
        guard enabled else { return L("off until `reveille enable %@`", shortID) }
        return switch state {
        case "alerting", "paused": when()
        default: L("rings %@", when())
        }
    }

    /// For an alarm that ended, what it would have done: `it would have rung 2026-11-22 07:30 (in 11h 07m)`.
    var endedSentence: String {
        switch state {
        case "scheduled", "countdown": L("it would have rung %@", when())
        case "paused": L("it was paused with %@ left", Self.length(timeRemaining ?? 0))
        default: L("it has ended")
        }
    }

    /// `3f2a9c1e "Wake up"`: how a sentence names the alarm.
    var name: String { "\(shortID) \(title.debugDescription)" }

    /// `alarm 3f2a9c1e "Wake up"`, `timer 3f2a9c1e "Tea"`.
    var kindAndName: String { kind == "timer" ? L("timer %@", name) : L("alarm %@", name) }

    /// `Scheduled alarm 3f2a9c1e "Wake up": rings 2026-11-22 07:30 (in 11h 07m)`.
    func sentence(_ done: Done) -> String {
        sentence(done, whenSentence)
    }

    /// What was done to this alarm, then `rest`: one whole message per verb and kind, as
    /// languages inflect both.
    func sentence(_ done: Done, _ rest: String) -> String {
        done.template(timer: kind == "timer", name, rest)
    }

    /// `key: value` lines for `reveille show`.
    var details: [String] {
        var lines = [(L("id"), id), (L("title"), title), (L("state"), Self.stateWords(state)), (L("kind"), kind == "timer" ? L("timer") : L("alarm")),
                     (L("next"), when()), (L("repeats"), repeatText)]
        if let snooze { lines.append((L("snooze"), Self.length(snooze))) }
        if let preAlert { lines.append((L("pre-alert"), Self.length(preAlert))) }
        lines.append((L("button"), secondary))
        let volumeText = volume.map { L(" at %@%%", String(Int(($0 * 100).rounded()))) } ?? ""
        let fadeText = fade.map { L(", rising over %@", Self.length($0)) } ?? ""
        lines.append((L("sound"), sound + volumeText + fadeText))
        lines.append((L("rings for"), L("%@ unanswered", Self.length(ringLimit))))
        if let repeatUnanswered, let plan = InputParser.unansweredRepeat(repeatUnanswered) {
            lines.append((L("unanswered"), plan.repeats
                ? Ln("rings again, %@ time in all, %@ apart", "rings again, %@ times in all, %@ apart", plan.rings, String(plan.rings), Self.length(plan.rest))
                : L("rings once")))
        }
        lines.append((L("wakes"), wakes ? L("the computer from suspend") : wakeReason.map { L("no; %@", $0) } ?? L("no (--no-wake)")))
        if !enabled { lines.append((L("enabled"), L("no (reveille enable %@)", shortID))) }
        if let skipped { lines.append((L("skipped"), L("%@ (reveille unskip %@)", Self.dateAndTime(skipped), shortID))) }
        lines.append((L("app"), app))
        let width = lines.map { $0.0.count }.max()! + 2
        return lines.map { ($0.0 + ":").padded(to: width) + $0.1 }
    }

    static func table(_ summaries: [AlarmSummary]) -> [String] {
        Table.lines(header: [L("ID"), L("STATE"), L("NEXT"), L("REPEATS"), L("TITLE")],
                    rows: distinct(summaries).map { [$0.shortID, stateWords($0.state), $0.when(), $0.repeatText, $0.title] })
    }
}

/// What a command did to an alarm, for the sentence that says so.
enum Done {
    case scheduled, started, changed, stopped, snoozed, paused, resumed, cancelled, disabled, enabled, unskipped
    /// The occurrence (date and time) that will not ring.
    case skipped(String)

    /// The sentence, from the alarm's `name` and the `rest` after the colon.
    func template(timer: Bool, _ name: String, _ rest: String) -> String {
        switch (self, timer) {
        case (.scheduled, false): L("Scheduled alarm %@: %@", name, rest)
        case (.scheduled, true): L("Scheduled timer %@: %@", name, rest)
        case (.started, false): L("Started alarm %@: %@", name, rest)
        case (.started, true): L("Started timer %@: %@", name, rest)
        case (.changed, false): L("Changed alarm %@: %@", name, rest)
        case (.changed, true): L("Changed timer %@: %@", name, rest)
        case (.stopped, false): L("Stopped alarm %@: %@", name, rest)
        case (.stopped, true): L("Stopped timer %@: %@", name, rest)
        case (.snoozed, false): L("Snoozed alarm %@: %@", name, rest)
        case (.snoozed, true): L("Snoozed timer %@: %@", name, rest)
        case (.paused, false): L("Paused alarm %@: %@", name, rest)
        case (.paused, true): L("Paused timer %@: %@", name, rest)
        case (.resumed, false): L("Resumed alarm %@: %@", name, rest)
        case (.resumed, true): L("Resumed timer %@: %@", name, rest)
        case (.cancelled, false): L("Cancelled alarm %@: %@", name, rest)
        case (.cancelled, true): L("Cancelled timer %@: %@", name, rest)
        case (.disabled, false): L("Disabled alarm %@: %@", name, rest)
        case (.disabled, true): L("Disabled timer %@: %@", name, rest)
        case (.enabled, false): L("Enabled alarm %@: %@", name, rest)
        case (.enabled, true): L("Enabled timer %@: %@", name, rest)
        case (.unskipped, _): L("Unskipped alarm %@: %@", name, rest)
        case (.skipped(let when), _): L("Skipped %@ of alarm %@: %@", when, name, rest)
        }
    }
}

/// Columns padded to their widest cell, two spaces apart; the last column is not padded.
enum Table {
    /// The header and the rows as aligned lines.
    static func lines(header: [String], rows: [[String]]) -> [String] {
        lines([header] + rows)
    }

    /// The rows as aligned lines (all rows have as many cells). Each cell is measured as the
    /// terminal shows it, escaped (`TerminalText`), so that columns line up.
    static func lines(_ rows: [[String]]) -> [String] {
        let cells = rows.map { $0.map(TerminalText.escaped) }
        let widths = (0..<(cells.first?.count ?? 0)).map { column in cells.map { $0[column].count }.max() ?? 0 }
        return cells.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padded(to: widths[index])
            }.joined(separator: "  ")
        }
    }
}

/// Printing for humans or for `--json`, flushed at once so pipes see every line. The one way
/// out to the terminal: every text is escaped (`TerminalText`), so a newline or an escape
/// sequence inside a title shows as `\n` or `\u{1B}`; lines end where the CLI ends them.
enum Output {
    static func line(_ text: String) {
        lines([text])
    }

    /// Writes each text as a line, in one write.
    static func lines(_ texts: [String]) {
        standardOutput(texts.map { TerminalText.escaped($0) + "\n" }.joined())
    }

    /// Writes `text` to standard output unbuffered, without a newline.
    static func write(_ text: String) {
        standardOutput(TerminalText.escaped(text))
    }

    /// Writes texts (escaped) and the CLI's own control sequences, in one write.
    static func write(_ pieces: [TerminalPiece]) {
        standardOutput(pieces.map { piece in
            switch piece {
            case .text(let text): TerminalText.escaped(text)
            case .control(let control): control.rawValue
            }
        }.joined())
    }

    /// Writes a line to standard error.
    static func note(_ text: String) {
        _ = try? FileDescriptor.standardError.writeAll((TerminalText.escaped(text) + "\n").utf8)
    }

    /// JSON as it is: its strings escape control characters themselves, and escaping again
    /// would change the data.
    static func json<Value: Encodable>(_ value: Value) throws {
        standardOutput(String(decoding: try JSONCoding.compactEncoder.encode(value), as: UTF8.self) + "\n")
    }

    private static func standardOutput(_ text: String) {
        _ = try? FileDescriptor.standardOutput.writeAll(text.utf8)
    }
}
