import FoundationEssentials
import Glibc
import Logging
import ReveilleAgentRuntime
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleModel
import ReveilleRules
import ReveilleSystem

/// Who each connection on the bus is. A Flatpak sandbox's app id always wins; an
/// unconfined client that says Hello is that app (its systemd app unit's id wins over the
/// one it declares, as the desktop portal does); anyone else is the user.
@GLibActor
final class ClientRegistry {
    struct Client {
        var identity: ClientIdentity
        var usageDescription: String?
        var subscribed = false
        /// The app id it gave in Hello.
        var declaredID: String?
        /// The process that connected, as the bus told it when the connection was looked up.
        var processID: Int32?
        /// When its first call arrived (`ProcessStart`'s ticks): the connection was there then.
        var firstCall: UInt64?
    }

    private let bus: BusConnection
    /// Where who a caller is, is asked once the agent's own connection was slow to answer: a
    /// connection of its own, whose answers from the bus do not queue behind what floods the
    /// agent's (200 connections of 64 KiB calls held them past the look-up's 10 s, and the
    /// user's stop was refused). Made only then, and closed once look-ups stop: an idle agent
    /// keeps one connection's heap.
    private var asking: BusConnection?
    /// Makes the asking connection without waiting on the loop: its `Hello` queues in the
    /// flooded bus daemon like any message, and the look-ups go on the agent's own connection
    /// until it is there.
    private let makeAsking: (@GLibActor (_ made: @escaping @GLibActor (BusConnection?) -> Void) -> Void)?
    /// Whether the asking connection is being made.
    private var makingAsking = false
    /// A look-up slower than this makes the asking connection.
    static let slowLookUp = 0.5
    /// Seconds without a look-up after which the asking connection is closed again.
    static let askingKept: UInt32 = 5
    /// Look-ups made, so the closing knows whether one came since it was planned.
    private var lookUps = 0

    /// Closes the asking connection once `askingKept` seconds pass without a look-up.
    private func closeAskingWhenIdle() {
        let seen = lookUps
        MainLoopSources.after(milliseconds: Self.askingKept * 1000) { [weak self] in
            guard let self, self.asking != nil else { return }
            if self.lookUps == seen { self.asking = nil } else { self.closeAskingWhenIdle() }
        }
    }
    private let log: ClientLog
    private var clients: [String: Client] = [:]
    private var watches: [String: UInt32] = [:]
    /// The `NameOwnerChanged` subscription, removed with the registry.
    private var nameOwnerSubscription: UInt32 = 0
    /// When each connection appeared on the bus, and the instant before which the rest did.
    private var connectionTimes = ConnectionTimes()

    init(bus: BusConnection, asking: (@GLibActor (_ made: @escaping @GLibActor (BusConnection?) -> Void) -> Void)? = nil, log: ClientLog) {
        self.bus = bus
        makeAsking = asking
        self.log = log
        nameOwnerSubscription = bus.subscribe(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", name: "NameOwnerChanged",
                          path: "/org/freedesktop/DBus") { [weak self] signal in
            let names = signal.arguments.map { $0.string ?? "" }
            guard names.count == 3, names[0].hasPrefix(":") else { return }
            self?.connectionTimes.changed(names[0], appeared: names[1].isEmpty && !names[2].isEmpty, at: ProcessStart.now())
        }
        // A round trip puts the match rule in place: every connection not heard of from here on
        // existed before this instant.
        _ = try? bus.callSync(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                              interface: "org.freedesktop.DBus", method: "GetId", autoStart: false)
        connectionTimes.watchedSince = ProcessStart.now()
        connectionTimes.own = bus.uniqueName
    }

    /// What the registry asked of the bus goes with it.
    isolated deinit {
        bus.unsubscribe(nameOwnerSubscription)
        for watch in watches.values { bus.unwatchName(watch) }
    }

    /// The caller's identity, as `lookUp` found it when the connection first called (the gate
    /// lets no call through before): what it said in Hello, else its sandbox's, else the user's.
    /// Never asks the bus: a caller not looked up is nobody.
    func identity(of sender: String) throws(AlarmError) -> ClientIdentity {
        guard let client = clients[sender] else {
            throw .notAuthorized("cannot tell who is calling: \(sender) was not looked up; the call is refused")
        }
        return client.identity
    }

