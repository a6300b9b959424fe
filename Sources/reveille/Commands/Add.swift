import ArgumentParser
import FoundationEssentials
import ReveilleCore
import ReveilleKit
import ReveilleRules
import ReveilleTimeZone
import ReveilleWords

/// `reveille add`: an alarm at a time of day (repeating on --days) or at a date.
struct Add: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: L("Add an alarm at a time of day or a date."),
        discussion: L("A time of day rings at its next occurrence, or repeats: on --days, --monthly on a day of the month, --yearly on a day of the year, or --every few days. A date rings once."))

    @Argument(help: ArgumentHelp(L("A time of day (%@) or a date (%@).", InputParser.acceptedTimes, InputParser.acceptedDates)))
    var time: [String]

    @OptionGroup var repeating: RepeatOptions

    @OptionGroup var alert: AlertOptions

    @Option(parsing: .unconditional, help: ArgumentHelp(L("Show a countdown this long before the alarm rings (%@).", InputParser.acceptedDurations)))
    var preAlert: String?

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let request = try request(now: Date(), timeZone: GLibTimeZone.local)
        let record = try await AgentConnection.perform { client async throws(AlarmError) in
            try await AgentConnection.schedule(request, with: client)
        }
        try output.show(record, .scheduled)
    }

    /// The alarm the arguments ask for; the time may come as several words (`tomorrow 7:30`).
    func request(now: Date, timeZone: any TimeZoneRules) throws -> AlarmRequest {
        let schedule = try repeating.schedule(try Words.joined(time, name: "time"), now: now, timeZone: timeZone)
        return try alert.request(schedule: schedule,
                                 preAlert: try preAlert.map { try Parse.duration($0, option: "--pre-alert", within: .countdown) },
                                 defaultTitle: L("Alarm"))
    }
}
