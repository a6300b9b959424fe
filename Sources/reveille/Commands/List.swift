import ArgumentParser
import FoundationEssentials
import ReveilleCore
import ReveilleKit
import ReveilleTimeZone
import ReveilleWords

/// `reveille list`: every alarm the agent holds.
struct List: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: L("List all alarms and timers."))

    @OptionGroup var output: OutputOptions

    // Synchronous, on the main thread: an async command starts the GLib loop's thread and the
    // task pool's, and hops between them, for two calls that need neither.
    func run() throws {
        let (listings, wake) = try AgentConnection.performBlocking { client throws(AlarmError) in try client.listingsAndWake() }
        let timeZone = GLibTimeZone.local
        let summaries = listings.map { listing in
            var summary = AlarmSummary(listing, timeZone: timeZone)
            if let wake { summary.apply(wake) }
            return summary
        }
        if output.json {
            try Output.json(summaries)
        } else if summaries.isEmpty {
            Output.line(L("No alarms. Add one with `reveille add 7:30` or `reveille timer 5m`."))
        } else {
            Output.lines(AlarmSummary.table(summaries))
        }
    }
}

/// `reveille show`: one alarm in detail.
struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: L("Show one alarm."))

    @Argument(help: ArgumentHelp(L("The alarm's ID, a unique prefix of it, or its title (see `reveille list`).")))
    var id: String

    @OptionGroup var output: OutputOptions

    func run() async throws {
        let record = try await AlarmTarget.named(id).record
        var summary = AlarmSummary(record)
        // The agent's one answer whether the computer can be woken, as `status` gives it.
        if let wake = try? await AgentConnection.perform({ client async throws(AlarmError) in try await client.wakeStatus() }) {
            summary.apply(wake)
        }
        if output.json { try Output.json(summary) } else { Output.lines(summary.details) }
        if let warning = AgentZone.warning(for: record, in: GLibTimeZone.local) { Output.note(warning) }
    }
}