    func client(_ sender: String) -> Client? { clients[sender] }

    /// Who `sender` is, for the gate of every exported object: its sandbox's app, else the
    /// user (until it says Hello), asked of the bus without waiting on the loop and kept for the
    /// connection's life. Fails closed: a caller whose process cannot be looked at (it left the
    /// bus, its process is gone or is not the one that connected, its sandbox marker cannot be
    /// read) is refused, once, with the reason logged.
    func lookUp(_ sender: String, _ answer: @escaping @GLibActor (Result<ExportGate.Caller, BusError>) -> Void) {
        let standing = { (identity: ClientIdentity) -> ExportGate.Caller in identity.isUser ? .user : identity.sandboxed ? .sandboxed : .app }
        if let client = clients[sender] { return answer(.success(standing(client.identity))) }
        let refuse = { [log] (error: AlarmError) in
            log.notice("calls from \(sender) refused: \(error.reason)")
            answer(.failure(BusError(name: AgentInterface.errorPrefix + error.code, message: error.reason)))
        }
        // The call that asks was there now: its connection too.
        let arrived = ProcessStart.now()
        let found: (@escaping @GLibActor (Result<Int32, AlarmError>) -> Void) -> Void = if let peer = directPeers[sender] {
            { $0(.success(peer.processID)) }  // the kernel's word, from the direct line's socket
        } else {
            { self.credentials(of: sender, $0) }
        }
        found { [weak self] first in
            guard let self else { return }
            let pid: Int32, flatpakID: String?
            switch first {
            case .failure(.agentUnavailable(let reason)):
                // The bus did not answer in time (a flood): refused now, asked again at the next call.
                return answer(.failure(BusError(name: ExportGate.busyName, message: reason)))
            case .failure(let error): return refuse(error)
            case .success(let found): pid = found
            }
            // The process read is the caller's: one that got a freed id started after the
            // connection did, which `sandbox(of:)` refuses.
            do throws(AlarmError) { flatpakID = try self.sandbox(of: pid, sender: sender, arrived: arrived) } catch { return refuse(error) }
            if self.clients[sender] == nil {
                let identity = flatpakID.map { ClientIdentity(appID: $0, sandboxed: true, source: "flatpak") } ?? .user
                var client = Client(identity: identity)
                client.processID = pid
                client.firstCall = arrived
                self.remember(sender, client)
            }
            answer(.success(standing(self.clients[sender]?.identity ?? .user)))
        }
    }

    /// An app id as Hello and `reveille auth` accept it: reverse-DNS characters, at most 255, not the user's own.
    static func validate(appID: String) throws(AlarmError) {
        guard appID.wholeMatch(of: /[A-Za-z0-9_][A-Za-z0-9._-]{0,254}/) != nil, !appID.contains("..") else {
            throw .invalidConfiguration("app id '\(NotificationContent.displayable(appID, limit: 80))' is not valid; accepted: a reverse-DNS id like org.example.Cook (letters, digits, '.', '_', '-'; at most 255)")
        }
        guard appID != ClientIdentity.userAppID else {
            throw .invalidConfiguration("'\(ClientIdentity.userAppID)' is the user's own tools, not an app")
        }
    }

