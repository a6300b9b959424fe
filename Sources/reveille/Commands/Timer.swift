import ArgumentParser
import FoundationEssentials
import ReveilleCore
import ReveilleKit

/// `reveille timer`: a countdown that rings when it reaches zero.
struct Timer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "timer", abstract: L("Start a timer."))

    @Argument(help: ArgumentHelp(L("How long (%@).", InputParser.acceptedTimerLengths),
                                 discussion: L("With colons it reads as a clock: 1:30 is 1 minute 30 seconds; 1:30:00 is 1½ hours.")))
    var duration: String

    @OptionGroup var alert: AlertOptions

    @Option(name: .customLong("repeat"),
            help: ArgumentHelp(L("Offer Repeat instead of Snooze: it starts the timer again for this long.")))
    var repeatAfter: String?

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let length = try Parse.timerLength(duration, option: L("duration"))
        let request = try alert.request(schedule: nil, preAlert: length, defaultTitle: L("Timer"),
                                        repeatAfter: try repeatAfter.map { try Parse.duration($0, option: "--repeat") })
        let record = try await AgentConnection.perform { client throws(AlarmError) in
            try await client.schedule(id: UUID(), request: request)
        }
        try output.show(record, .started)
    }
}
