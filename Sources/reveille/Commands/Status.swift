import ArgumentParser
import FoundationEssentials
import ReveilleCore
import ReveilleKit
import ReveilleTimeZone

/// `reveille status`: the next alarm, and whether it will wake the machine from suspend.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: L("Show the next alarm and whether it will wake the computer from suspend."),
        discussion: L("Where the session may arm a kernel alarm timer (CAP_WAKE_ALARM, which systemd 254 and later give local sessions), the agent wakes the computer itself. Otherwise waking needs the wake helper (installed system-wide), logind, and polkit's io.github.reveille.set-wake-alarm (granted to the active local session). When the next alarm will not wake the computer, this says why."))

    @Flag(help: ArgumentHelp(L("Print the wake status as JSON: wakes, reason, wakeAt, alarmID, lead, mechanism (alarm-timer or wake-helper).")))
    var json = false

    func run() async throws {
        let (status, alarms) = try await AgentConnection.perform { client throws(AlarmError) in
            (try client.wakeStatus(), try client.listings())
        }
        if json { return try Output.json(status) }
        let next = alarms.map { AlarmSummary($0) }.first { $0.state != "paused" && $0.state != "alerting" }
        Output.line(next.map { L("Next alarm: %@, rings %@", $0.name, $0.when()) } ?? L("Next alarm: none"))
        // `show` and `list` say the same of every alarm while `blocked` (`WakeStatus.answer`).
        if status.wakes, let wakeAt = status.wakeAt {
            let local = AlarmSummary.dateAndTime(ISO8601Local.string(from: wakeAt, in: GLibTimeZone.local))
            Output.line(L("Wakes the computer: yes, at %@ (%@ s early), if it is suspended", local, String(Int(status.lead))))
        } else {
            Output.line(L("Wakes the computer: no; %@", status.reason ?? L("unknown")))
        }
        switch status.mechanism {
        case .alarmTimer?: Output.line(L("Woken by: a kernel alarm timer the agent arms itself (CAP_WAKE_ALARM)"))
        case .wakeHelper?: Output.line(L("Woken by: the wake helper, which sets the RTC wake-up when the computer suspends"))
        case nil: break
        }
    }
}
