import FoundationEssentials
import Glibc
import Logging
import ReveilleAgentRuntime
import ReveilleBus
import ReveilleCore

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
    }

    private let bus: BusConnection
    private let log: ClientLog
    private var clients: [String: Client] = [:]
    private var watches: [String: UInt32] = [:]
    /// The `NameOwnerChanged` subscription, removed with the registry.
    private var nameOwnerSubscription: UInt32 = 0
    /// When each connection appeared on the bus, and the instant before which the rest did.
    private var connectionTimes = ConnectionTimes()

    init(bus: BusConnection, log: ClientLog) {
        self.bus = bus
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
    }

    /// What the registry asked of the bus goes with it.
    isolated deinit {
        bus.unsubscribe(nameOwnerSubscription)
        for watch in watches.values { bus.unwatchName(watch) }
    }

    /// The caller's identity: what it said in Hello, else its sandbox's, else the user's.
    /// Decided at the connection's first call and kept for its life. Fails closed: a caller
    /// whose process cannot be looked at (it left the bus, its process is gone or is not the
    /// one that connected, its sandbox marker cannot be read) is nobody, not the user.
    func identity(of sender: String) throws(AlarmError) -> ClientIdentity {
        if let client = clients[sender] { return client.identity }
        var identity = ClientIdentity.user
        if let sandboxed = try process(of: sender, unit: false).flatpakID {
            identity = ClientIdentity(appID: sandboxed, sandboxed: true, source: "flatpak")
        }
        // Remembered for the connection's life: one lookup per client, not per call.
        if clients[sender] == nil { remember(sender, Client(identity: identity)) }
        return clients[sender]?.identity ?? identity
    }

    func client(_ sender: String) -> Client? { clients[sender] }

    /// How the caller stands at the gate of every exported object (`identity(of:)`, refused
    /// with the agent's error when it cannot be told).
    func caller(of sender: String, calling member: String) -> Result<ExportGate.Caller, BusError> {
        do {
            let identity = try identity(of: sender)
            return .success(identity.isUser ? .user : identity.sandboxed ? .sandboxed : .app)
        } catch {
            log.notice("\(member) from \(sender) refused: \(error.reason)")
            return .failure(BusError(name: AgentInterface.errorPrefix + error.code, message: error.reason))
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
        let process = try process(of: sender, unit: true)
        let identity: ClientIdentity
        if known.sandboxed {
            identity = known
        } else if let sandboxed = process.flatpakID {
            identity = ClientIdentity(appID: sandboxed, sandboxed: true, source: "flatpak")
        } else if let unit = process.systemdID, unit != declaredID {
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

    private func remember(_ sender: String, _ client: Client) {
        clients[sender] = client
        guard watches[sender] == nil else { return }
        // Forget a client when its connection closes.
        watches[sender] = bus.watchName(sender) { [weak self] owner in
            guard owner == nil, let self else { return }
            self.clients[sender] = nil
            self.connectionTimes.changed(sender, appeared: false, at: 0)
            if let watch = self.watches.removeValue(forKey: sender) { self.bus.unwatchName(watch) }
        }
    }

    /// What the caller's process is: its sandbox's app id, its systemd app unit's.
    private struct Process {
        var flatpakID: String?
        var systemdID: String?
    }

    /// Looks at the caller's process, found by the bus's credentials of its connection
    /// (`GetConnectionCredentials`), asked synchronously: a local round trip once per
    /// connection. (Resuming a continuation would start Swift's global executor and its
    /// once-a-second libdispatch monitor.) The credentials are asked again afterwards: the same
    /// process id on a connection still open means the process read was the caller's, not a
    /// new one that got a freed id. (Debian 12's dbus-daemon offers no `ProcessFD`.)
    /// `unit`: read its systemd app unit too (for Hello only).
    private func process(of sender: String, unit: Bool) throws(AlarmError) -> Process {
        let pid = try credentials(of: sender)
        guard let started = ProcessStart.of(pid: pid) else {
            throw .notAuthorized("cannot tell who is calling: process \(pid) of \(sender) is gone; the call is refused")
        }
        // The process that connected started before it connected: one that started after is
        // another process that was given the same id once the first one exited.
        guard started <= connectionTimes.connected(sender) else {
            throw .notAuthorized("cannot tell who is calling: process \(pid) started after \(sender) connected, so it is not the process that connected (its id was reused); the call is refused")
        }
        let flatpakID: String?
        switch FlatpakInfo.of(pid: pid) {
        case .absent: flatpakID = nil
        case .app(let id):
            // A sandbox is an app: one whose marker names the user's own tools (or no valid app id)
            // would own the user's alarms, so it is refused, as the same name is in Hello.
            do { try Self.validate(appID: id) } catch {
                throw .notAuthorized("\(sender) is sandboxed and its /.flatpak-info does not name an app: \(error.reason); the call is refused")
            }
            flatpakID = id
        case .unreadable(let reason):
            throw .notAuthorized("cannot tell whether \(sender) is sandboxed: \(reason); the call is refused")
        }
        let process = Process(flatpakID: flatpakID, systemdID: unit ? Self.systemdID(pid) : nil)
        guard try credentials(of: sender) == pid else {
            throw .notAuthorized("cannot tell who is calling: \(sender) changed process; the call is refused")
        }
        return process
    }

    private func credentials(of sender: String) throws(AlarmError) -> Int32 {
        let reply: [Variant]
        do {
            reply = try bus.callSync(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                     interface: "org.freedesktop.DBus", method: "GetConnectionCredentials",
                                     arguments: [.string(sender)], autoStart: false)
        } catch {
            throw .notAuthorized("cannot tell who is calling: \(sender) has left the bus (\(error.message)); the call is refused")
        }
        let values = reply.first?.dictionary ?? [:]
        guard let pid = values["ProcessID"]?.int64.map({ Int32($0) }) else {
            throw .notAuthorized("cannot tell who is calling: the bus gives no process id for \(sender); the call is refused")
        }
        if let uid = values["UnixUserID"]?.int64, uid != Int64(CurrentProcess.userID) {
            throw .notAuthorized("\(sender) runs as user \(uid), not as this session's user; the call is refused")
        }
        return pid
    }

    private static func systemdID(_ pid: Int32) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)).flatMap(SystemdAppID.from(cgroup:))
    }
}
