import ArgumentParser
import FoundationEssentials
import Glibc
import ReveilleKit

/// A command that applies one `AlarmAction` to one alarm and says which alarm it acted on.
protocol AlarmActionCommand: AsyncParsableCommand {
    static var action: AlarmAction { get }
    /// The past tense for the message: "Stopped".
    static var done: String { get }
    var target: AlarmTarget { get }
}

/// The alarm an action applies to.
struct AlarmTarget: ParsableArguments {
    @Argument(help: "The alarm's ID, or a unique prefix of it (see `reveille list`).",
              completion: .custom { _, _, prefix in AlarmCompletion.ids(prefix) })
    var id: String

    @OptionGroup var output: OutputOptions

    /// A prefix this short is shown before an irreversible command acts on it.
    static let shortPrefix = 2

    func resolve(confirming verb: String? = nil, yes: Bool = false) async throws -> AlarmRecord {
        try await Self.resolve(id, confirming: verb, yes: yes)
    }

    /// The alarm `id` names. Before an irreversible `verb`, a one- or two-character prefix is
    /// confirmed on a terminal, and refused elsewhere (naming what it matched) unless `yes`.
    static func resolve(_ id: String, confirming verb: String? = nil, yes: Bool = false) async throws -> AlarmRecord {
        let record = try await AgentConnection.perform { client throws(AlarmError) in try await client.alarm(id) }
        guard let verb, !yes, id.count <= Self.shortPrefix else { return record }
        let summary = AlarmSummary(record)
        let question = "\(verb) \(summary.kind) \(summary.shortID) \(summary.title.debugDescription), \(summary.whenSentence)?"
        guard Terminal.isInteractive else {
            throw ValidationError("'\(id)' is a short prefix; it matches \(summary.kind) \(summary.shortID) \(summary.title.debugDescription). Give at least \(Self.shortPrefix + 1) characters of the id, or --yes")
        }
        guard Terminal.confirm(question) else { throw Declined() }
        return record
    }
}

extension OutputOptions {
    /// Says what an action did to `before`: the alarm afterwards, or that it ended.
    func report(before: AlarmRecord, after: AlarmRecord?, verb: String) throws {
        if let after { return try show(after, verb: verb) }
        var summary = AlarmSummary(before)
        if json {
            summary.state = "ended"
            return try Output.json(summary)
        }
        Output.line("\(verb) \(summary.kind) \(summary.shortID) \(summary.title.debugDescription): it has ended\(summary.endedSentence).")
    }
}

extension AlarmActionCommand {
    func run() async throws {
        let before = try await target.resolve()
        let after = try await AgentConnection.perform { client throws(AlarmError) in
            try await client.apply(Self.action, to: before.id.uuidString)
        }
        try target.output.report(before: before, after: after, verb: Self.done)
    }
}

/// `reveille cancel`: irreversible, so a very short prefix is confirmed, and `--all` asks.
struct Cancel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel", abstract: "Remove an alarm, whatever its state.",
        discussion: "A one- or two-character ID prefix is shown and confirmed first (or refused when not on a terminal, unless --yes).")

    @Argument(help: "The alarm's ID, or a unique prefix of it (see `reveille list`).",
              completion: .custom { _, _, prefix in AlarmCompletion.ids(prefix) })
    var id: String?

    @Flag(help: "Cancel every alarm (asks first, unless --yes).")
    var all = false

    @Flag(name: .shortAndLong, help: "Do not ask.")
    var yes = false

    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard all != (id != nil) else { throw ValidationError("give an alarm ID or --all, not both and not neither") }
    }

    func run() async throws {
        let records: [AlarmRecord]
        if all {
            records = try await AgentConnection.perform { client throws(AlarmError) in try await client.list() }
            guard !records.isEmpty else { return Output.line("There are no alarms to cancel.") }
            if !yes {
                guard Terminal.isInteractive else {
                    throw ValidationError("--all cancels \(records.count) alarm(s); add --yes to do it without asking")
                }
                guard Terminal.confirm("Cancel all \(records.count) alarm(s)?") else { throw Declined() }
            }
        } else {
            records = [try await AlarmTarget.resolve(id!, confirming: "Cancel", yes: yes)]
        }
        for record in records {
            let after = try await AgentConnection.perform { client throws(AlarmError) in
                try await client.apply(.cancel, to: record.id.uuidString)
            }
            try output.report(before: record, after: after, verb: "Cancelled")
        }
    }
}

struct Stop: AlarmActionCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop",
        abstract: "Stop a ringing alarm or a running timer.",
        discussion: "A one-time alarm ends; a repeating one waits for its next day.")
    static let action = AlarmAction.stop
    static let done = "Stopped"
    @OptionGroup var target: AlarmTarget
}

struct Snooze: AlarmActionCommand {
    static let configuration = CommandConfiguration(commandName: "snooze", abstract: "Snooze a ringing alarm: it rings again after its snooze length.")
    static let action = AlarmAction.countdown
    static let done = "Snoozed"
    @OptionGroup var target: AlarmTarget
}

struct Pause: AlarmActionCommand {
    static let configuration = CommandConfiguration(commandName: "pause", abstract: "Pause a running countdown.")
    static let action = AlarmAction.pause
    static let done = "Paused"
    @OptionGroup var target: AlarmTarget
}

struct Resume: AlarmActionCommand {
    static let configuration = CommandConfiguration(commandName: "resume", abstract: "Resume a paused countdown.")
    static let action = AlarmAction.resume
    static let done = "Resumed"
    @OptionGroup var target: AlarmTarget
}
