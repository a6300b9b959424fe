import ArgumentParser
import Logging
import ReveilleCore
import ReveilleModel
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

    // A string, so that any number given (negative, or past any integer type) is refused with
    // the accepted range rather than the parser's bare "invalid value".
    @Option(help: "Exit after this many seconds without a call and with no request waiting for polkit (\(IdleExit.accepted.lowerBound)-\(IdleExit.accepted.upperBound)).")
    var idleExit = "30"

    func validate() throws {
        if case .failure(let refusal) = IdleExit.seconds(idleExit) { throw ValidationError(refusal.reason) }
    }

    func run() throws {
        LoggingSystem.bootstrap { label in StreamLogHandler.standardError(label: label) }
        let idleSeconds = try IdleExit.seconds(idleExit).get()
        WakeHelperService.runUntilIdle(rtc: RTCWakeAlarm(folder: FilePath(rtc)), idleSeconds: idleSeconds,
                                       logger: Logger(label: "reveille-wake-helper"))
    }
}