    /// An app introduces itself: its app id and why it wants alarms.
    func hello(_ sender: String, declaredID: String, usageDescription: String) throws(AlarmError) -> ClientIdentity {
        try Self.validate(appID: declaredID)
        if let known = clients[sender]?.declaredID, known != declaredID {
            // One connection is one app: saying Hello under many names would raise a prompt each.
            throw .notAuthorized("this connection introduced itself as \(known) already; a connection introduces one app")
        }
        // A sandboxed connection is its sandbox's app for its whole life: what its process
        // looks like now (its id may have been reused) cannot make it another app.
        let known = try identity(of: sender)
        guard let pid = clients[sender]?.processID else {
            throw .notAuthorized("cannot tell who is calling: \(sender) was not looked up; the call is refused")
        }
        try checkStillTheProcessThatConnected(pid, sender: sender, arrived: clients[sender]?.firstCall ?? ProcessStart.now())
        let identity: ClientIdentity
        if known.sandboxed {
            identity = known
        } else if let unit = Self.systemdID(pid), unit != declaredID {
            identity = ClientIdentity(appID: unit, sandboxed: false, source: "systemd")
        } else {
            identity = ClientIdentity(appID: declaredID, sandboxed: false, source: "declared")
        }
        guard !identity.isUser else {
            throw .notAuthorized("'\(ClientIdentity.userAppID)' is the user's own tools; an app must use its own id")
        }
        if identity.appID != declaredID {
            log.notice("\(sender) declared \(declaredID) but is \(identity.appID) (\(identity.source))")
        }
        let usage = usageDescription.trimmed()
        var client = Client(identity: identity, usageDescription: usage.isEmpty ? nil : String(usage.prefix(500)))
        client.subscribed = clients[sender]?.subscribed ?? false
        client.declaredID = declaredID
        client.processID = pid
        remember(sender, client)
        return identity
    }

    /// How many connections may subscribe at once: in all, and per app (the user's tools count as one).
    static let maximumSubscribers = 128
    static let maximumSubscribersPerApp = 16
    /// Of `maximumSubscribers`, those only the user's own tools may take: apps, however many
    /// ids they declare, never take the alert window's and the CLI's.
    static let reservedForTheUser = maximumSubscribersPerApp

    /// The caller wants `AlarmsUpdated` (its own view) from now on.
    func subscribe(_ sender: String, as identity: ClientIdentity) throws(AlarmError) {
        // Signals queue toward a direct line's peer with nothing between (no bus daemon to bound
        // them): a subscriber there that never read grew the agent without end.
        guard directPeers[sender] == nil else {
            throw .invalidState("signals are sent on the session bus only; subscribe there, not on the agent's direct line")
        }
        if clients[sender]?.subscribed != true {
            let current = subscribers
            guard current.count < Self.maximumSubscribers else {
                throw .invalidState("\(current.count) connections already subscribe; at most \(Self.maximumSubscribers) may")
            }
            let apps = current.count { !$0.identity.isUser }
            let forApps = Self.maximumSubscribers - Self.reservedForTheUser
            guard identity.isUser || apps < forApps else {
                throw .invalidState("\(apps) connections of apps already subscribe; at most \(forApps) may (the rest are kept for the user's own tools)")
            }
            let mine = current.count { $0.identity == identity }
            guard mine < Self.maximumSubscribersPerApp else {
                throw .invalidState("\(mine) connections of \(identity.appID) already subscribe; at most \(Self.maximumSubscribersPerApp) may")
            }
        }
        var client = clients[sender] ?? Client(identity: identity)
        client.subscribed = true
        remember(sender, client)
    }

    /// Everyone subscribed, with who they are.
    var subscribers: [(name: String, identity: ClientIdentity)] {
        clients.filter(\.value.subscribed).map { ($0.key, $0.value.identity) }
    }

    /// Peers of the agent's direct line, by name: the process the kernel gave for the socket,
    /// and when the peer was let in (its process started before).
    private var directPeers: [String: (processID: Int32, connected: UInt64)] = [:]

    /// A peer of the direct line was let in as `name`, its socket's process `processID`: it is
    /// looked up as a bus caller is, from that process.
    func peerConnected(_ name: String, processID: Int32) {
        directPeers[name] = (processID, ProcessStart.now())
    }

    /// The direct line's peer `name` is gone.
    func peerLeft(_ name: String) {
        directPeers[name] = nil
        clients[name] = nil
    }

    private func remember(_ sender: String, _ client: Client) {
        clients[sender] = client
        // A direct line's peer has no bus name to watch: `peerLeft` says when it is gone.
        guard watches[sender] == nil, directPeers[sender] == nil else { return }
        // Forget a client when its connection closes.
        watches[sender] = bus.watchName(sender) { [weak self] owner in
            guard owner == nil, let self else { return }
            self.clients[sender] = nil
            self.connectionTimes.changed(sender, appeared: false, at: 0)
            if let watch = self.watches.removeValue(forKey: sender) { self.bus.unwatchName(watch) }
        }
    }

