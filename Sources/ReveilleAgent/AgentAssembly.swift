import FoundationEssentials
import Logging
import ReveilleAgentRuntime
import ReveilleAlertWindow
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleMedia
import ReveilleNotifications
import ReveillePanel
import ReveilleRules
import ReveilleSound
import ReveilleSync
import ReveilleWakeUp
import SystemPackage

/// What the agent's parts talk to outside the process: the session's peers in the agent
/// (`Agent.start`), recording ones on virtual time in the in-process tests.
@GLibActor
struct AgentPeers {
    /// The notification server, through its client.
    var notifications: any NotificationTransport
    /// The sound server.
    var sound: any SoundOutput
    /// Where the agent's interface is exported, and who calls it.
    var service: any ServiceBus
    var clients: any ClientDirectory
    var clientLog: ClientLog
    /// The session bus, for the parts that watch it or export on it beside the interface (the
    /// notification reach, the lock watch, the panel item, the media player, the buttons'
    /// intents), and sync (the network, the Secret Service); `nil` in process, where there are
    /// none of them.
    var session: Session?

    @GLibActor
    struct Session {
        var bus: BusConnection
        /// The gate every exported object goes through.
        var gate: ExportGate
        /// libnotify's client, for the reach watch and for waiting until it is idle at the end.
        var notifications: NotificationClient
    }
}

/// Where the agent keeps its state and what the user set.
struct AgentSetup {
    var stateDirectory: FilePath
    var configDirectory: FilePath
    var settings = AgentSettings()
    var engine = AgentRuntime.Settings()
    var environment: [String: String] = [:]
    /// Seconds between sync rounds.
    var syncInterval: TimeInterval = 30
    var logger: Logger
}

/// The agent's parts, wired (`Agent.assemble`): what the agent runs between its start and its
/// stop, and what the in-process tests drive on virtual time.
@GLibActor
struct AgentParts {
    let runtime: AgentRuntime
    let presenter: AlarmPresenter
    let sounder: AlarmSounder
    let authorizer: Authorizer
    let service: AlarmService
    let sleep: SleepCoordinator
    let windows: AlertWindows
    let sync: SyncService?
    let history: HistoryFile
    let panel: PanelItem?
    let player: MediaPlayer?
    let notifications: NotificationClient?

    /// Started in this order, stopped in the reverse: the sound silenced after the notifications
    /// are closed, the alarms settled after both.
    var daemonParts: [DaemonRunner.Part] {
        [.init("notifications", stop: withdrawAll), .init("sound", start: sounder.start, stop: silenceAll),
         .init("alarms", start: startAlarms, stop: settle), .init("wake-up", start: sleep.start),
         .init("sync", start: startSync, stop: stopSync)]
    }

    /// Loads the history and the alarms, and arms the timer.
    func startAlarms() throws {
        history.load()
        try runtime.start()
    }

    /// Closes everything shown, so nothing is left with buttons nobody answers.
    private func withdrawAll(then done: @escaping @GLibActor () -> Void) {
        presenter.withdrawAll()
        panel?.withdraw()
        player?.withdraw()
        windows.closeAll()
        guard let notifications else { return done() }
        notifications.whenIdle(done)
    }

    private func silenceAll(then done: @escaping @GLibActor () -> Void) {
        sounder.silenceAll()
        // Give PulseAudio a moment to receive the sink restore before the process ends.
        MainLoopSources.after(milliseconds: 150, handler: done)
    }

    private func settle(then done: @escaping @GLibActor () -> Void) {
        runtime.settle()
        done()
    }

    private func startSync() {
        sync?.start()
    }

    private func stopSync(then done: @escaping @GLibActor () -> Void) {
        sync?.stop()
        done()
    }
}

extension Agent {
    /// Builds every part of the agent and wires them, in production and in the in-process tests
    /// alike: each is given what it needs at construction, and the runtime is given them all and
    /// reads the outbox of each that has something to say, with `sources` (outside the parts:
    /// the time zone's watch). Nothing starts: see `AgentParts.daemonParts`.
    static func assemble(peers: AgentPeers, clock: any AgentClock, setup: AgentSetup,
                         sources: [AgentOutbox] = []) throws(BusError) -> AgentParts {
        let (logger, settings) = (setup.logger, setup.settings)
        let sounder = AlarmSounder(library: SoundLibrary(environment: setup.environment), output: peers.sound,
                                   logger: logger, clock: clock)
        let presenter = AlarmPresenter(server: peers.notifications, logger: logger, clock: clock)
        let authorizer = Authorizer(store: AuthorizationStore(directory: setup.configDirectory, logger: logger),
                                    server: peers.notifications, logger: logger, clock: clock)
        let sleep = SleepCoordinator(policy: WakePolicy(enabled: settings.wakeFromSuspend, lead: settings.wakeLead),
                                     stateDirectory: setup.stateDirectory, logger: logger, clock: clock)
        let history = HistoryFile(directory: setup.stateDirectory, logger: logger)
        let windows = AlertWindows(setting: settings.alertWindow, environment: setup.environment, logger: logger, clock: clock)
        // The parts that watch the session bus or export on it beside the interface.
        var lock: LockWatch?, reach: NotificationReachWatch?, panel: PanelItem?, player: MediaPlayer?, intents: IntentRunner?
        var sync: SyncService?
        var answering: (@GLibActor () -> SessionAnswering)?
        if let session = peers.session {
            let watch = LockWatch(bus: session.bus, logger: logger)
            lock = watch
            reach = NotificationReachWatch(server: session.notifications, bus: session.bus, logger: logger)
            panel = try PanelItem(gate: session.gate, shown: settings.panelItem, logger: logger, clock: clock)
            let mpris = try MediaPlayer(gate: session.gate, pauseOtherPlayers: settings.pauseMediaPlayers,
                                        logger: logger, clock: clock)
            player = mpris
            answering = { watch.answering(alertWindow: windows.opensWindows, playerNameHeldBy: mpris.nameHeldBy) }
            intents = IntentRunner(bus: session.bus, logger: logger)
            // Nothing is sent anywhere until `reveille sync add`.
            sync = SyncService(stateDirectory: setup.stateDirectory, interval: setup.syncInterval,
                               logger: logger, clock: clock)
        }
        let service = try AlarmService(bus: peers.service, clients: peers.clients, sounds: sounder.library,
                                       authorizer: authorizer, settings: SettingsFile(directory: setup.configDirectory), applied: settings, logger: logger, clientLog: peers.clientLog,
                                       sleep: sleep, history: history, sync: sync, answering: answering)
        let upcoming = UpcomingNotices(settings: settings, server: peers.notifications, clock: clock, logger: logger)
        let followers: [(any AlarmFollower)?] = [service, sleep, windows, reach, sync, player, lock, panel, upcoming]
        let runtime = AgentRuntime(store: AlarmStore(directory: setup.stateDirectory, logger: logger), settings: setup.engine,
                                   logger: logger, intents: intents,
                                   history: history, clock: clock, sources: [authorizer.outbox] + sources, ringer: sounder, alerter: presenter,
                                   followers: followers.compactMap(\.self))
        return AgentParts(runtime: runtime, presenter: presenter, sounder: sounder, authorizer: authorizer,
                          service: service, sleep: sleep, windows: windows, sync: sync, history: history, panel: panel,
                          player: player, notifications: peers.session?.notifications)
    }
}
