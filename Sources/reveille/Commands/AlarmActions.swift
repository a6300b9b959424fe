import ArgumentParser
import FoundationEssentials
import Glibc
import ReveilleCore
import ReveilleKit
import ReveilleRules
import ReveilleWords

/// A command that applies one `AlarmAction` to one alarm and says which alarm it acted on.
protocol AlarmActionCommand: AsyncParsableCommand {
    static var action: AlarmAction { get }
    /// What the message says was done: `.stopped`.
    static var done: Done { get }
    var target: AlarmTarget { get }
}

/// The alarm an action applies to.
struct AlarmTarget: ParsableArguments {
    @Argument(help: ArgumentHelp(L("The alarm's ID, a unique prefix of it, or its title (see `reveille list`).")),
              completion: .custom { _, _, prefix in AlarmCompletion.ids(prefix) })
    var id: String

    @OptionGroup var output: OutputOptions

    /// A prefix this short is shown before an irreversible command acts on it.
    static let shortPrefix = 2

    func resolve() async throws -> AlarmRecord {
        try await Self.resolve(id)
    }

    /// The alarm `id` names. Before it is cancelled (`confirmingCancel`), a one- or
    /// two-character prefix is confirmed on a terminal, and refused elsewhere (naming what it
    /// matched) unless `yes`.
    static func resolve(_ id: String, confirmingCancel: Bool = false, yes: Bool = false) async throws -> AlarmRecord {
        let (record, byTitle) = try await named(id)
        guard confirmingCancel, !yes, !byTitle, id.count <= Self.shortPrefix else { return record }
        let summary = AlarmSummary(record)
        let question = summary.kind == "timer" ? L("Cancel timer %@, %@?", summary.name, summary.whenSentence)
            : L("Cancel alarm %@, %@?", summary.name, summary.whenSentence)
        guard Terminal.isInteractive else {
            throw ValidationError(L("'%@' is a short prefix; it matches %@. Give at least %@ characters of the id, or --yes",
                                    id, summary.kindAndName, String(Self.shortPrefix + 1)))
        }
        guard Terminal.confirm(question) else { throw Declined() }
        return record
    }
}

extension AlarmTarget {
    /// The one alarm of `records` that rings; refused naming what rings when that is not one.
    static func ringing(in records: [AlarmRecord]) throws -> AlarmRecord {
        let ringing = records.filter { $0.alarm.state == .alerting }
        guard ringing.count == 1 else {
            guard !ringing.isEmpty else {
                throw AlarmError.notFound(L("no alarm is ringing; give the ID or title of the alarm you mean (see `reveille list`)"))
            }
            let names = AlarmSummary.distinct(ringing).map(\.kindAndName).sorted().joined(separator: ", ")
            throw AlarmError.ambiguousID(L("%@ alarms are ringing (%@); give the ID of the one you mean", String(ringing.count), names))
        }
        return ringing[0]
    }

    /// The alarm `id` names, or without one the alarm ringing now (`reveille stop`, `reveille snooze`).
    static func resolveOrRinging(_ id: String?) async throws -> AlarmRecord {
        if let id { return try await resolve(id) }
        return try ringing(in: try await AgentConnection.perform { client async throws(AlarmError) in try await client.list() })
    }

    /// The alarm `text` names: its id or a unique prefix of it (the agent's answer), else its
    /// title, regardless of case (`reveille pause tea`), when only one alarm has it.
    static func named(_ text: String) async throws -> (record: AlarmRecord, byTitle: Bool) {
        do {
            return (try await AgentConnection.perform { client async throws(AlarmError) in try await client.alarm(text) }, false)
        } catch AlarmError.notFound {
            let records = try await AgentConnection.perform { client async throws(AlarmError) in try await client.list() }
            return (try titled(text, in: records), true)
        }
    }

    /// The one alarm of `records` whose title is `text`, regardless of case; refused naming
    /// every match when several have it.
    static func titled(_ text: String, in records: [AlarmRecord]) throws -> AlarmRecord {
        let wanted = text.trimmed().lowercased()
        let matches = records.filter { $0.title.trimmed().lowercased() == wanted }
        guard matches.count == 1 else {
            guard !matches.isEmpty else {
                throw AlarmError.notFound(L("no alarm has an id starting with '%@' or the title '%@'; `reveille list` shows them", text, text))
            }
            let names = AlarmSummary.distinct(matches).map(\.name).sorted().joined(separator: ", ")
            throw AlarmError.ambiguousID(L("%@ alarms have the title '%@' (%@); give the ID of one", String(matches.count), text, names))
        }
        return matches[0]
    }
}

extension OutputOptions {
    /// Says what an action did to `before`: the alarm afterwards, or that it ended.
    func report(before: AlarmRecord, after: AlarmRecord?, _ done: Done) throws {
        if let after { return try show(after, done) }
        var summary = AlarmSummary(before)
        if json {
            summary.state = "ended"
            return try Output.json(summary)
        }
        Output.line(summary.sentence(done, summary.endedSentence) + ".")
    }
}

extension AlarmActionCommand {
    func run() async throws {
        let before = try await target.resolve()
        let after = try await AgentConnection.perform { client async throws(AlarmError) in
            try await client.apply(Self.action, to: before.id.uuidString)
        }
        try target.output.report(before: before, after: after, Self.done)
    }
}

