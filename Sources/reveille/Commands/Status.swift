import ArgumentParser
import FoundationEssentials
import ReveilleKit
import ReveilleTimeZone

/// `reveille status`: the next alarm, and whether it will wake the machine from suspend.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the next alarm and whether it will wake the computer from suspend.",
        discussion: """
            Waking needs the wake helper (installed system-wide), logind, and polkit's \
            io.github.reveille.set-wake-alarm (granted to the active local session). When the next \
            alarm will not wake the computer, this says why.
            """)

    @Flag(help: "Print the wake status as JSON: wakes, reason, wakeAt, alarmID, lead.")
    var json = false

    func run() async throws {
        let (status, alarms) = try await AgentConnection.perform { client throws(AlarmError) in
            (try await client.wakeStatus(), try await client.listings())
        }
        if json { return try Output.json(status) }
        let next = alarms.map { AlarmSummary($0) }.first { $0.state != "paused" && $0.state != "alerting" }
        Output.line("Next alarm: " + (next.map { "\($0.shortID) \($0.title.debugDescription), rings \($0.when())" } ?? "none"))
        if status.wakes, let wakeAt = status.wakeAt {
            let local = AlarmSummary.dateAndTime(ISO8601Local.string(from: wakeAt, in: GLibTimeZone.local))
            Output.line("Wakes the computer: yes, at \(local) (\(Int(status.lead)) s early), if it is suspended")
        } else {
            Output.line("Wakes the computer: no; \(status.reason ?? "unknown")")
        }
    }
}
