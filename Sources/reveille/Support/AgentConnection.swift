import FoundationEssentials
import Glibc
import ReveilleBus
import ReveilleCore
import ReveilleKit
import ReveilleRules
import ReveilleSystem
import ReveilleWords
import SystemPackage

/// The CLI's way to the agent: runs a request, and when no agent is running starts
/// `reveille-agent` from beside this binary, says so, and tries once more.
enum AgentConnection {
    static let appID = "reveille"

    /// The one client of this run: a command that asks twice (which alarm, then stop it) asks on
    /// one bus connection. Each new connection waits for the bus daemon to let it in (under a
    /// flood of other clients' calls, seconds) and for the agent to look it up.
    static let client = AgentClient(appID: appID)

    /// Schedules the person's new alarm. A snooze length left out is the agent's `snooze`
    /// setting, read first and said: an agent older than that setting (one still running after an
    /// upgrade) refuses a snooze button without a length, and reads its settings as 9 minutes.
    @ClientCallActor
    static func schedule(_ request: AlarmRequest, with client: AgentClient) async throws(AlarmError) -> AlarmRecord {
        guard NewAlarmDefaults.lacksSnoozeLength(request, appID: appID) else { return try await client.schedule(id: UUID(), request: request) }
        // The agent's own rule, with the snooze length it holds.
        let defaults = ((try? await client.settings()) ?? AgentSettings()).newAlarmDefaults
        return try await client.schedule(id: UUID(), request: defaults.fillingSnooze(request, appID: appID))
    }

    /// Runs a request of the client's asynchronous calls, for async commands: no thread of its
    /// own, the replies arrive on the client's one thread (`ClientCallActor`).
    static func perform<Result: Sendable>(_ request: @escaping @Sendable @ClientCallActor (AgentClient) async throws(AlarmError) -> Result)
        async throws -> Result {
        do {
            return try await request(client)
        } catch .agentUnavailable(let reason) {
            try startAgent(client, because: reason)
            return try await request(client)
        }
    }

    /// Runs a request of the client's blocking calls on this thread: no task pool and no hop,
    /// which a command that asks once and prints (`reveille list`) does not need.
    static func performBlocking<Result>(_ request: (AgentClient) throws(AlarmError) -> Result) throws -> Result {
        do {
            return try request(client)
        } catch .agentUnavailable(let reason) {
            try startAgent(client, because: reason)
            return try request(client)
        }
    }

    /// After a call found no agent (`reason`): asks the session bus to start it from its D-Bus
    /// activation file (`StartServiceByName`, answered once the agent owns its name), as an
    /// installed Reveille is started. Where the bus has no such file (a build run from its
    /// folder, an install where the bus does not look), spawns the agent from beside this binary
    /// in its own session (so Ctrl-C here does not reach it), logging to the state folder, says
    /// so, and waits up to 5 s for it to say it serves (`READY=1` on a socket of this run's, the
    /// sd_notify protocol) or to exit. Each is one wait, nothing is polled. Blocks; a CLI has
    /// nothing else to do meanwhile.
    private static func startAgent(_ client: AgentClient, because reason: String) throws {
        switch try client.startAgentByActivation() {
        case .started: return
        // It ran, so the call failed for another reason: that is the answer.
        case .alreadyRunning: throw AlarmError.agentUnavailable(reason)
        case .noActivationFile: try spawnAgent(client)
        }
    }

    /// `startAgent` where the bus cannot start the agent: this run starts it.
    private static func spawnAgent(_ client: AgentClient) throws {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("reveille-agent").path
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw AlarmError.agentUnavailable(L("no reveille-agent is running, and none was found at %@ to start", executable))
        }
        let stateDirectory = ReveillePaths().stateDirectory
        try AtomicFile.makePrivateDirectory(stateDirectory)
        let log = stateDirectory.appending("agent.log").string
        rotate(log)
        // In the user's runtime folder, else the state folder, both private to the user (0700):
        // nobody else can say it is ready. (The runtime folder's path is short: a socket's is at
        // most 107 bytes.)
        let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? FilePath($0) : nil }
        let readiness: Readiness.Listener
        do {
            readiness = try Readiness.Listener(path: (runtime ?? stateDirectory).appending("reveille-agent-starting-\(CurrentProcess.id).socket").string)
        } catch {
            // Without it nothing would tell when the agent serves: say how to start it instead of guessing.
            throw AlarmError.agentUnavailable(L("no reveille-agent is running, the session bus has no D-Bus activation file to start it, and no socket could be made to wait for one started here (%@); install Reveille (make install) or start reveille-agent yourself", String(cString: strerror(error.rawValue))))
        }
        let pid = try spawnDetached(executable, log: log, readinessSocket: readiness.path)
        Output.note("reveille: " + L("no agent was running; started reveille-agent (pid %@), logging to %@ (the session bus has no D-Bus activation file to start it)", String(pid), log))
        let outcome: Readiness.Outcome? = try? readiness.waitForReady(of: pid, seconds: 5)
        switch outcome {
        case .ready: return
        case .exited:
            // An agent started another way meanwhile has the name, and this one gave way.
            if try client.agentIsRunning() { return }
            throw AlarmError.agentUnavailable(L("reveille-agent exited at once; see %@", log))
        case .timedOut, nil:
            if try client.agentIsRunning() { return }
            throw AlarmError.agentUnavailable(L("reveille-agent (pid %@) did not take its bus name within 5 s; see %@", String(pid), log))
        }
    }

    /// The log the CLI gives a started agent stays bounded: past 1 MiB it becomes agent.log.1
    /// (replacing the one before), and the agent starts a new one.
    static let maximumLogBytes = 1 << 20

    static func rotate(_ log: String) {
        guard let status = try? FilePath(log).status(), status.size > maximumLogBytes else { return }
        try? FilePath(log).rename(to: FilePath(log + ".1"))
    }

    /// Starts `executable` in a session of its own: no shell, stdin from /dev/null, output to `log`.
    private static func spawnDetached(_ executable: String, log: String, readinessSocket: String?) throws -> pid_t {
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = readinessSocket
        do {
            return try ProcessSpawn.start([executable], environment: environment, output: .file(FilePath(log)), newSession: true)
        } catch {
            throw AlarmError.agentUnavailable(L("could not start %@: %@", executable, String(cString: strerror(error.rawValue))))
        }
    }
}
