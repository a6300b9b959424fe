import ArgumentParser
import FoundationEssentials
import Glibc
import Logging
import ReveilleAgent
import ReveilleCore
import ReveilleModel
import ReveilleRules
import ReveilleSystem
import ReveilleWords

@main
struct ReveilleAgentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reveille-agent",
        abstract: "The Reveille user-session agent: owns, persists and rings every alarm.",
        discussion: "Normally started by D-Bus activation, systemd or `reveille`. Logs to stderr.",
        version: ReveilleVersion.current)

    @Flag(help: "Take over from a running agent.")
    var replace = false

    @Flag(help: "Exit with status 0 when another agent already runs (for autostart and D-Bus activation).")
    var exitIfRunning = false

    // Optional, not "10m": a constant is not parsed (by a regular expression) at each start.
    // (It made no difference measurable in make bench's idle RSS: the agent's executable pages
    // were 10.7 MiB before and after.)
    @Option(help: "Report an alarm as missed instead of ringing it when it is later than this (\(InputParser.acceptedDurations); default: 10m).")
    var lateWindow: String?

    @Option(help: "The link naming the local time zone, watched for changes (ignored when TZ is set).")
    var localtime = "/etc/localtime"

    @Flag(help: "Log debug detail.")
    var verbose = false

    @Flag(help: .hidden)
    var printInterface = false

    @Option(help: .hidden)
    var testClockOffsetFile: String?

    func run() throws {
        // Read and taken out before any thread starts (`unsetenv` is not safe beside a reader):
        // the alert window and apps' intents the agent starts must not say they are ready for it.
        let readinessSocket = ProcessInfo.processInfo.environment["NOTIFY_SOCKET"]
        EnvironmentVariable.remove("NOTIFY_SOCKET")
        IdleTrim.install()
        if printInterface {
            print(AgentInterface.introspectionXML, terminator: "")
            return
        }
        var options = Agent.Options()
        options.replace = replace
        options.exitIfRunning = exitIfRunning
        options.readinessSocket = readinessSocket
        options.environment.removeValue(forKey: "NOTIFY_SOCKET")
        if let lateWindow {
            do {
                options.lateWindow = try InputParser.duration(lateWindow)
            } catch {
                throw ValidationError("--late-window: \(error)")
            }
        }
        options.localtimePath = localtime
        options.testClockOffsetFile = testClockOffsetFile
        let level: Logger.Level = verbose ? .debug : .info
        Localization.setUp()
        let underJournal = AgentLogHandler.isJournalStream(ProcessInfo.processInfo.environment)
        LoggingSystem.bootstrap { label in AgentLogHandler(label: label, level: level, journal: underJournal) }
        Agent.runUntilStopped(options: options, logger: Logger(label: "reveille-agent"))
    }
}
