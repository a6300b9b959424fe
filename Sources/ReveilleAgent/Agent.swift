import Dispatch
import FoundationEssentials
import Glibc
import Logging
import ReveilleBus
import ReveilleCore
import SystemPackage

/// reveille-agent: start-up and shutdown in one place.
@GLibActor
package final class Agent {
    package struct Options: Sendable {
        /// Take the bus name from a running agent.
        package var replace = false
        /// Exit quietly with status 0 when another agent runs (autostart, activation).
        package var exitIfRunning = false
        /// See `AlarmScheduler.Settings.lateWindow`.
        package var lateWindow: TimeInterval = 600
        /// The link that names the local time zone; watched for changes.
        package var localtimePath = "/etc/localtime"
        /// For tests: a file holding seconds to add to the wall clock, re-read on SIGUSR1 as if
        /// the clock had been set (the same path as timerfd's ECANCELED).
        package var testClockOffsetFile: String?
        package var environment = ProcessInfo.processInfo.environment

        package init() {}
    }

    private let options: Options
    private let logger: Logger
    private var finished: CheckedContinuation<Int32, Never>?
    private var exitCode: Int32?
    private var stateLock: StateLock?
    /// Sets the wake-up before the machine suspends.
    private var sleep: SleepCoordinator?
    private var parts: (bus: BusConnection, scheduler: AlarmScheduler, presenter: AlarmPresenter,
                        sounder: AlarmSounder, service: AlarmService, timeZone: LocalTimeZone)?

    package init(options: Options, logger: Logger) {
        self.options = options
        self.logger = logger
    }

    /// Runs an agent on the GLib loop's actor and blocks the calling thread until it stops;
    /// returns the process's exit status.
    ///
    /// Nothing here uses Swift's global concurrent executor, so libdispatch's worker pool,
    /// and the monitor timer that wakes it every second, never start: an idle agent makes
    /// no wakeups.
    package nonisolated static func runUntilStopped(options: Options, logger: Logger) -> Int32 {
        // A daemon sets its own signal mask instead of inheriting its starter's: a parent that
        // blocked SIGTERM (a test runner, some launchers) would leave us unstoppable. Threads
        // started from here on inherit this mask.
        var all = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_UNBLOCK, &all, nil)
        let finished = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var status: Int32 = 0
        Task { @GLibActor in
            status = await Agent(options: options, logger: logger).run()
            finished.signal()
        }
        finished.wait()
        return status
    }

    /// Runs until SIGTERM or SIGINT, or until another agent replaces this one.
    /// Returns the process's exit status.
    package func run() async -> Int32 {
        do {
            try start()
        } catch {
            logger.critical("\(error)")
            return 1
        }
        return await withCheckedContinuation { continuation in
            if let exitCode { return continuation.resume(returning: exitCode) }
            finished = continuation
        }
    }

    private func start() throws {
        let bus: BusConnection
        do {
            bus = try BusConnection.session()
        } catch {
            throw AgentError("cannot connect to the session bus (\(error.message)); is DBUS_SESSION_BUS_ADDRESS set?")
        }
        let paths = ReveillePaths(environment: options.environment)
        let timeZone = LocalTimeZone(localtimePath: options.localtimePath, environment: options.environment)
        let clock = TestClock(file: options.testClockOffsetFile)
        let scheduler = AlarmScheduler(store: AlarmStore(directory: paths.stateDirectory, logger: logger),
                                       settings: .init(lateWindow: options.lateWindow), logger: logger,
                                       now: { clock.now }, timeZone: { timeZone.current })
        if options.testClockOffsetFile != nil {
            // The test clock follows its file whenever the agent looks at the clock again:
            // on SIGUSR1, and when the kernel says the real clock was set (timerfd's ECANCELED).
            scheduler.onClockChange = { clock.reload() }
            MainLoopSources.onSignal(SIGUSR1) { scheduler.clockChanged() }
        }
        timeZone.onChange = { [weak self] zone in
            self?.logger.info("time zone changed to \(zone.identifier)")
            scheduler.timeZoneChanged()
        }
        // Before any library (GSettings reading the sound theme) opens GIO's shared connection.
        BusConnection.keepSharedSessionBusFromExiting()
        let settings = AgentSettings.load(from: paths.configDirectory, logger: logger)
        let sounder = AlarmSounder(library: SoundLibrary(environment: options.environment),
                                   sinkGuard: SinkGuard(stateDirectory: paths.stateDirectory,
                                                        enabled: settings.unmuteMutedSink, logger: logger),
                                   logger: logger, alarm: { scheduler.alarm($0) })
        let notifications = NotificationServer(bus: bus, logger: logger)
        let presenter = AlarmPresenter(server: notifications, logger: logger, now: { clock.now }, timeZone: { timeZone.current },
                                       isSounding: { sounder.isPlaying($0) },
                                       alarm: { scheduler.alarm($0) }, allAlarms: { scheduler.list })
        let authorizer = Authorizer(store: AuthorizationStore(directory: paths.configDirectory, logger: logger),
                                    server: notifications, logger: logger)
        let service = try AlarmService(bus: bus, scheduler: scheduler, sounder: sounder, authorizer: authorizer, logger: logger)
        let intents = IntentRunner(bus: bus, logger: logger)
        presenter.onButton = { id, role in scheduler.press(role, on: id) }
        scheduler.onIntent = { intent, alarm, role in intents.perform(intent, alarm: alarm, button: role.rawValue) }
        scheduler.onButton = { alarm, role in service.actionInvoked(on: alarm, button: role.rawValue) }
        scheduler.onMissed = { record, due, reason in
            presenter.showMissed(record, due: due, reason: reason)
            service.alarmMissed(record, due: due, reason: reason)
        }
        scheduler.onStoreDamaged = { report in
            presenter.showNotice(summary: L("Some stored alarms could not be read"),
                                 body: L("The alarm store had damaged entries (%@); they were left out, and the other alarms are loaded. The damaged files are kept as %@.",
                                         "\(report.damaged.count)", report.keptAside.map(\.string).joined(separator: ", ")))
        }
        scheduler.onCannotSave = { reason in
            presenter.showNotice(summary: L("Reveille cannot save changes"),
                                 body: L("The alarms already set will ring and can be stopped, but new alarms and changes are refused: %@.", reason))
        }
        scheduler.onUnsaved = { reason in
            presenter.showNotice(summary: L("Reveille could not save a change"),
                                 body: L("The alarm was silenced, but %@. If Reveille restarts before it can save, the alarm may ring again.", reason))
        }
        let sleep = SleepCoordinator(policy: WakePolicy(enabled: settings.wakeFromSuspend, lead: settings.wakeLead), stateDirectory: paths.stateDirectory, logger: logger,
                                     alarms: { scheduler.list }, onResume: { scheduler.clockChanged() },
                                     notice: { presenter.showNotice(summary: $0, body: $1) })
        service.wakeStatus = { sleep.status(next: scheduler.list) }
        let history = HistoryFile(directory: paths.stateDirectory, logger: logger)
        scheduler.onEnded = { history.append($0) }
        service.history = { history.history }
        self.sleep = sleep
        // Sound first: the alert asks the notification server for a sound only if Reveille has none.
        scheduler.observers = [{ sounder.update($0) }, { presenter.update($0) }, { service.publish($0) },
                               { _ in sleep.alarmsChanged() }]
        parts = (bus, scheduler, presenter, sounder, service, timeZone)

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
                    sounder.start()
                    history.load()
                    do {
                        try scheduler.start()
                        sleep.start()
                        self.logger.info("reveille-agent \(ProcessInfo.processInfo.processIdentifier) owns \(AgentInterface.busName); time zone \(timeZone.current.identifier)")
                    } catch {
                        self.stop(status: 1, reason: "cannot start the wall-clock timer: \(error)")
                    }
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

    private var stopping = false

    private func stop(status: Int32, reason: String) {
        // Once stopping, what follows is its consequence (the bus going away as the session
        // ends), not a failure of its own.
        guard !stopping else { return logger.info("while stopping: \(reason)") }
        stopping = true
        if status == 0 { logger.info("stopping: \(reason)") } else { logger.critical("\(reason)") }
        parts?.presenter.withdrawAll()
        parts?.sounder.silenceAll()
        parts?.bus.flush()
        // Give PulseAudio a moment to receive the sink restore before the process ends.
        MainLoopSources.after(milliseconds: 150) { [weak self] in
            guard let self else { return }
            self.parts = nil
            self.exitCode = status
            self.finished?.resume(returning: status)
            self.finished = nil
        }
    }
}

/// The wall clock, shifted by the seconds in a file for tests; the real clock otherwise.
@GLibActor
final class TestClock {
    private let file: String?
    private var offset: TimeInterval = 0

    init(file: String?) {
        self.file = file
        reload()
    }

    var now: Date { Date().addingTimeInterval(offset) }

    func reload() {
        guard let file else { return }
        offset = (try? String(contentsOfFile: file, encoding: .utf8)).flatMap { Double($0.trimmed()) } ?? 0
    }
}

struct AgentError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
