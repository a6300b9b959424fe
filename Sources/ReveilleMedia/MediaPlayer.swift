import FoundationEssentials
import Logging
import ReveilleAgentRuntime
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleModel
import ReveilleRules

/// The ringing alarm as a media player (MPRIS): what reaches a locked session, a media key, a
/// headset button and a phone (KDE Connect). While any alarm rings, `org.mpris.MediaPlayer2.reveille`
/// is owned and says Playing; Play/Pause snooze (or stop) the alarm, Next and Stop stop it, as
/// `RingingPlayerView` rules. The name is released as soon as nothing rings: a name left
/// behind would keep the media keys from the person's music.
///
/// Where it lives: on the agent's own connection, through its `ExportGate`, like every other
/// object. The callers are the user's own tools (gsd-media-keys, KDE's media-key service,
/// playerctl, KDE Connect, the shell's lock screen): unconfined processes that never say Hello,
/// which the gate admits as the user; a sandboxed app is refused, so it cannot stop the user's
/// alarm, and every caller pays the same budget it pays for Reveille1. A second connection
/// would need a second gate and a second set of budgets, for no caller the first cannot tell.
/// The object stays exported; only the name comes and goes, and with no alarm ringing the
/// object's buttons do nothing.
///
/// Before it takes the name, the other players that play are paused (`MusicPause`), so the
/// media keys come to the alarm (gsd-media-keys gives them to a new player unless the current
/// one is Playing); they play again once nothing rings.
@GLibActor
package final class MediaPlayer: AlarmFollower, AgentEventSource {
    private let gate: ExportGate
    private let bus: BusConnection
    /// What this part has to say, read by the runtime alone.
    package let outbox = AgentOutbox()
    /// The other players, quieted while an alarm rings when `pausesOthers` (the
    /// `pauseMediaPlayers` setting); played again after, whatever the setting is by then.
    private let music: MusicPause
    private var pausesOthers: Bool
    private let logger: Logger
    private let clock: any AgentClock
    private var alarms = AlarmTable.empty
    private var ringing: Set<UUID> = []
    private var view: RingingPlayerView?
    private var registrations: [UInt32] = []
    /// The request for the name while an alarm rings.
    private var nameRequest: UInt32?
    /// The ring whose other players are being quieted before the name is taken.
    private var quieting: Int?
    private var rings = 0

    /// Exports the player through `gate` for the user's own tools. `pauseOtherPlayers`: quiet
    /// the other players while an alarm rings (the setting).
    package init(gate: ExportGate, pauseOtherPlayers: Bool, logger: Logger, clock: any AgentClock) throws(BusError) {
        self.gate = gate
        bus = gate.bus
        music = MusicPause(bus: gate.bus, logger: logger)
        pausesOthers = pauseOtherPlayers
        self.logger = logger
        self.clock = clock
        registrations = try gate.export(path: MPRISInterfaces.path, introspectionXML: MPRISInterfaces.xml, audience: .user,
                                        maximumArgumentBytes: MPRISInterfaces.maximumCallBytes,
                                        answering: MPRISMethod.answering,
                                        properties: { [unowned self] interface, name in self.property(interface, name) },
                                        reader: { [unowned self] sender in self.read(by: sender) }) {
            [unowned self] call in self.handle(call)
        }
        watchTheName()
    }

    isolated deinit {
        gate.unexport(registrations)
        if let nameRequest { bus.unownName(nameRequest) }
        bus.unwatchName(nameWatch)
    }

    // MARK: Who holds the name

    private var nameWatch: UInt32 = 0
    /// Another program that holds the player's name (its process, as the bus tells it): media
    /// keys, headset buttons and the lock screen's controls then reach it, not a ringing alarm.
    package private(set) var nameHeldBy: String?

    /// Follows who owns the player's name, ours or another's.
    private func watchTheName() {
        nameWatch = bus.watchName(MPRISInterfaces.busName) { [weak self] owner in
            guard let self else { return }
            guard let owner, owner != self.bus.uniqueName else { return self.nameHeldBy = nil }
            self.nameHeldBy = owner
            self.bus.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                          method: "GetConnectionUnixProcessID", arguments: [.string(owner)], timeoutMilliseconds: 5000, autoStart: false) {
                [weak self] result in
                guard let self, self.nameHeldBy == owner else { return }
                var holder = owner
                if case .success(let values) = result, let pid = values.first?.int64 {
                    let name = ProcessName.of(Int32(truncatingIfNeeded: pid)) ?? "?"
                    holder = "\(name) (process \(pid), \(owner))"
                }
                self.nameHeldBy = holder
                self.logger.notice("another program, \(holder), holds \(MPRISInterfaces.busName): media keys and the lock screen's media controls will not reach a ringing alarm")
            }
        }
    }

    package func follow(_ changes: [AlarmChange], in alarms: AlarmTable) {
        self.alarms = alarms
        if ringing.follow(changes, keeping: { $0.state == .alerting }) { update() }
    }

    /// The `pauseMediaPlayers` setting changed: from the next ring on (players paused for the
    /// one ringing now still play again after it).
    package func hear(_ notice: AgentNotice) {
        if case .settingsChanged(let settings) = notice { pausesOthers = settings.pauseMediaPlayers }
    }

    /// Lets the name go at once when the agent stops, and plays the paused players again.
    package func withdraw() {
        ringing = []
        update()
    }

    // MARK: The name

    private func update() {
        let old = view
        view = RingingPlayerView(ringing: ringing.compactMap { alarms[$0] }, now: clock.now, timeZone: clock.timeZone)
        guard view != nil else {
            quieting = nil
            if let nameRequest {
                bus.unownName(nameRequest)
                self.nameRequest = nil
                logger.info("nothing rings: released \(MPRISInterfaces.busName)")
            }
            music.resume()
            return
        }
        if nameRequest != nil {
            if old != view { propertiesChanged() }
        } else if quieting == nil {
            rings += 1
            let ring = rings
            quieting = ring
            guard pausesOthers else { return takeName() }
            music.quietOthers(ours: MPRISInterfaces.busName) { [weak self] in
                // A ring that ended meanwhile takes no name; a later one has its own round.
                guard let self, self.quieting == ring else { return }
                self.takeName()
            }
        }
    }

    private func takeName() {
        quieting = nil
        guard view != nil, nameRequest == nil else { return }
        // Not to be replaced while it rings: whoever took the name would take the alarm's media keys.
        nameRequest = bus.ownName(MPRISInterfaces.busName, replace: false, allowReplacement: false) { [weak self] event in
            guard let self else { return }
            switch event {
            case .acquired: self.logger.info("an alarm rings: \(MPRISInterfaces.busName) answers media keys")
            case .lost, .connectionClosed: self.logger.notice("\(MPRISInterfaces.busName) was not granted or was lost: another program holds it, and media keys do not reach the alarm")
            }
        }
    }

    /// The connections that read the player (the user's own tools: the gate admits no other),
    /// newest last: its changes are told to them alone. Broadcast, the ringing alarm's title
    /// reached every connection that listened, a sandboxed app's among them ("… medication");
    /// an MPRIS client reads the properties before it follows their changes (playerctl,
    /// gsd-media-keys, GNOME Shell's and Plasma's players, KDE Connect), so none is left out.
    private var readers: [String] = []
    /// Readers kept: a crowd of one-off readers (each `playerctl` run) pushes the oldest out.
    package static let maximumReaders = 32

    private func read(by sender: String) {
        readers.removeAll { $0 == sender }
        readers.append(sender)
        if readers.count > Self.maximumReaders { readers.removeFirst(readers.count - Self.maximumReaders) }
    }

    private func propertiesChanged() {
        let changed = Dictionary(uniqueKeysWithValues: ["PlaybackStatus", "Metadata", "CanPlay", "CanPause", "CanGoNext"].compactMap { name in
            playerProperty(name).map { (name, $0) }
        })
        let failed = bus.emitSignal(to: readers, path: MPRISInterfaces.path, interface: "org.freedesktop.DBus.Properties",
                                    name: "PropertiesChanged",
                                    arguments: [.string(MPRISInterfaces.playerInterface), .vardict(changed), .strings([])],
                                    flushEvery: 64 << 10)
        for (reader, error) in failed {
            logger.debug("media player: could not tell \(reader) of the change: \(error)")
            readers.removeAll { $0 == reader }
        }
    }

    // MARK: Calls

    private func handle(_ call: MethodCall) {
        guard !call.isOversized else {
            return call.fail(name: "org.freedesktop.DBus.Error.LimitsExceeded",
                             message: "the call's arguments are \(call.argumentBytes) bytes; at most \(MPRISInterfaces.maximumCallBytes) are accepted (OpenUri's URI is the only text)")
        }
        // Raise, Quit (CanRaise, CanQuit are false), Previous, Seek, SetPosition, OpenUri: as the
        // specification has a player that cannot, nothing happens.
        guard call.interface == MPRISInterfaces.playerInterface, let view, let role = view.button(for: call.method) else {
            return call.reply()
        }
        logger.info("media key \(call.method) from \(call.sender): \(role.rawValue) on \(view.alarm)")
        outbox.send(.buttonPressed(view.alarm, role, answer: { result in
            switch result {
            case .success: call.reply()
            case .failure(let error): call.fail(name: AgentInterface.errorPrefix + error.code, message: error.reason)
            }
        }))
    }

    // MARK: Properties

    private func property(_ interface: String, _ name: String) -> Variant? {
        interface == MPRISInterfaces.rootInterface ? rootProperty(name) : playerProperty(name)
    }

    private func rootProperty(_ name: String) -> Variant? {
        switch name {
        case "CanQuit", "CanRaise", "HasTrackList": .bool(false)
        case "Identity": .string("Reveille")
        case "DesktopEntry": .string(NotificationContent.desktopEntry)
        case "SupportedUriSchemes", "SupportedMimeTypes": .strings([])
        default: nil
        }
    }

    private func playerProperty(_ name: String) -> Variant? {
        let rings = view != nil
        return switch name {
        case "PlaybackStatus": .string(rings ? "Playing" : "Stopped")
        case "Rate", "Volume", "MinimumRate", "MaximumRate": .double(1)
        case "Metadata": .vardict(metadata)
        case "Position": .int64(0)
        case "CanGoNext", "CanPlay", "CanPause": .bool(rings)
        case "CanGoPrevious", "CanSeek": .bool(false)
        // Constant, as the specification requires: the player always takes control.
        case "CanControl": .bool(true)
        default: nil
        }
    }

    private var metadata: [String: Variant] {
        guard let view else { return ["mpris:trackid": .objectPath(MPRISInterfaces.noTrack)] }
        return ["mpris:trackid": .objectPath(view.trackID), "xesam:title": .string(view.title), "xesam:artist": .strings([view.artist]),
                "xesam:album": .string(view.album)]
    }
}
