import CLinux
import FoundationEssentials
import Glibc
import Logging
import ReveilleAgentRuntime
import ReveilleAlertWindow
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleMedia
import ReveilleModel
import ReveilleNotifications
import ReveillePanel
import ReveilleRules
import ReveilleSound
import ReveilleSync
import ReveilleSystem
import ReveilleWakeUp
import SystemPackage

/// reveille-agent: start-up and shutdown in one place.
@GLibActor
package final class Agent {
    package struct Options: Sendable {
        /// Take the bus name from a running agent.
        package var replace = false
        /// Exit quietly with status 0 when another agent runs (autostart, activation).
        package var exitIfRunning = false
        /// See `AgentRuntime.Settings.lateWindow`.
        package var lateWindow: TimeInterval = 600
        /// The link that names the local time zone; watched for changes.
        package var localtimePath = "/etc/localtime"
        /// For tests: a file holding seconds to add to the wall clock, re-read on SIGUSR1 as if
        /// the clock had been set (the same path as timerfd's ECANCELED).
        package var testClockOffsetFile: String?
        package var environment = ProcessInfo.processInfo.environment
        /// Where to say "READY=1" once the agent serves (`NOTIFY_SOCKET`, as systemd and the
        /// CLI that started it give it), taken out of the environment its children get.
        package var readinessSocket: String?

        package init() {}
    }

    private let options: Options
    private let logger: Logger
    private var stateLock: StateLock?
    /// Starts the parts in order once this agent owns the bus name and the state folder, and
    /// stops them in reverse.
    private var runner: DaemonRunner?

    package init(options: Options, logger: Logger) {
        self.options = options
        self.logger = logger
    }

    /// Runs an agent on the GLib loop's actor and blocks the calling thread until it stops,
    /// then ends the process with the agent's exit status.
    package nonisolated static func runUntilStopped(options: Options, logger: Logger) -> Never {
        reveille_use_one_malloc_arena() // before any thread allocates: 1.5 MiB less resident with 1,000 alarms
        DaemonRunner.runThenExit {
            let agent = Agent(options: options, logger: logger)
            return await agent.run()
        }
    }

    /// Runs until SIGTERM or SIGINT, or until another agent replaces this one.
    /// Returns the process's exit status.
    package func run() async -> Int32 {
        let runner: DaemonRunner
        do {
            runner = try start()
        } catch {
            logger.critical("\(error)")
            return 1
        }
        let outcome = await runner.run()
        self.runner = nil
        return outcome.status
    }

    /// Builds the parts and asks for the bus name; the parts start once it is this agent's.
    private func start() throws -> DaemonRunner {
        let bus: BusConnection
        do {
            bus = try BusConnection.session()
        } catch {
            throw AgentError("cannot connect to the session bus (\(error.message)); is DBUS_SESSION_BUS_ADDRESS set?")
        }
        let paths = ReveillePaths(environment: options.environment)
        // The zone's watch says its changes here; the runtime reads it as it reads the parts'.
        let zoneChanges = AgentOutbox()
        let zone = LocalTimeZone(localtimePath: options.localtimePath, environment: options.environment) { [logger] zone in
            logger.info("time zone changed to \(zone.identifier)")
            zoneChanges.send(.timeZoneChanged)
        }
        // Every part reads the time, the zone and its timers from this one clock.
        let live = LiveClock(zone: zone)
        let clock: any AgentClock
        if let offsetFile = options.testClockOffsetFile { clock = ShiftedClock(base: live, offsetFile: offsetFile) } else { clock = live }
        // Before any library (GSettings reading the sound theme) opens GIO's shared connection.
        BusConnection.keepSharedSessionBusFromExiting()
        let settings = AgentSettings.load(from: paths.configDirectory, logger: logger)
        let sinkGuard = SinkGuard(stateDirectory: paths.stateDirectory, enabled: settings.unmuteMutedSink, logger: logger)
        let notifications = NotificationClient(bus: bus, logger: logger)
        let clientLog = ClientLog(logger: logger)
        // Who calls is asked on the agent's connection, or once that is slow (flooded), on a
        // connection of its own, which nothing is exported on.
        let clients = ClientRegistry(bus: bus, asking: { made in BusConnection.connectToSession { made(try? $0.get()) } }, log: clientLog)
        // Every object on the agent's connection is exported through this gate, and nothing
        // beside it: the caller's identity, argument bounds and each client's budget first.
        // The alarm's own traffic does not wait behind the replies queued here: the
        // notifications travel on libnotify's connection (GIO's shared one, from its own
        // thread), the sound on PulseAudio's socket.
        let gate = ExportGate(bus: bus, identify: clients.lookUp)
        let peers = AgentPeers(notifications: notifications,
                               sound: PulseSoundOutput(sinkGuard: sinkGuard, ringOn: settings.ringOn, logger: logger),
                               service: gate, clients: clients, clientLog: clientLog,
                               session: .init(bus: bus, gate: gate, notifications: notifications))
        let setup = AgentSetup(stateDirectory: paths.stateDirectory, configDirectory: paths.configDirectory, settings: settings,
                               engine: .init(lateWindow: options.lateWindow, defaultRepeat: settings.repeatUnanswered), environment: options.environment,
                               syncInterval: syncInterval, logger: logger)
        let parts = try Self.assemble(peers: peers, clock: clock, setup: setup, sources: [zoneChanges])

        // Started in this order, stopped in the reverse: the bus flushed last, after the
        // notifications are closed and the sound is silenced.
        // Opened last, once everything it leads to serves; closed first.
        let directLine = DaemonRunner.Part("direct line", start: { [weak self] in self?.openDirectLine(gate: gate, clients: clients, paths: paths) },
                                           stop: { [weak self] done in self?.directLine = nil; done() })
        let runner = DaemonRunner(parts: [.init("session bus", stop: { done in bus.flush(); done() })] + parts.daemonParts + [directLine],
                                  onLateStop: { [logger] part in logger.warning("\(part) did not stop in time; exiting without it") })
        self.runner = runner

        for signal in [SIGTERM, SIGINT] {
            MainLoopSources.onSignal(signal) { [weak self] in self?.stop(status: 0, reason: "signal \(signal)") }
        }
        var owned = false
        bus.ownName(AgentInterface.busName, replace: options.replace) { [weak self] event in
            guard let self else { return }
            switch event {
            case .acquired:
                owned = true
                // Only the agent that owns the name and the state folder touches the alarms,
                // the sink or the files.
                self.takeStateLock(paths.stateDirectory, triesLeft: 50) {
                    runner.start()
                    if let failure = runner.outcome { return self.logger.critical("\(failure.reason)") }
                    self.logger.info("reveille-agent \(ProcessInfo.processInfo.processIdentifier) owns \(AgentInterface.busName); time zone \(clock.timeZone.identifier)")
                    self.sayReady()
                }
            case .connectionClosed:
                // Exit non-zero, so systemd's Restart=on-failure brings the agent back.
                self.stop(status: 1, reason: "lost the session bus: it closed the connection or went away")
            case .lost where owned:
                self.stop(status: 0, reason: "another reveille-agent replaced this one")
            case .lost where self.options.exitIfRunning:
                self.stop(status: 0, reason: "another reveille-agent already runs")
            case .lost:
                self.stop(status: 1, reason: "another reveille-agent already owns \(AgentInterface.busName); stop it, or start this one with --replace")
            }
        }
        return runner
    }

    /// The user's tools' way in that a flood of the bus does not hold back.
    private var directLine: DirectLine?

    /// Listens on the direct line (`DirectLine`), in the user's runtime folder, named by this
    /// agent's bus: each peer is looked up from its socket's process and let in through the
    /// same gate as the bus's callers. Without a runtime folder there is none; the bus serves.
    private func openDirectLine(gate: ExportGate, clients: ClientRegistry, paths: ReveillePaths) {
        guard let runtime = paths.runtimeDirectory, let address = BusConnection.sessionAddress() else { return }
        do {
            directLine = try DirectLine(path: DirectLine.socketPath(runtimeDirectory: runtime, busAddress: address), opened: { peer in
                clients.peerConnected(peer.name, processID: peer.processID)
                gate.admit(peer: peer.connection, as: peer.name)
            }, closed: { name in
                gate.release(peer: name)
                clients.peerLeft(name)
            })
        } catch {
            logger.notice("no direct line for the user's tools (\(error.message)); they call over the bus")
        }
    }

    /// Tells whoever started the agent that it serves (the sd_notify protocol): its name is
    /// owned and its alarms loaded, so a call now is answered.
    private func sayReady() {
        guard let socket = options.readinessSocket else { return }
        do {
            try Readiness.notify("READY=1\nMAINPID=\(ProcessInfo.processInfo.processIdentifier)", to: LocalSocket.Address(socket))
        } catch {
            logger.notice("could not tell \(socket) that the agent is ready: \(error)")
        }
    }

    /// Seconds between sync rounds: 30, or REVEILLE_SYNC_INTERVAL's (for tests), 1 to 3600.
    private var syncInterval: TimeInterval {
        guard let text = options.environment["REVEILLE_SYNC_INTERVAL"], let seconds = Double(text), !seconds.isNaN else { return 30 }
        return max(1, min(seconds, 3600))
    }

    /// Takes the state folder's lock, then runs `body`. An agent this one replaced (`--replace`)
    /// still holds it while it shuts down: wait for it, 100 ms at a time, for up to `triesLeft` tries.
    private func takeStateLock(_ directory: FilePath, triesLeft: Int, then body: @escaping @GLibActor () -> Void) {
        let paths = ReveillePaths(environment: options.environment)
        do {
            let lock = try StateLock(directory: directory, runtimeDirectory: paths.runtimeDirectory)
            if let problem = lock.folderProblem {
                logger.warning("the state folder \(directory) cannot hold the agent's lock (\(problem)); it is held in \(lock.file) instead")
            }
            stateLock = lock
            body()
        } catch let held as StateLock.Held {
            guard triesLeft > 0 && held.holder != ProcessInfo.processInfo.processIdentifier else {
                return stop(status: 1, reason: "\(held)")
            }
            MainLoopSources.after(milliseconds: 100) { [weak self] in
                self?.takeStateLock(directory, triesLeft: triesLeft - 1, then: body)
            }
        } catch {
            // Ringing what was loaded matters more than the lock; the bus name still keeps a
            // second agent off this session.
            logger.error("cannot lock the state folder \(directory) nor a file in XDG_RUNTIME_DIR (\(error)); running without the lock")
            body()
        }
    }

    private func stop(status: Int32, reason: String) {
        guard let runner else { return }
        // Once stopping, what follows is its consequence (the bus going away as the session
        // ends), not a failure of its own.
        guard !runner.isStopping else { return logger.info("while stopping: \(reason)") }
        if status == 0 { logger.info("stopping: \(reason)") } else { logger.critical("\(reason)") }
        runner.stop(status: status, reason: reason)
    }
}

struct AgentError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
