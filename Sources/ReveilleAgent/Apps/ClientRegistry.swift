import FoundationEssentials
import Logging
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
    }

    private let bus: BusConnection
    private let logger: Logger
    private var clients: [String: Client] = [:]
    private var watches: [String: UInt32] = [:]

    init(bus: BusConnection, logger: Logger) {
        self.bus = bus
        self.logger = logger
    }

    /// The caller's identity: what it said in Hello, else its sandbox's, else the user's.
    func identity(of sender: String) -> ClientIdentity {
        if let client = clients[sender] { return client.identity }
        var identity = ClientIdentity.user
        if let sandboxed = Self.flatpakID(of: processID(of: sender)) {
            identity = ClientIdentity(appID: sandboxed, sandboxed: true, source: "flatpak")
        }
        // Remembered for the connection's life: one lookup per client, not per call.
        if clients[sender] == nil { remember(sender, Client(identity: identity)) }
        return clients[sender]?.identity ?? identity
    }

    func client(_ sender: String) -> Client? { clients[sender] }

    /// An app introduces itself: its app id and why it wants alarms.
    func hello(_ sender: String, declaredID: String, usageDescription: String) throws(AlarmError) -> ClientIdentity {
        guard declaredID.wholeMatch(of: /[A-Za-z0-9_][A-Za-z0-9._-]{0,254}/) != nil else {
            throw .invalidConfiguration("app id '\(declaredID)' is not valid; use a reverse-DNS id like org.example.Cook")
        }
        let pid = processID(of: sender)
        let identity: ClientIdentity
        if let sandboxed = Self.flatpakID(of: pid) {
            identity = ClientIdentity(appID: sandboxed, sandboxed: true, source: "flatpak")
        } else if let unit = pid.flatMap(Self.systemdID), unit != declaredID {
            identity = ClientIdentity(appID: unit, sandboxed: false, source: "systemd")
        } else {
            identity = ClientIdentity(appID: declaredID, sandboxed: false, source: "declared")
        }
        guard !identity.isUser else {
            throw .notAuthorized("'\(ClientIdentity.userAppID)' is the user's own tools; an app must use its own id")
        }
        if identity.appID != declaredID {
            logger.notice("\(sender) declared \(declaredID) but is \(identity.appID) (\(identity.source))")
        }
        let usage = usageDescription.trimmed()
        remember(sender, Client(identity: identity, usageDescription: usage.isEmpty ? nil : String(usage.prefix(500))))
        return identity
    }

    /// The caller wants `AlarmsChanged` (its own view) from now on.
    func subscribe(_ sender: String, as identity: ClientIdentity) {
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
            if let watch = self.watches.removeValue(forKey: sender) { self.bus.unwatchName(watch) }
        }
    }

    /// The caller's process (`GetConnectionUnixProcessID`), asked synchronously: a local round
    /// trip once per connection. (Resuming a continuation would start Swift's global executor
    /// and its once-a-second libdispatch monitor; an idle agent must make no wakeups.)
    private func processID(of sender: String) -> Int32? {
        guard let reply = try? bus.callSync(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                            interface: "org.freedesktop.DBus", method: "GetConnectionUnixProcessID",
                                            arguments: [.string(sender)]) else { return nil }
        return reply.first?.int64.map { Int32($0) }
    }

    /// The `[Application] name=` of `/proc/PID/root/.flatpak-info`, present only inside a Flatpak sandbox.
    private static func flatpakID(of pid: Int32?) -> String? {
        guard let pid, let text = try? String(contentsOfFile: "/proc/\(pid)/root/.flatpak-info", encoding: .utf8) else { return nil }
        var inApplication = false
        for line in text.split(separator: "\n") {
            if line.hasPrefix("[") { inApplication = line == "[Application]"; continue }
            if inApplication, line.hasPrefix("name=") { return String(line.dropFirst(5)) }
        }
        return nil
    }

    private static func systemdID(_ pid: Int32) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)).flatMap(SystemdAppID.from(cgroup:))
    }
}
