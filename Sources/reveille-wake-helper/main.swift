import ArgumentParser
import Logging
import ReveilleCore
import ReveilleWake
import SystemPackage

@main
struct WakeHelperCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reveille-wake-helper",
        abstract: "Sets the RTC wake alarm for Reveille's agents: the one privileged part of Reveille.",
        discussion: """
            A D-Bus system service (io.github.reveille.WakeHelper), started by D-Bus activation as root. \
            Each change needs polkit's io.github.reveille.set-wake-alarm. Exits when idle; logs to stderr.
            """,
        version: ReveilleVersion.current)

    @Option(help: "The RTC's sysfs folder, whose wakealarm file is written.")
    var rtc = "/sys/class/rtc/rtc0"

    @Option(help: "Exit after this many seconds without a call.")
    var idleExit: UInt32 = 30

    func run() throws {
        LoggingSystem.bootstrap { label in StreamLogHandler.standardError(label: label) }
        let status = WakeHelperService.runUntilIdle(rtc: RTCWakeAlarm(folder: FilePath(rtc)), idleSeconds: max(1, idleExit),
                                                    logger: Logger(label: "reveille-wake-helper"))
        if status != 0 { throw ExitCode(status) }
    }
}
