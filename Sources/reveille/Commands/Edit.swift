import ArgumentParser
import FoundationEssentials
import ReveilleCore
import ReveilleKit
import ReveilleRules
import ReveilleTimeZone
import ReveilleWords

/// `reveille edit`: change an alarm's time, days, title, sound... keeping its id.
struct Edit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: L("Change an alarm or timer, keeping its ID."),
        discussion: L("Takes the options of `add` and `timer`; what is not given stays as it was. A new title, sound or button keeps where the alarm stands (a timer's time left, a pause, a snooze, a skip); a new time or length schedules it anew, and a ringing alarm is silenced."))

    @Argument(help: ArgumentHelp(L("The alarm's ID, a unique prefix of it, or its title (see `reveille list`).")), completion: .custom { _, _, prefix in AlarmCompletion.ids(prefix) })
    var id: String

    @Argument(help: ArgumentHelp(L("A new time or date (as for `add`), or for a timer a new length (as for `timer`).")))
    var when: [String] = []

    @OptionGroup var repeating: RepeatOptions

    @Option(parsing: .unconditional, help: ArgumentHelp(L("Show a countdown this long before the alarm rings (%@).", InputParser.acceptedDurations)))
    var preAlert: String?

    @OptionGroup var alert: AlertOptions

    @Option(name: .customLong("repeat"), parsing: .unconditional, help: ArgumentHelp(L("Offer Repeat instead of Snooze: it starts the timer again for this long.")))
    var repeatAfter: String?

    @Flag(help: ArgumentHelp(L("Wake the computer from suspend for it again (undoes --no-wake).")))
    var wake = false

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let old = try await AlarmTarget.resolve(id)
        let request = try request(changing: old, now: Date(), timeZone: GLibTimeZone.local)
        let changed = try await AgentConnection.perform { client async throws(AlarmError) in
            try await client.update(old.id.uuidString, request: request)
        }
        try output.show(changed, .changed)
        if let note = Self.repeatChange(from: AlarmSummary(old), to: AlarmSummary(changed), id: id) {
            if output.json { Output.note(note) } else { Output.line(note) }
        }
    }

    /// What changes in how the alarm repeats, said after the change: a date given to a repeating
    /// alarm makes it ring once, which the new time alone did not show.
    static func repeatChange(from old: AlarmSummary, to new: AlarmSummary, id: String) -> String? {
        guard old.kind == "alarm", new.kind == "alarm", old.repeatText != new.repeatText else { return nil }
        guard new.repeats == nil, new.recurrence == nil, new.time == nil else {
            return L("How it repeats changed: %@ before, %@ now.", old.repeatText, new.repeatText)
        }
        // The time of day of the date it now rings on (ISO 8601: HH:MM after the 'T').
        let time = new.fireDate.map { String($0.dropFirst(11).prefix(5)) } ?? "7:30"
        return L("It rings once now and no longer repeats %@; to keep repeating and change only the time, give a time alone: reveille edit '%@' %@",
                 old.repeatText, id, time)
    }

    /// `old` as the arguments change it.
    func request(changing old: AlarmRecord, now: Date, timeZone: any TimeZoneRules) throws -> AlarmRequest {
        if wake && alert.noWake {
            throw ValidationError(L("--wake and --no-wake contradict each other; give one of them"))
        }
        var request = AlarmRequest(old)
        let repeats = repeating.repeats
        let when = when.isEmpty ? nil : when.joined(separator: " ")
        if old.alarm.schedule == nil {
            guard repeats.isEmpty else {
                throw ValidationError(L("%@: %@ is a timer; a timer does not repeat", repeats.given.joined(separator: " "), old.id.uuidString.prefix(8).lowercased()))
            }
            if let when {
                request.countdownDuration?.preAlert = try Parse.timerLength(when, option: L("length"))
            }
        } else if let when {
            request.schedule = try repeating.schedule(when, now: now, timeZone: timeZone)
            // A new time of day keeps the old way of repeating; a date makes it ring once.
            if repeats.isEmpty, case .relative(var relative)? = request.schedule, case .relative(let before)? = old.alarm.schedule {
                relative.repeats = before.repeats
                request.schedule = .relative(relative)
            }
        } else if !repeats.isEmpty, case .relative(let relative)? = old.alarm.schedule {
            let time = "\(relative.time.hour.zeroPadded()):\(relative.time.minute.zeroPadded())"
            request.schedule = try repeating.schedule(time, now: now, timeZone: timeZone)
        } else if !repeats.isEmpty {
            let given = repeats.given.joined(separator: " ")
            throw ValidationError(L("%@ repeats a time of day; give one too: reveille edit %@ 7:30 %@", given, id, given))
        }
        if let preAlert { request.countdownDuration = .init(preAlert: try Parse.duration(preAlert, option: "--pre-alert", within: .countdown),
                                                            postAlert: request.countdownDuration?.postAlert) }
        try alert.apply(to: &request, repeatAfter: try repeatAfter.map { try Parse.duration($0, option: "--repeat", within: .countdown) })
        if wake { request.ring.wakesMachine = nil }
        return request
    }
}

/// `reveille skip`: the next occurrence does not ring; a one-time alarm is then done.
struct Skip: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "skip", abstract: L("Skip the next occurrence of an alarm: a repeating one rings the time after, a one-time one is done."))
    @OptionGroup var target: AlarmTarget

    func run() async throws {
        let before = try await target.resolve()
        let after = try await AgentConnection.perform { client async throws(AlarmError) in try await client.skip(before.id.uuidString) }
        let skipped = AlarmSummary(before).fireDate.map(AlarmSummary.dateAndTime) ?? "-"
        try target.output.report(before: before, after: after, .skipped(skipped))
    }
}

/// `reveille unskip`: the occurrence a skip passed over rings after all.
struct Unskip: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "unskip", abstract: L("Undo a skip: the skipped occurrence rings after all."))
    @OptionGroup var target: AlarmTarget

    func run() async throws {
        let before = try await target.resolve()
        let after = try await AgentConnection.perform { client async throws(AlarmError) in try await client.unskip(before.id.uuidString) }
        try target.output.show(after, .unskipped)
    }
}

/// `reveille disable`: keep an alarm but silence it, like a clock app's switch.
struct Disable: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "disable", abstract: L("Keep an alarm but stop it from ringing until enabled."))
    @OptionGroup var target: AlarmTarget

    func run() async throws { try await target.setEnabled(false, .disabled) }
}

/// `reveille enable`: a disabled alarm rings again from its next occurrence.
struct Enable: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "enable", abstract: L("Turn a disabled alarm on again, from its next occurrence."))
    @OptionGroup var target: AlarmTarget

    func run() async throws { try await target.setEnabled(true, .enabled) }
}

extension AlarmTarget {
    func setEnabled(_ enabled: Bool, _ done: Done) async throws {
        let before = try await resolve()
        let after = try await AgentConnection.perform { client async throws(AlarmError) in
            try await client.setEnabled(enabled, before.id.uuidString)
        }
        try output.show(after, done)
    }
}