    /// The process `pid` that called as `sender` started before `sender` connected: one that
    /// started after is another process that was given the same id once the first one exited.
    private func checkStillTheProcessThatConnected(_ pid: Int32, sender: String, arrived: UInt64) throws(AlarmError) {
        guard let started = ProcessStart.of(pid: pid) else {
            throw .notAuthorized("cannot tell who is calling: process \(pid) of \(sender) is gone; the call is refused")
        }
        guard started <= directPeers[sender]?.connected ?? connectionTimes.connected(sender, arrived: arrived) else {
            throw .notAuthorized("cannot tell who is calling: process \(pid) started after \(sender) connected, so it is not the process that connected (its id was reused); the call is refused")
        }
    }

    /// The sandbox's app id of the caller's process (`nil`: not sandboxed).
    private func sandbox(of pid: Int32, sender: String, arrived: UInt64) throws(AlarmError) -> String? {
        try checkStillTheProcessThatConnected(pid, sender: sender, arrived: arrived)
        switch FlatpakInfo.of(pid: pid) {
        case .absent: return nil
        case .app(let id):
            // A sandbox is an app: one whose marker names the user's own tools (or no valid app id)
            // would own the user's alarms, so it is refused, as the same name is in Hello.
            do { try Self.validate(appID: id) } catch {
                throw .notAuthorized("\(sender) is sandboxed and its /.flatpak-info does not name an app: \(error.reason); the call is refused")
            }
            return id
        case .unreadable(let reason):
            throw .notAuthorized("cannot tell whether \(sender) is sandboxed: \(reason); the call is refused")
        }
    }

    /// The process id the bus gives for `sender`'s connection (`GetConnectionCredentials`),
    /// asked without waiting on the loop (Debian 12's dbus-daemon offers no `ProcessFD`).
    private func credentials(of sender: String, _ answer: @escaping @GLibActor (Result<Int32, AlarmError>) -> Void) {
        lookUps += 1
        let started = SystemClock.bootTime, onOwn = asking != nil
        (asking ?? bus).call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                 method: "GetConnectionCredentials", arguments: [.string(sender)], timeoutMilliseconds: 10_000, autoStart: false) { [weak self] reply in
            if !onOwn, let self, self.asking == nil, !self.makingAsking, let makeAsking = self.makeAsking,
               SystemClock.bootTime - started > Self.slowLookUp {
                self.makingAsking = true
                makeAsking { [weak self] made in
                    guard let self else { return }
                    self.makingAsking = false
                    guard let made else {
                        return self.log.notice("could not connect to the bus for look-ups of their own; they stay on the agent's connection")
                    }
                    self.asking = made
                    self.closeAskingWhenIdle()
                }
            }
            let values: [String: Variant]
            switch reply {
            case .success(let reply): values = reply.first?.dictionary ?? [:]
            case .failure(let error) where error.name == "org.freedesktop.DBus.Error.NameHasNoOwner":
                return answer(.failure(.notAuthorized("cannot tell who is calling: \(sender) has left the bus (\(error.message)); the call is refused")))
            case .failure(let error):
                return answer(.failure(.agentUnavailable("the bus did not say who \(sender) is (\(error.message)); call again")))
            }
            guard let pid = values["ProcessID"]?.int64.map({ Int32($0) }) else {
                return answer(.failure(.notAuthorized("cannot tell who is calling: the bus gives no process id for \(sender); the call is refused")))
            }
            if let uid = values["UnixUserID"]?.int64, uid != Int64(CurrentProcess.userID) {
                return answer(.failure(.notAuthorized("\(sender) runs as user \(uid), not as this session's user; the call is refused")))
            }
            answer(.success(pid))
        }
    }

    private static func systemdID(_ pid: Int32) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)).flatMap(SystemdAppID.from(cgroup:))
    }
}