/// `reveille cancel`: irreversible, so a very short prefix is confirmed, and `--all` asks.
struct Cancel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel", abstract: L("Remove an alarm, whatever its state."),
        discussion: L("A one- or two-character ID prefix is shown and confirmed first (or refused when not on a terminal, unless --yes)."))

    @Argument(help: ArgumentHelp(L("The alarm's ID, a unique prefix of it, or its title (see `reveille list`).")),
              completion: .custom { _, _, prefix in AlarmCompletion.ids(prefix) })
    var id: String?

    @Flag(help: ArgumentHelp(L("Cancel every alarm (asks first, unless --yes).")))
    var all = false

    @Flag(name: .shortAndLong, help: ArgumentHelp(L("Do not ask.")))
    var yes = false

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard all != (id != nil) else { throw ValidationError(L("give an alarm ID or --all, not both and not neither")) }
    }

    func run() async throws {
        let records: [AlarmRecord]
        if all {
            records = try await AgentConnection.perform { client async throws(AlarmError) in try await client.list() }
            guard !records.isEmpty else { return Output.line(L("There are no alarms to cancel.")) }
            if !yes {
                guard Terminal.isInteractive else {
                    throw ValidationError(Ln("--all cancels %@ alarm; add --yes to do it without asking",
                                             "--all cancels %@ alarms; add --yes to do it without asking", records.count, String(records.count)))
                }
                guard Terminal.confirm(Ln("Cancel the %@ alarm?", "Cancel all %@ alarms?", records.count, String(records.count))) else {
                    throw Declined()
                }
            }
        } else {
            records = [try await AlarmTarget.resolve(id!, confirmingCancel: true, yes: yes)]
        }
        for record in records {
            let after = try await AgentConnection.perform { client async throws(AlarmError) in
                try await client.apply(.cancel, to: record.id.uuidString)
            }
            try output.report(before: record, after: after, .cancelled)
        }
    }
}

/// `reveille stop [ID]`: without an ID, the alarm ringing now (what a person types when it rings).
struct Stop: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop",
        abstract: L("Stop a ringing alarm or a running timer."),
        discussion: L("A one-time alarm ends; a repeating one waits for its next day. Without an ID, stops the alarm ringing now."))

    @Argument(help: ArgumentHelp(L("The alarm's ID, a unique prefix of it, or its title (see `reveille list`); without it, the alarm ringing now.")),
              completion: .custom { _, _, prefix in AlarmCompletion.ids(prefix) })
    var id: String?

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let before = try await AlarmTarget.resolveOrRinging(id)
        let after = try await AgentConnection.perform { client async throws(AlarmError) in
            try await client.apply(.stop, to: before.id.uuidString)
        }
        try output.report(before: before, after: after, .stopped)
    }
}

/// `reveille snooze [ID] [DURATION]`: for the alarm's own snooze length, or for as long as asked;
/// without an ID, the alarm ringing now (`reveille snooze`, `reveille snooze 20m`).
struct Snooze: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snooze", abstract: L("Snooze a ringing alarm: it rings again after its snooze length, or after DURATION."),
        discussion: L("reveille snooze 3f2a 20m snoozes for 20 minutes this time; the alarm's own snooze length stays as it was. Without an ID (reveille snooze, reveille snooze 20m), snoozes the alarm ringing now."))

    @Argument(help: ArgumentHelp(L("The alarm's ID, a unique prefix of it, or its title (see `reveille list`); without it, the alarm ringing now.")),
              completion: .custom { _, _, prefix in AlarmCompletion.ids(prefix) })
    var id: String?

    @Argument(help: ArgumentHelp(L("How long to snooze this time (%@; at most 24 hours). Default: the alarm's snooze length.",
                                   InputParser.acceptedDurations)))
    var duration: [String] = []

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let (before, length) = try await target()
        let after = try await AgentConnection.perform { client async throws(AlarmError) in
            if let length { return try await client.snooze(before.id.uuidString, for: length) }
            return try await client.apply(.countdown, to: before.id.uuidString)
        }
        try output.report(before: before, after: after, .snoozed)
    }

    /// The alarm and the length asked for. Words that name no alarm but read as a length
    /// (`snooze 20m`, `snooze 20 min`) are the length, for the alarm ringing now.
    private func target() async throws -> (AlarmRecord, TimeInterval?) {
        guard let id else { return (try await AlarmTarget.resolveOrRinging(nil), nil) }
        let record: AlarmRecord
        do {
            record = try await AlarmTarget.resolve(id)
        } catch AlarmError.notFound where Self.readsAsLength([id] + duration) {
            // Bounded as any snooze: `snooze 25h` is refused as too long, not as no such alarm.
            let length = try Self.length(([id] + duration).joined(separator: " "))
            return (try await AlarmTarget.resolveOrRinging(nil), length)
        }
        return (record, try duration.isEmpty ? nil : Self.length(duration.joined(separator: " ")))
    }

    /// Whether `words` read as one length, in bounds or not.
    static func readsAsLength(_ words: [String]) -> Bool {
        (try? InputParser.duration(words.joined(separator: " "))) != nil
    }

    /// DURATION read and bounded as the agent bounds it (`DurationRange.snooze`), so a wrong one is a usage error.
    static func length(_ text: String) throws -> TimeInterval {
        try Parse.duration(text, option: L("duration"), within: .snooze)
    }
}

struct Pause: AlarmActionCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: L("Pause a running countdown."))
    static let action = AlarmAction.pause
    static let done = Done.paused
    @OptionGroup var target: AlarmTarget
}

struct Resume: AlarmActionCommand {
    static let configuration = CommandConfiguration(commandName: "resume", abstract: L("Resume a paused countdown."))
    static let action = AlarmAction.resume
    static let done = Done.resumed
    @OptionGroup var target: AlarmTarget
}
