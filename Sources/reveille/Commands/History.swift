import ArgumentParser
import FoundationEssentials
import ReveilleCore
import ReveilleKit
import ReveilleRules
import ReveilleTimeZone
import ReveilleWords

/// `reveille history`: what rang, for how long, how it was answered, and what was missed.
struct History: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: L("Show the alarms that rang or were missed, oldest first."),
        discussion: L("The agent keeps the last 900 to 1,000 occurrences (at most 1 MiB) in its state folder."))

    @Flag(help: ArgumentHelp(L("Only the occurrences that were missed: due while the computer was off or asleep, or rung unanswered.")))
    var missed = false

    @Option(help: ArgumentHelp(L("Only the occurrences due at or after this instant (%@).", InputParser.acceptedDates)))
    var since: String?

    @Flag(help: ArgumentHelp(L("Print a JSON array of {alarm, title, app, due, rang, seconds, ended, outcome, by}.")))
    var json = false

    func run() async throws {
        let timeZone = GLibTimeZone.local, now = Date()
        let start = try since.map { try InputParser.instant($0, now: now, timeZone: timeZone) }
        // The parser reads a day or a time as its next occurrence: for the past, that would
        // silently show nothing.
        if let since, let start, start > now {
            let yesterday = ISO8601Local.string(from: now.addingTimeInterval(-86_400), in: timeZone).prefix(10)
            throw ValidationError(L("--since '%@' means %@, which has not come yet; give a past instant, such as 'today 0:00' or '%@ 07:00'",
                                    since, AlarmSummary.dateAndTime(ISO8601Local.string(from: start, in: timeZone)), String(yesterday)))
        }
        let newestFirst = try await AgentConnection.perform { client async throws(AlarmError) in try await client.history() }
        let entries = AlarmHistory.filter(newestFirst.reversed(), since: start, missedOnly: missed)
        if json { return try Output.json(entries) }
        guard !entries.isEmpty else {
            return Output.line(newestFirst.isEmpty ? L("No alarm has rung or been missed yet.") : L("No occurrence matches."))
        }
        Output.lines(Table.lines(header: [L("DUE"), L("TITLE"), L("RANG"), L("ENDED")], rows: entries.map { entry in
            [AlarmSummary.dateAndTime(ISO8601Local.string(from: entry.due, in: timeZone)),
             entry.title,
             entry.rang == nil ? "-" : AlarmSummary.length(entry.seconds),
             entry.endingWords]
        }))
    }
}
