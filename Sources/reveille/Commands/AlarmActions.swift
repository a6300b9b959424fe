import ArgumentParser
import FoundationEssentials
import ReveilleKit

/// A command that applies one `AlarmAction` to one alarm.
protocol AlarmActionCommand: AsyncParsableCommand {
    static var action: AlarmAction { get }
    /// The past tense for the message: "Stopped".
    static var done: String { get }
    var target: AlarmTarget { get }
}

/// The alarm an action applies to.
struct AlarmTarget: ParsableArguments {
    @Argument(help: "The alarm's ID, or any unique prefix of it (see `reveille list`).")
    var id: String

    @OptionGroup var output: OutputOptions
}

extension AlarmActionCommand {
    func run() async throws {
        let id = target.id
        let after = try await AgentConnection.perform { client throws(AlarmError) in try await client.apply(Self.action, to: id) }
        if let after {
            try target.output.show(after, verb: Self.done)
        } else if target.output.json {
            Output.line("null")
        } else {
            Output.line("\(Self.done) \(id): it has ended.")
        }
    }
}

struct Cancel: AlarmActionCommand {
    static let configuration = CommandConfiguration(commandName: "cancel", abstract: "Remove an alarm, whatever its state.")
    static let action = AlarmAction.cancel
    static let done = "Cancelled"
    @OptionGroup var target: AlarmTarget
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
