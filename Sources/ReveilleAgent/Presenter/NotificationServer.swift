import FoundationEssentials
import Logging
import ReveilleBus

/// The desktop's notification server, `org.freedesktop.Notifications`, spoken to with
/// GDBus calls that never block the loop: a frozen server delays nothing but its own
/// notifications. The only file that speaks the notification protocol.
///
/// Every call may start the server by D-Bus activation (dunst, mako and xfce4-notifyd are
/// usually started that way); without an activatable server, calls wait for one to appear.
@GLibActor
final class NotificationServer {
    static let busName = "org.freedesktop.Notifications"
    static let path = "/org/freedesktop/Notifications"

    /// One notification as the protocol's `Notify` takes it; `body` is plain text.
    struct Request {
        var summary: String
        var body: String
        var icon: String
        /// Action keys and their labels, in the order shown.
        var actions: [(key: String, label: String)]
        var hints: [String: Variant]
        /// `-1`: the server's default; `0`: never expires.
        var timeout: Int32 = 0
    }

    /// What a notification's buttons and closing report back.
    struct Handlers {
        /// The notification's id and the pressed action's key.
        var onAction: @GLibActor (_ id: UInt32, _ key: String) -> Void = { _, _ in }
        /// The notification's id and the close reason: 1 expired, 2 dismissed by the user,
        /// 3 closed by a `CloseNotification` call, 4 other.
        var onClosed: @GLibActor (_ id: UInt32, _ reason: UInt32) -> Void = { _, _ in }
    }

    private let bus: BusConnection
    private let logger: Logger
    /// The unique name of the server that owns `busName`; signals from anyone else are ignored.
    private var owner: String?
    /// The running server, once `GetServerInformation` and `GetCapabilities` have answered.
    private(set) var profile: NotificationServerProfile?
    private var probing = false
    /// Seconds before asking a server that did not answer again; doubles up to five minutes.
    private var retryPause: UInt32 = 5
    private var waiting: [@GLibActor (NotificationServerProfile) -> Void] = []
    private var routes: [UInt32: Handlers] = [:]
    /// What happened to the server, as each observer hears it.
    enum ServerEvent {
        /// A server answered; its profile is known.
        case ready(NotificationServerProfile)
        /// The server left or was replaced: none of the agent's notifications exists any more.
        case left
        /// No server runs and none is activatable: nothing shown reaches anybody.
        case missing
    }
    private var observers: [@GLibActor (ServerEvent) -> Void] = []

    /// `observer` hears each change of the server from now on.
    func observeServer(_ observer: @escaping @GLibActor (ServerEvent) -> Void) {
        observers.append(observer)
    }

    private func tell(_ event: ServerEvent) {
        for observer in observers { observer(event) }
    }

    init(bus: BusConnection, logger: Logger) {
        self.bus = bus
        self.logger = logger
        bus.subscribe(sender: nil, interface: Self.busName, name: nil, path: Self.path) { [weak self] signal in
            self?.received(signal)
        }
        bus.watchName(Self.busName) { [weak self] owner in self?.ownerChanged(owner) }
    }

    /// Shows `request` (replacing notification `id` in place when not 0) as soon as a server
    /// is there; `shown` hears the server's id, or `nil` when it could not be shown.
    func show(_ request: Request, replacing id: UInt32 = 0, handlers: Handlers,
              shown: @escaping @GLibActor (UInt32?) -> Void) {
        whenReady { [weak self] profile in
            guard let self else { return }
            let body = profile.readsMarkup ? Self.escapingMarkup(request.body) : request.body
            let actions = profile.hasActions ? request.actions.flatMap { [$0.key, $0.label] } : []
            var hints = request.hints
            if profile.quirks.contains(.valueHintHidesEverything) { hints["value"] = nil }
            self.bus.call(destination: Self.busName, path: Self.path, interface: Self.busName, method: "Notify",
                          arguments: [.string("Reveille"), .uint32(id), .string(request.icon), .string(request.summary),
                                      .string(body), .strings(actions), .vardict(hints), .int32(request.timeout)]) {
                [weak self] result in
                guard let self else { return }
                switch result {
                case .success(let values):
                    guard let newID = values.first?.uint32, newID != 0 else { return shown(nil) }
                    self.routes[newID] = handlers
                    shown(newID)
                case .failure(let error):
                    self.logger.error("the notification server did not show \"\(request.summary)\": \(error)")
                    shown(nil)
                }
            }
        }
    }

