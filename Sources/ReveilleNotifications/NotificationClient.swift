import FoundationEssentials
import Logging
import ReveilleAgentRuntime
import ReveilleBus
import ReveilleLoop

/// The client of the desktop's notification server, `org.freedesktop.Notifications`, through
/// libnotify on a thread of its own (`NotificationThread`): libnotify's calls block, and a
/// frozen server would otherwise stall the agent for 25 s per notification. Here only that
/// thread waits; the agent's loop posts operations to it one at a time (`NotificationQueue`,
/// bounded) and hears the answers, button presses and closes back on its own loop.
///
/// Every call may start the server by D-Bus activation (dunst, mako and xfce4-notifyd are
/// usually started that way); without an activatable server, shows wait for one to appear.
@GLibActor
package final class NotificationClient: NotificationTransport {
    package static let busName = "org.freedesktop.Notifications"
    package static let path = "/org/freedesktop/Notifications"

    private let bus: BusConnection
    /// The watch on the server's bus name, removed when this object goes.
    private var ownerWatch: UInt32 = 0
    private let logger: Logger
    private let thread = NotificationThread(name: "notifications")
    /// Used only on `thread`.
    private let library = LibNotify()
    /// What waits for the thread, and whether it is busy with an operation now.
    private var queue = NotificationQueue()
    private var working = false
    /// Each show waiting or under way, by its ticket.
    private var tickets: [Int: Ticket] = [:]
    private var lastTicket = 0
    private struct Ticket {
        package var request: NotificationRequest
        /// Everyone who asked for it (several when updates of one notification were merged).
        package var shown: [@GLibActor (UInt32?) -> Void]
    }
    /// Called once nothing that can run waits or is under way (`whenCaughtUp`, `whenIdle`).
    private var caughtUp: [@GLibActor () -> Void] = []

    /// The unique name of the server that owns `busName`.
    private var owner: String?
    /// The running server, once it said what it is and can do.
    package private(set) var profile: NotificationServerProfile?
    private var probing = false
    /// Seconds before asking a server that did not answer again; doubles up to five minutes.
    private var retryPause: UInt32 = 5
    /// The notifications shown and not closed by this client: whose presses and closes are told.
    private var live: Set<UInt32> = []
    private var observers: [@GLibActor (NotificationEvent) -> Void] = []

    package func observe(_ observer: @escaping @GLibActor (NotificationEvent) -> Void) {
        observers.append(observer)
    }

    private func tell(_ event: NotificationEvent) {
        for observer in observers { observer(event) }
    }

    package init(bus: BusConnection, logger: Logger) {
        self.bus = bus
        self.logger = logger
        let library = library
        // Before anything else on the thread: libnotify's proxy is made there, with its context.
        thread.run {
            library.start(appName: "Reveille") { [weak self] event in
                NotificationThread.toAgentLoop { self?.heard(event) }
            }
        }
        ownerWatch = bus.watchName(Self.busName) { [weak self] owner in self?.ownerChanged(owner) }
    }

    isolated deinit { bus.unwatchName(ownerWatch) }

    /// Shows `request` (replacing notification `id` in place when not 0) as soon as a server
    /// is there; `shown` hears the server's id, or `nil` when it could not be shown.
    package func show(_ request: NotificationRequest, replacing id: UInt32, shown: @escaping @GLibActor (UInt32?) -> Void) {
        lastTicket += 1
        let ticket = Ticket(request: request, shown: [shown])
        switch queue.show(ticket: lastTicket, replacing: id) {
        case .queued:
            tickets[lastTicket] = ticket
        case .merged(let older):
            tickets[older]?.request = request
            tickets[older]?.shown.append(shown)
        case .queuedDropping(let dropped):
            tickets[lastTicket] = ticket
            logger.warning("the notification server is behind by \(NotificationQueue.maximumShows) notifications; not showing the oldest waiting one")
            answer(dropped, with: nil)
        }
        if profile == nil { probe() }
        work()
    }

    /// Closes a notification (`CloseNotification`); its close is not reported back.
    package func close(_ id: UInt32) {
        live.remove(id)
        if profile?.quirks.contains(.closeWedgesServer) == true { return expireInstead(id) }
        queue.close(id)
        work()
    }

    /// Calls `body` once every close asked for so far is done; shows still waiting are dropped
    /// (the agent is stopping).
    package func whenIdle(_ body: @escaping @GLibActor () -> Void) {
        for ticket in queue.removeShows() { answer(ticket, with: nil) }
        whenCaughtUp(body)
    }

    /// Calls `body` once every operation asked for so far that can run is answered (shows
    /// wait for a server that has not answered yet: they do not hold it); at once when idle.
    package func whenCaughtUp(_ body: @escaping @GLibActor () -> Void) {
        caughtUp.append(body)
        work()
    }

    // MARK: The thread's work

    /// Hands the next operation to the thread, unless it is busy with one.
    private func work() {
        guard !working else { return }
        guard let operation = queue.next(serverKnown: profile != nil) else {
            let waiting = caughtUp
            caughtUp = []
            for body in waiting { body() }
            return
        }
        working = true
        let library = library
        switch operation {
        case .probe:
            thread.run {
                let information = library.serverInformation()
                NotificationThread.toAgentLoop { [weak self] in self?.probed(information) }
            }
        case .show(let ticket, let replacing):
            guard let request = tickets[ticket]?.request, let profile else { return done() }
            let adapted = Self.adapted(request, for: profile)
            thread.run {
                let result = library.show(adapted, replacing: replacing)
                NotificationThread.toAgentLoop { [weak self] in self?.showed(ticket, result, summary: request.summary) }
            }
        case .close(let id):
            thread.run {
                library.close(id)
                NotificationThread.toAgentLoop { [weak self] in self?.done() }
            }
        case .forgetAll:
            thread.run {
                library.forgetAll()
                NotificationThread.toAgentLoop { [weak self] in self?.done() }
            }
        }
    }

    private func done() {
        working = false
        work()
    }

    private func showed(_ ticket: Int, _ result: Result<UInt32, BusError>, summary: String) {
        switch result {
        case .success(let id):
            if tickets[ticket] != nil { live.insert(id) }
            answer(ticket, with: id)
        case .failure(let error):
            logger.error("the notification server did not show \"\(summary)\": \(error)")
            answer(ticket, with: nil)
        }
        done()
    }

    private func answer(_ ticket: Int, with id: UInt32?) {
        for shown in tickets.removeValue(forKey: ticket)?.shown ?? [] { shown(id) }
    }

    /// The request as this server must receive it: markup escaped where it reads markup, no
    /// buttons where it has none, no `value` hint where that hides everything else.
    private static func adapted(_ request: NotificationRequest, for profile: NotificationServerProfile) -> NotificationRequest {
        var adapted = request
        if profile.readsMarkup { adapted.body = escapingMarkup(request.body) }
        if !profile.hasActions { adapted.actions = [] }
        if profile.quirks.contains(.valueHintHidesEverything) { adapted.hints["value"] = nil }
        return adapted
    }

    private func heard(_ event: LibNotify.Event) {
        switch event {
        case .action(let id, let key) where live.contains(id): tell(.action(id, key: key))
        case .closed(let id, let reason) where live.remove(id) != nil: tell(.closed(id, reason: reason))
        case .action, .closed: break
        }
    }

    // MARK: The server's lifecycle

    private func probe() {
        guard !probing, profile == nil else { return }
        probing = true
        queue.probe()
        work()
    }

    private func probed(_ information: LibNotify.ServerInformation?) {
        probing = false
        if let information {
            ready(NotificationServerProfile(name: information.name, version: information.version,
                                            capabilities: Set(information.capabilities)))
        } else if owner != nil {
            logger.warning("the notification server does not answer; alarms still ring, and show when it does")
            retryProbe()
        } else {
            // Nobody owns the name: is there a server to start?
            bus.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                     method: "ListActivatableNames", autoStart: true) { [weak self] result in
                guard let self else { return }
                let names = (try? result.get())?.first?.array?.compactMap(\.string) ?? []
                if names.contains(Self.busName) {
                    self.logger.warning("the notification server could not be started; alarms still ring, and show when it starts")
                    self.retryProbe()
                } else {
                    // Nothing to activate: the watch on the name tells when a server appears.
                    self.logger.warning("no notification server is running or activatable; alarms still ring, and show as soon as one appears")
                    self.tell(.missing)
                }
            }
        }
        done()
    }

    /// Asks a server that did not answer again, while something waits to be shown.
    private func retryProbe() {
        // Growing pauses: an activatable server that crashes at start is not started in a loop.
        let pause = retryPause
        retryPause = min(retryPause * 2, 300)
        MainLoopSources.after(milliseconds: pause * 1000) { [weak self] in
            guard let self, self.tickets.isEmpty == false else { return }
            self.probe()
        }
    }

    private func ready(_ profile: NotificationServerProfile) {
        self.profile = profile
        retryPause = 5
        let behaviours = profile.quirks.map(\.rawValue).sorted().joined(separator: ", ")
        logger.info("notification server \(profile.name) \(profile.version) with \(profile.capabilities.sorted().joined(separator: ", "))\(behaviours.isEmpty ? "" : "; known behaviour: \(behaviours)")")
        tell(.ready(profile))
    }

    private func ownerChanged(_ newOwner: String?) {
        let previous = owner
        owner = newOwner
        guard newOwner != previous else { return }
        if previous != nil {
            // The server left or was replaced: none of our notifications exists any more.
            profile = nil
            live = []
            queue.forgetAll()
            tell(.left)
        }
        if newOwner != nil, profile == nil { probe() }
        work()
    }

    /// Plain text as a server that reads markup must receive it.
    package nonisolated static func escapingMarkup(_ text: String) -> String {
        // Most texts have nothing to escape: three searching replacements took 30 µs of the
        // firing path before the alert was sent (perf, make bench).
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") }) else { return text }
        return text.replacing("&", with: "&amp;").replacing("<", with: "&lt;").replacing(">", with: "&gt;")
    }
}
