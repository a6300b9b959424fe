import ArgumentParser
import FoundationEssentials
import ReveilleCore
import ReveilleModel
import ReveilleRules
import ReveilleTimeZone
import ReveilleWords

/// `reveille next`: check a schedule before trusting it, like `systemd-analyze calendar`.
struct Next: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "next",
        abstract: L("Print the next instants a schedule would ring at (needs no agent)."),
        discussion: L("Prints one ISO 8601 local time with its UTC offset per line, in the process's time zone (set TZ to try another). A time of day repeats (daily, or as --days, --monthly, --yearly or --every say); a date rings once."))

    @Argument(help: ArgumentHelp(L("A time of day (%@) or a date (%@).", InputParser.acceptedTimes, InputParser.acceptedDates)))
    var time: [String] = []

    @OptionGroup var repeating: RepeatOptions

    @Option(help: ArgumentHelp(L("How many instants to print (1–1000).")))
    var count: Int = 5

    @Option(help: ArgumentHelp(L("Count from this instant instead of now (%@).", InputParser.acceptedDates)))
    var from: String?

    @Flag(help: ArgumentHelp(L("Print a JSON array of the same strings.")))
    var json = false

    func validate() throws {
        // `reveille next` alone: a newcomer looks for the next alarm, which this does not show.
        guard !time.isEmpty else {
            throw ValidationError(L("give a time to see when it would ring, like reveille next 7:30 --days weekdays; the next alarm is in reveille status or reveille list"))
        }
        guard (1...1000).contains(count) else {
            throw ValidationError(L("--count is %@; accepted: a whole number from 1 to 1000", String(count)))
        }
    }

    func run() throws {
        let time = time.joined(separator: " ")
        let timeZone = GLibTimeZone.local
        let now = Date()
        let start = try from.map { try InputParser.instant($0, now: now, timeZone: timeZone) } ?? now
        var schedule = try repeating.schedule(time, now: start, timeZone: timeZone)
        // A time of day without --days: `reveille next` shows how it recurs daily.
        if case .relative(var relative) = schedule, relative.repeats == .never {
            relative.repeats = .weekly([.monday, .tuesday, .wednesday, .thursday, .friday, .saturday, .sunday])
            schedule = .relative(relative)
        }
        let lines = schedule.fireDates(after: start, count: count, in: timeZone)
            .map { ISO8601Local.string(from: $0, in: timeZone) }
        guard !lines.isEmpty else {
            throw ValidationError(L("'%@' has no instant after %@", time, ISO8601Local.string(from: start, in: timeZone)))
        }
        if json {
            try Output.json(lines)
        } else {
            Output.lines(lines)
        }
    }
}