    /// Closes a notification (`CloseNotification`); its close is not reported back.
    func close(_ id: UInt32) {
        routes[id] = nil
        if profile?.quirks.contains(.closeWedgesServer) == true { return expireInstead(id) }
        guard owner != nil, id != 0 else { return }
        bus.call(destination: Self.busName, path: Self.path, interface: Self.busName, method: "CloseNotification",
                 arguments: [.uint32(id)], autoStart: false) { _ in }
    }

    /// Runs `body` with the server's profile: at once when it is known, else after asking the
    /// server (which starts an activatable one), else when a server appears.
    private func whenReady(_ body: @escaping @GLibActor (NotificationServerProfile) -> Void) {
        if let profile { return body(profile) }
        waiting.append(body)
        probe()
    }

    // MARK: The server's lifecycle

    private func probe() {
        guard !probing, profile == nil else { return }
        probing = true
        bus.call(destination: Self.busName, path: Self.path, interface: Self.busName, method: "GetServerInformation") {
            [weak self] information in
            guard let self else { return }
            self.bus.call(destination: Self.busName, path: Self.path, interface: Self.busName, method: "GetCapabilities") {
                [weak self] capabilities in
                guard let self else { return }
                self.probing = false
                switch (information, capabilities) {
                case (.success(let information), .success(let capabilities)):
                    let names = capabilities.first?.array?.compactMap(\.string) ?? []
                    let profile = NotificationServerProfile(name: information.first?.string ?? "",
                                                            version: information.count > 2 ? information[2].string ?? "" : "",
                                                            capabilities: Set(names))
                    self.ready(profile)
                case (.failure(let error), _), (_, .failure(let error)):
                    if error.isServiceMissing {
                        // Nothing to activate: the watch on the name tells when a server appears.
                        self.logger.warning("no notification server is running or activatable; alarms still ring, and show as soon as one appears")
                        self.tell(.missing)
                    } else {
                        self.logger.warning("the notification server does not answer (\(error)); alarms still ring, and show when it does")
                        self.retryProbe()
                    }
                }
            }
        }
    }

    /// Asks a server that did not answer again, while something waits to be shown.
    private func retryProbe() {
        // Growing pauses: an activatable server that crashes at start is not started in a loop.
        let pause = retryPause
        retryPause = min(retryPause * 2, 300)
        MainLoopSources.after(milliseconds: pause * 1000) { [weak self] in
            guard let self, !self.waiting.isEmpty else { return }
            self.probe()
        }
    }

    private func ready(_ profile: NotificationServerProfile) {
        self.profile = profile
        retryPause = 5
        let behaviours = profile.quirks.map(\.rawValue).sorted().joined(separator: ", ")
        logger.info("notification server \(profile.name) \(profile.version) with \(profile.capabilities.sorted().joined(separator: ", "))\(behaviours.isEmpty ? "" : "; known behaviour: \(behaviours)")")
        let pending = waiting
        waiting = []
        tell(.ready(profile))
        for body in pending { body(profile) }
    }

    private func ownerChanged(_ newOwner: String?) {
        let previous = owner
        owner = newOwner
        guard newOwner != previous else { return }
        if previous != nil {
            // The server left or was replaced: none of our notifications exists any more.
            profile = nil
            routes = [:]
            tell(.left)
        }
        if newOwner != nil, profile == nil { probe() }
    }

    private func received(_ signal: BusConnection.Signal) {
        guard signal.sender == owner, signal.arguments.count >= 2, let id = signal.arguments[0].uint32 else { return }
        switch signal.name {
        case "ActionInvoked":
            guard let key = signal.arguments[1].string else { return }
            routes[id]?.onAction(id, key)
        case "NotificationClosed":
            routes.removeValue(forKey: id)?.onClosed(id, signal.arguments[1].uint32 ?? 4)
        default:
            break
        }
    }

    /// Plain text as a server that reads markup must receive it.
    nonisolated static func escapingMarkup(_ text: String) -> String {
        text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;")
    }
}

extension NotificationServer.Request: Equatable {
    static func == (a: Self, b: Self) -> Bool {
        a.summary == b.summary && a.body == b.body && a.icon == b.icon && a.hints == b.hints && a.timeout == b.timeout
            && a.actions.map(\.key) == b.actions.map(\.key) && a.actions.map(\.label) == b.actions.map(\.label)
    }
}
