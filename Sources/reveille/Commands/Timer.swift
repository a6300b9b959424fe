import ArgumentParser
import FoundationEssentials
import ReveilleCore
import ReveilleKit
import ReveilleRules
import ReveilleWords

/// `reveille timer`: a countdown that rings when it reaches zero.
struct Timer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "timer", abstract: L("Start a timer."))

    @Argument(help: ArgumentHelp(L("How long (%@).", InputParser.acceptedTimerLengths),
                                 discussion: L("With colons it reads as a clock: 1:30 is 1 minute 30 seconds; 1:30:00 is 1½ hours.")))
    var duration: [String]

    @OptionGroup var alert: AlertOptions

    @Option(name: .customLong("repeat"), parsing: .unconditional,
            help: ArgumentHelp(L("Offer Repeat instead of Snooze: it starts the timer again for this long.")))
    var repeatAfter: String?

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let request = try request()
        let record = try await AgentConnection.perform { client async throws(AlarmError) in
            try await AgentConnection.schedule(request, with: client)
        }
        try output.show(record, .started)
    }

    /// The timer the arguments ask for; `1h 30m` may come as two words.
    func request() throws -> AlarmRequest {
        let length = try Parse.timerLength(try Words.joined(duration, name: "duration"), option: L("duration"))
        return try alert.request(schedule: nil, preAlert: length, defaultTitle: L("Timer"),
                                 repeatAfter: try repeatAfter.map { try Parse.duration($0, option: "--repeat", within: .countdown) })
    }
}
