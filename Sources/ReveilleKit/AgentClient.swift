import FoundationEssentials
package import ReveilleBus
@_exported public import ReveilleModel
package import ReveilleRules
import ReveilleSystem
import Synchronization

/// A sound output (a sink) as `ListOutputs` answers: the name `ringOn` takes, and what a person reads.
package struct OutputEntry: Codable, Sendable, Equatable {
    package var name: String
    package var description: String
}

/// A sound the agent can ring: its name, file, and where it was found (`user`, `bundled`, `theme`).
package struct SoundEntry: Codable, Sendable, Equatable {
    package var name: String
    package var path: String
    package var source: String
    /// Meant to get attention (an alarm, a bell); a theme's other sounds come after these.
    package var suitedForAlarms: Bool

    private enum CodingKeys: String, CodingKey { case name, path, source, suitedForAlarms }

    package init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        path = try container.decode(String.self, forKey: .path)
        source = try container.decode(String.self, forKey: .source)
        suitedForAlarms = try container.decodeIfPresent(Bool.self, forKey: .suitedForAlarms) ?? true
    }
}

/// Something that happened to an alarm, told to its app while the app runs (Reveille's
/// addition to AlarmKit).
public enum AlarmEvent: Hashable, Sendable {
    /// The alarm began to alert.
    case alerting(Alarm.ID)
    /// An occurrence due at `dueDate` did not ring (`late`: nothing could ring it then), or
    /// rang unanswered to its ring limit (`unanswered`).
    case missed(Alarm.ID, dueDate: Date, reason: MissReason)
}

/// How `AgentClient.startAgentByActivation` went.
package enum AgentActivation: Sendable, Equatable {
    /// The bus started the agent from its activation file, and it owns its name now.
    case started
    /// An agent owned the name already.
    case alreadyRunning
    /// The bus has no activation file for the agent: nobody started it.
    case noActivationFile
}

/// A connection to reveille-agent over the session bus, with the agent's full view of
/// each alarm (`AlarmRecord`). `AlarmManager` builds AlarmKit's API on it; the CLI uses it directly.
///
/// Every call is asynchronous first, isolated to `ClientCallActor`: made with GDBus's
/// asynchronous call on the one thread of the process that hears client calls' replies, so any
/// number may wait at once without a thread each, and cancelling the task cancels the call. Each
/// has a blocking form of the same name (AlarmKit's synchronous API), a thin layer that waits for
/// the asynchronous one (`blocking`), safe on any thread, the GLib loop's included. The update
/// streams are in `AgentClient+Signals`.
///
/// A client with an app id other than `ClientIdentity.userAppID` is an app: it introduces
/// itself (Hello) before its first call, sees only its own alarms, and needs the user's
/// authorization to schedule. The user's client sees and manages everything. An app's calls go
/// to the agent's unique bus name, the one it said Hello to: an agent that restarts knows
/// nothing of the app, and a call that reached it unintroduced would be taken for the user's.
/// Its successor answers the next call only after a new Hello.
package final class AgentClient: Sendable {
    /// The app this client schedules for.
    package let appID: String
    /// Why the app wants alarms, shown when the user is asked (NSAlarmKitUsageDescription).
    package let usageDescription: String?
    private let busAddress: String?
    private struct State {
        var bus: BusConnection?
        /// The agent's direct line (the user's client only), once connected; where it was not
        /// there (or failed), it is looked for again from `directNextTry` on (boot-clock
        /// seconds), so a long-lived client (the window) goes back to it.
        var direct: BusConnection?
        var directNextTry = -Double.infinity
        /// The unique name of the agent this app introduced itself to.
        var introducedTo: String?
    }
    private let state = Mutex(State())

    /// `busAddress` picks a bus other than the session bus (tests).
    package init(appID: String, usageDescription: String? = nil, busAddress: String? = nil) {
        self.appID = appID
        self.usageDescription = usageDescription
        self.busAddress = busAddress
    }

    var isUser: Bool { appID == ClientIdentity.userAppID }

    /// Runs `request`, several calls of this client, as one: for a caller that wants them
    /// together without waiting on each hop back to its own executor.
    @ClientCallActor
    package func run<Value: Sendable>(_ request: @Sendable @ClientCallActor (AgentClient) async throws(AlarmError) -> Value)
        async throws(AlarmError) -> Value {
        try await request(self)
    }

    // MARK: Calls

    /// Asks the user (once; later calls return the decision) whether this app may schedule alarms.
    @ClientCallActor
    package func requestAuthorization() async throws(AlarmError) -> AuthorizationState {
        try Self.state(try await call(.requestAuthorization))
    }

    /// This app's current decision.
    @ClientCallActor
    package func authorizationState() async throws(AlarmError) -> AuthorizationState {
        try Self.state(try await call(.authorizationState))
    }

    /// Every app's decision (the user's client only).
    @ClientCallActor
    package func authorizations() async throws(AlarmError) -> [AppAuthorization] {
        try Self.decode([AppAuthorization].self, from: try await call(.authorizations))
    }

    /// Sets an app's decision (the user's client only).
    @ClientCallActor
    package func setAuthorization(_ state: AuthorizationState, for app: String) async throws(AlarmError) {
        _ = try await call(.setAuthorization(appID: app, state: state))
    }

    /// All alarms the agent holds, in its display order.
    @ClientCallActor
    package func list() async throws(AlarmError) -> [AlarmRecord] {
        try await pages(AlarmRecord.self).sortedForDisplay()
    }

    /// The same list, read only as far as a table of alarms needs (`AlarmListing`).
    @ClientCallActor
    package func listings() async throws(AlarmError) -> [AlarmListing] {
        try await pages(AlarmListing.self).sortedForDisplay()
    }

    /// `listings()` and, for the user's client, `wakeStatus()` (`nil` when it could not be had):
    /// one `ListPageAndWake` a page. From an agent older than that method, `ListPage`s and `WakeStatus`.
    @ClientCallActor
    package func listingsAndWake() async throws(AlarmError) -> (listings: [AlarmListing], wake: WakeStatus?) {
        var wake: WakeStatus?
        guard let listings = try await pages(AlarmListing.self, method: .listPageAndWake, read: { reply throws(AlarmError) in
            let page = try Self.pageAndWake(reply)
            wake = wake ?? page.wake
            return (page.alarms, page.next)
        }) else {
            return (try await listings(), isUser ? try? await wakeStatus() : nil)
        }
        return (listings.sortedForDisplay(), wake)
    }

    /// A `ListPageAndWake` reply read: the page's JSON, the next page's `after`, and the wake
    /// answer (`nil` when empty, as an app is sent). A reply of another shape is refused, saying how.
    package static func pageAndWake(_ reply: [Variant]) throws(AlarmError) -> (alarms: String, next: String, wake: WakeStatus?) {
        func unreadable(_ problem: String) -> AlarmError {
            .agentUnavailable("reveille-agent sent a ListPageAndWake answer this client cannot read: \(problem)")
        }
        let signature = "(" + reply.map(\.signature).joined() + ")"
        guard signature == "(ssa{sv})", let alarms = reply[0].string, let next = reply[1].string, let fields = reply[2].dictionary else {
            throw unreadable("it is \(signature), not (ssa{sv})")
        }
        guard !fields.isEmpty else { return (alarms, next, nil) }
        func field<Value>(_ key: String, _ read: (Variant) -> Value?) throws(AlarmError) -> Value? {
            guard let value = fields[key] else { return nil }
            guard let read = read(value) else { throw unreadable("wake's \(key) is \(value.signature) '\(value)', which it cannot be") }
            return read
        }
        let flag = { (value: Variant) -> Bool? in if case .bool(let flag) = value { flag } else { nil } }
        let number = { (value: Variant) -> Double? in if case .double(let number) = value { number } else { nil } }
        guard let wakes = try field("wakes", flag), let lead = try field("lead", number) else {
            throw unreadable("wake has no wakes (b) and lead (d)")
        }
        let wake = WakeStatus(wakes: wakes, reason: try field("reason", \.string),
                              wakeAt: try field("wakeAt", { number($0).map(Date.init(timeIntervalSince1970:)) }),
                              alarmID: try field("alarmID", { $0.string.flatMap(UUID.init(uuidString:)) }), lead: lead,
                              blocked: try field("blocked", flag),
                              mechanism: try field("mechanism", { $0.string.flatMap(WakeMechanism.init(rawValue:)) }))
        return (alarms, next, wake)
    }

    /// The alarm whose id starts with `idPrefix`.
    @ClientCallActor
    package func alarm(_ idPrefix: String) async throws(AlarmError) -> AlarmRecord {
        try Self.decode(AlarmRecord.self, from: try await call(.get(id: idPrefix)))
    }

    /// Schedules `request` under `id`; returns the alarm as the agent stored it.
    @ClientCallActor
    package func schedule(id: UUID, request: AlarmRequest) async throws(AlarmError) -> AlarmRecord {
        try Self.decode(AlarmRecord.self, from: try await call(.schedule(id: id, configuration: try Self.encode(request))))
    }

    /// Gives the alarm whose id starts with `idPrefix` a new configuration, keeping its id.
    @ClientCallActor
    package func update(_ idPrefix: String, request: AlarmRequest) async throws(AlarmError) -> AlarmRecord {
        try Self.decode(AlarmRecord.self, from: try await call(.update(id: idPrefix, configuration: try Self.encode(request))))
    }

    /// Undoes a skip: the occurrence it passed over rings after all.
    @ClientCallActor
    package func unskip(_ idPrefix: String) async throws(AlarmError) -> AlarmRecord {
        try Self.decode(AlarmRecord.self, from: try await call(.unskip(id: idPrefix)))
    }

    /// Schedules `record`, cancelled, again as it stood then (Undo): its id, a snooze still
    /// ahead, a skip, off if it was; the agent's rules decide what still holds.
    @ClientCallActor
    package func restore(_ record: AlarmRecord) async throws(AlarmError) -> AlarmRecord {
        let text: String
        do { text = String(decoding: try JSONCoding.compactEncoder.encode(record), as: UTF8.self) } catch {
            throw .invalidConfiguration("the alarm cannot be encoded: \(error)")
        }
        return try Self.decode(AlarmRecord.self, from: try await call(.restore(record: text)))
    }

    /// Skips the next occurrence of a repeating alarm.
    @ClientCallActor
    package func skip(_ idPrefix: String) async throws(AlarmError) -> AlarmRecord? {
        try Self.decode(AlarmRecord?.self, from: try await call(.skip(id: idPrefix)))
    }

    /// Silences an alarm but keeps it (`enabled: false`), or turns it on again.
    @ClientCallActor
    package func setEnabled(_ enabled: Bool, _ idPrefix: String) async throws(AlarmError) -> AlarmRecord {
        try Self.decode(AlarmRecord.self, from: try await call(.setEnabled(enabled, id: idPrefix)))
    }

    /// Applies `action` to the alarm whose id starts with `idPrefix`; returns it afterwards,
    /// or `nil` when it has ended.
    @discardableResult
    @ClientCallActor
    package func apply(_ action: AlarmAction, to idPrefix: String) async throws(AlarmError) -> AlarmRecord? {
        try Self.decode(AlarmRecord?.self, from: try await call(.apply(action, id: idPrefix)))
    }

    /// Snoozes the ringing alarm `idPrefix` names for `seconds` instead of its own snooze
    /// length (a Reveille extension); returns it afterwards.
    @discardableResult
    @ClientCallActor
    package func snooze(_ idPrefix: String, for seconds: TimeInterval) async throws(AlarmError) -> AlarmRecord? {
        try Self.decode(AlarmRecord?.self, from: try await call(.snooze(id: idPrefix, seconds: seconds)))
    }

    /// Presses one of the ringing alarm's buttons as the person (the alert window): as on its
    /// notification, the app's intent runs and it hears the press. Returns the alarm after.
    @discardableResult
    @ClientCallActor
    package func press(_ button: AlarmButtonRole, on id: UUID) async throws(AlarmError) -> AlarmRecord? {
        try Self.decode(AlarmRecord?.self, from: try await call(.pressButton(id: id.uuidString, button: button)))
    }

    /// The occurrences that ended (the caller's alarms' only, for an app), newest first.
    @ClientCallActor
    package func history() async throws(AlarmError) -> [AlarmHistory.Entry] {
        try Self.decode([AlarmHistory.Entry].self, from: try await call(.history))
    }

    /// Whether the next alarm will wake the machine from suspend (the user's client only).
    @ClientCallActor
    package func wakeStatus() async throws(AlarmError) -> WakeStatus {
        try Self.decode(WakeStatus.self, from: try await call(.wakeStatus))
    }

    /// Every sound the agent can resolve by name.
    @ClientCallActor
    package func sounds() async throws(AlarmError) -> [SoundEntry] {
        try Self.decode([SoundEntry].self, from: try await call(.listSounds))
    }

    /// The sound outputs alarms can ring on (the user's client only).
    @ClientCallActor
    package func outputs() async throws(AlarmError) -> [OutputEntry] {
        try Self.decode([OutputEntry].self, from: try await call(.listOutputs))
    }

    /// Plays `sound` (a name, or a path for the user's CLI) for `seconds`; returns the file played.
    @ClientCallActor
    package func playSound(_ sound: String, seconds: Double) async throws(AlarmError) -> String {
        try await call(.playSound(name: sound, seconds: seconds))
    }

    /// The agent's settings (the user's client only).
    @ClientCallActor
    package func settings() async throws(AlarmError) -> AgentSettings {
        try Self.settings(from: try await call(.settings))
    }

    /// Changes the settings `changes` names (a JSON object, `AgentSettings.changed(by:)`);
    /// returns every setting after (the user's client only).
    @ClientCallActor
    package func setSettings(_ changes: String) async throws(AlarmError) -> AgentSettings {
        try Self.settings(from: try await call(.setSettings(changes: changes)))
    }

    /// The agent's answer read as a file is: a key a newer agent has is passed over.
    private static func settings(from text: String) throws(AlarmError) -> AgentSettings {
        do { return try AgentSettings().changed(by: text, place: "the agent's settings", unknownKeys: .passOver) } catch {
            throw .agentUnavailable("reveille-agent answered settings this client cannot read (\(error)); is it a different version?")
        }
    }

    /// Plays `sound` for `seconds` at the ring volume `volume` (0.001 to 1, linear), stopping the preview
    /// that plays; returns the file played (the user's client only).
    @ClientCallActor
    package func previewSound(_ sound: String, seconds: Double, volume: Double) async throws(AlarmError) -> String {
        try await call(.previewSound(name: sound, seconds: seconds, volume: volume))
    }

    /// Stops the sound a preview plays (the user's client only).
    @ClientCallActor
    package func stopPreview() async throws(AlarmError) {
        _ = try await call(.stopPreview)
    }

    /// `list()` if an agent runs now; never starts one (shell completion).
    @ClientCallActor
    package func listIfRunning() async throws(AlarmError) -> [AlarmRecord] {
        try await agentIsRunning() ? try await list() : []
    }

    /// `sounds()` if an agent runs now; never starts one (shell completion).
    @ClientCallActor
    package func soundsIfRunning() async throws(AlarmError) -> [SoundEntry] {
        try await agentIsRunning() ? try await sounds() : []
    }

    /// Whether any process owns the agent's bus name (`org.freedesktop.DBus.NameHasOwner`).
    @ClientCallActor
    package func agentIsRunning() async throws(AlarmError) -> Bool {
        let bus = try bus()
        do {
            return try await Self.busDaemon(bus, "NameHasOwner", timeoutMilliseconds: 5000).first == .bool(true)
        } catch {
            throw .agentUnavailable("the session bus did not answer: \(error.message)")
        }
    }

    // MARK: The one call and the one paging loop

    /// Calls the agent and returns its answer (JSON text).
    @ClientCallActor
    package func call(_ call: AgentCall) async throws(AlarmError) -> String {
        try await reply(call).first?.string ?? "null"
    }

    /// `call`, with every argument of the reply.
    @ClientCallActor
    package func reply(_ call: AgentCall) async throws(AlarmError) -> [Variant] {
        switch try await outcome(call) {
        case .success(let reply): return reply
        case .failure(let error): throw Self.alarmError(error)
        }
    }

    /// A list page's method: `ListPage`, or `ListPageAndWake` with the user's wake status.
    private enum PageMethod { case listPage, listPageAndWake }

    /// Every alarm the caller may see, a page at a time (no reply carries more than
    /// `WireLimits.pageBytes`, whatever the number of alarms); `read` takes a reply apart into
    /// the page's JSON and the next page's `after` ("" at the end). `nil` from an agent older
    /// than `method`.
    @ClientCallActor
    private func pages<Element: Decodable & Sendable>(
        _ type: Element.Type, method: PageMethod,
        read: ([Variant]) throws(AlarmError) -> (alarms: String, next: String)
    ) async throws(AlarmError) -> [Element]? {
        var elements: [Element] = []
        var after = ""
        repeat {
            let call: AgentCall = switch method {
            case .listPage: .listPage(after: after, limit: 0)
            case .listPageAndWake: .listPageAndWake(after: after, limit: 0)
            }
            let reply: [Variant]
            switch try await outcome(call) {
            case .success(let answer): reply = answer
            case .failure(let error) where error.name == "org.freedesktop.DBus.Error.UnknownMethod" && after.isEmpty: return nil
            case .failure(let error): throw Self.alarmError(error)
            }
            let page = try read(reply)
            elements += try Self.decodeList(Element.self, from: page.alarms)
            after = page.next
        } while !after.isEmpty
        return elements
    }

    /// `pages` by `ListPage`, which every agent answers.
    @ClientCallActor
    private func pages<Element: Decodable & Sendable>(_ type: Element.Type) async throws(AlarmError) -> [Element] {
        let pages = try await pages(type, method: .listPage) { reply in
            (reply.first?.string ?? "[]", reply.dropFirst().first?.string ?? "")
        }
        guard let pages else { throw .agentUnavailable("reveille-agent does not answer ListPage") }
        return pages
    }

    /// The call's reply, or the bus's error; throws only when no agent could be reached. The one
    /// retry loop: an app whose agent left (or that has not met one yet) says Hello to the agent
    /// that owns the name now, starting one by D-Bus activation if none runs, and calls again.
    /// A call that may wait for the user (a prompt) has no timeout; one whose task is cancelled
    /// ends at once with the cancellation, asked again nowhere.
    @ClientCallActor
    private func outcome(_ call: AgentCall) async throws(AlarmError) -> Result<[Variant], BusError> {
        let (method, arguments) = Self.wire(call)
        // A refusal that asks to call again (the agent's or the bus's budget, a look-up of who
        // calls that a flooded bus did not answer in time) ran nothing: asked again, 0.1 s
        // doubling to 2 s, for up to `busyRetrySeconds`.
        let retryUntil = SystemClock.bootTime + Self.busyRetrySeconds
        var pause = 0.1, departures = 0
        while departures < 3 {
            // The user's calls go by the agent's direct line where it has one: no flood of
            // the bus holds them back. An app's go by the bus, to the agent it said Hello to, and
            // so does a subscription: the signals come where it was made, and are heard on the bus.
            let direct = isUser && !call.subscribes ? directLine() : nil
            let bus: BusConnection
            if let direct { bus = direct } else { bus = try self.bus() }
            var destination: String? = direct == nil ? AgentInterface.busName : nil
            if !isUser {
                if let known = state.withLock({ $0.introducedTo }) {
                    destination = known
                } else if let agent = try await introduce(on: bus) {
                    destination = agent
                } else {
                    departures += 1
                    continue  // that agent left between GetNameOwner and Hello: introduce this app to the next one
                }
            }
            do {
                return .success(try await bus.callFromClient(destination: destination, path: AgentInterface.objectPath,
                                                             interface: AgentInterface.interface, method: method, arguments: arguments,
                                                             timeoutMilliseconds: call.waitsForUser ? Int32.max : 25_000, autoStart: true))
            } catch where error.isCancellation {
                return .failure(error)
            } catch where direct != nil && error.name.hasPrefix("org.gtk.") {
                // Not the agent's answer but the line's failure (the agent ended): by the bus.
                state.withLock { $0.direct = nil }
                departures += 1
            } catch where error.isServiceMissing && !isUser {
                // It left: the next agent hears this app's Hello first.
                state.withLock { if $0.introducedTo == destination { $0.introducedTo = nil } }
                departures += 1
            } catch where error.name == Self.busyName && SystemClock.bootTime + pause < retryUntil {
                await ClientCallActor.pause(seconds: pause)
                pause = min(2, pause * 2)
            } catch {
                return .failure(error)
            }
        }
        throw .agentUnavailable("reveille-agent kept leaving the bus during one call")
    }

    /// Starts the agent if none runs (D-Bus activation), says Hello to it by its unique name,
    /// and returns that name; `nil` when that agent left before it heard the Hello.
    @ClientCallActor
    private func introduce(on bus: BusConnection) async throws(AlarmError) -> String? {
        let agent: String
        do {
            if let owner = try? await Self.busDaemon(bus, "GetNameOwner").first?.string {
                agent = owner
            } else {
                _ = try await Self.startByActivation(on: bus)
                agent = try await Self.busDaemon(bus, "GetNameOwner").first?.string ?? ""
            }
        } catch {
            throw Self.alarmError(error)
        }
        let (method, arguments) = Self.wire(.hello(appID: appID, usageDescription: usageDescription ?? ""))
        do {
            _ = try await bus.callFromClient(destination: agent, path: AgentInterface.objectPath, interface: AgentInterface.interface,
                                             method: method, arguments: arguments, timeoutMilliseconds: 25_000, autoStart: false)
        } catch where error.isServiceMissing {
            return nil
        } catch {
            throw Self.alarmError(error)
        }
        state.withLock { $0.introducedTo = agent }
        return agent
    }

    /// The bus daemon's `method` about the agent's bus name.
    @ClientCallActor
    private static func busDaemon(_ bus: BusConnection, _ method: String, timeoutMilliseconds: Int32 = 25_000) async throws(BusError) -> [Variant] {
        try await bus.callFromClient(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                     method: method, arguments: [.string(AgentInterface.busName)], timeoutMilliseconds: timeoutMilliseconds,
                                     autoStart: false)
    }

    /// Asks the bus to start the agent from its activation file (`StartServiceByName`): the
    /// answer comes once the started agent owns its name (or at once when one already does), so
    /// nothing is polled. `ServiceUnknown` where no activation file is installed.
    @ClientCallActor
    private static func startByActivation(on bus: BusConnection) async throws(BusError) -> AgentActivation {
        // 1: DBUS_START_REPLY_SUCCESS, 2: DBUS_START_REPLY_ALREADY_RUNNING.
        let reply = try await bus.callFromClient(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                                 interface: "org.freedesktop.DBus", method: "StartServiceByName",
                                                 arguments: [.string(AgentInterface.busName), .uint32(0)], timeoutMilliseconds: 25_000,
                                                 autoStart: false)
        return reply.first == .uint32(1) ? .started : .alreadyRunning
    }

    /// The user's client (the CLI) starting the agent: by D-Bus activation, which answers once it
    /// owns its name; `.noActivationFile` where the session's bus has none for it (Reveille not
    /// installed where the bus looks, a build run from its folder): the caller starts it itself.
    @ClientCallActor
    package func startAgentByActivation() async throws(AlarmError) -> AgentActivation {
        let bus = try bus()
        do {
            return try await Self.startByActivation(on: bus)
        } catch where error.isServiceMissing {
            return .noActivationFile
        } catch {
            throw Self.alarmError(error)
        }
    }

    /// The agent's direct line (`DirectLine`) on this client's bus, connected on first use;
    /// `nil` where it has none (no runtime folder, no agent listening).
    private func directLine() -> BusConnection? {
        state.withLock { state in
            if let direct = state.direct { return direct }
            guard SystemClock.bootTime >= state.directNextTry else { return nil }
            state.directNextTry = SystemClock.bootTime + Self.directLineRetrySeconds
            guard let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/"),
                  let address = busAddress ?? BusConnection.sessionAddress() else { return nil }
            state.direct = DirectLine.connect(runtimeDirectory: runtime, busAddress: address)
            return state.direct
        }
    }

    /// How long a client goes by the bus after the direct line was not there or failed.
    static let directLineRetrySeconds = 5.0

    /// The bus connection, opened on first use.
    func bus() throws(AlarmError) -> BusConnection {
        try state.withLock { state throws(AlarmError) -> BusConnection in
            if let bus = state.bus { return bus }
            do {
                let bus = try busAddress.map { address throws(BusError) in try BusConnection.connect(address: address) }
                    ?? BusConnection.session()
                state.bus = bus
                return bus
            } catch let error as BusError {
                throw .agentUnavailable("cannot connect to the session bus (\(error.message)); is DBUS_SESSION_BUS_ADDRESS set?")
            } catch {
                throw .agentUnavailable("cannot connect to the session bus (\(error)); is DBUS_SESSION_BUS_ADDRESS set?")
            }
        }
    }

    // MARK: The blocking API

    /// Runs `request` (asynchronous calls of this client) and blocks this thread until it is
    /// done: the blocking API, on any thread (`ClientCallActor.blocking`).
    package func blocking<Value: Sendable>(_ request: @escaping @Sendable @ClientCallActor (AgentClient) async throws(AlarmError) -> Value)
        throws(AlarmError) -> Value {
        try ClientCallActor.blocking { () async throws(AlarmError) -> Value in try await request(self) }
    }

    /// `requestAuthorization`, blocking.
    package func requestAuthorization() throws(AlarmError) -> AuthorizationState {
        try blocking { client async throws(AlarmError) in try await client.requestAuthorization() }
    }

    /// `authorizationState`, blocking.
    package func authorizationState() throws(AlarmError) -> AuthorizationState {
        try blocking { client async throws(AlarmError) in try await client.authorizationState() }
    }

    /// `authorizations`, blocking.
    package func authorizations() throws(AlarmError) -> [AppAuthorization] {
        try blocking { client async throws(AlarmError) in try await client.authorizations() }
    }

    /// `setAuthorization`, blocking.
    package func setAuthorization(_ state: AuthorizationState, for app: String) throws(AlarmError) {
        try blocking { client async throws(AlarmError) in try await client.setAuthorization(state, for: app) }
    }

    /// `list`, blocking.
    package func list() throws(AlarmError) -> [AlarmRecord] {
        try blocking { client async throws(AlarmError) in try await client.list() }
    }

    /// `listings`, blocking.
    package func listings() throws(AlarmError) -> [AlarmListing] {
        try blocking { client async throws(AlarmError) in try await client.listings() }
    }

    /// `listingsAndWake`, blocking.
    package func listingsAndWake() throws(AlarmError) -> (listings: [AlarmListing], wake: WakeStatus?) {
        try blocking { client async throws(AlarmError) in try await client.listingsAndWake() }
    }

    /// `alarm`, blocking.
    package func alarm(_ idPrefix: String) throws(AlarmError) -> AlarmRecord {
        try blocking { client async throws(AlarmError) in try await client.alarm(idPrefix) }
    }

    /// `schedule`, blocking.
    package func schedule(id: UUID, request: AlarmRequest) throws(AlarmError) -> AlarmRecord {
        try blocking { client async throws(AlarmError) in try await client.schedule(id: id, request: request) }
    }

    /// `update`, blocking.
    package func update(_ idPrefix: String, request: AlarmRequest) throws(AlarmError) -> AlarmRecord {
        try blocking { client async throws(AlarmError) in try await client.update(idPrefix, request: request) }
    }

    /// `unskip`, blocking.
    package func unskip(_ idPrefix: String) throws(AlarmError) -> AlarmRecord {
        try blocking { client async throws(AlarmError) in try await client.unskip(idPrefix) }
    }

    /// `restore`, blocking.
    package func restore(_ record: AlarmRecord) throws(AlarmError) -> AlarmRecord {
        try blocking { client async throws(AlarmError) in try await client.restore(record) }
    }

    /// `skip`, blocking.
    package func skip(_ idPrefix: String) throws(AlarmError) -> AlarmRecord? {
        try blocking { client async throws(AlarmError) in try await client.skip(idPrefix) }
    }

    /// `setEnabled`, blocking.
    package func setEnabled(_ enabled: Bool, _ idPrefix: String) throws(AlarmError) -> AlarmRecord {
        try blocking { client async throws(AlarmError) in try await client.setEnabled(enabled, idPrefix) }
    }

    /// `apply`, blocking.
    @discardableResult
    package func apply(_ action: AlarmAction, to idPrefix: String) throws(AlarmError) -> AlarmRecord? {
        try blocking { client async throws(AlarmError) in try await client.apply(action, to: idPrefix) }
    }

    /// `snooze`, blocking.
    @discardableResult
    package func snooze(_ idPrefix: String, for seconds: TimeInterval) throws(AlarmError) -> AlarmRecord? {
        try blocking { client async throws(AlarmError) in try await client.snooze(idPrefix, for: seconds) }
    }

    /// `press`, blocking.
    @discardableResult
    package func press(_ button: AlarmButtonRole, on id: UUID) throws(AlarmError) -> AlarmRecord? {
        try blocking { client async throws(AlarmError) in try await client.press(button, on: id) }
    }

    /// `history`, blocking.
    package func history() throws(AlarmError) -> [AlarmHistory.Entry] {
        try blocking { client async throws(AlarmError) in try await client.history() }
    }

    /// `wakeStatus`, blocking.
    package func wakeStatus() throws(AlarmError) -> WakeStatus {
        try blocking { client async throws(AlarmError) in try await client.wakeStatus() }
    }

    /// `sounds`, blocking.
    package func sounds() throws(AlarmError) -> [SoundEntry] {
        try blocking { client async throws(AlarmError) in try await client.sounds() }
    }

    /// `outputs`, blocking.
    package func outputs() throws(AlarmError) -> [OutputEntry] {
        try blocking { client async throws(AlarmError) in try await client.outputs() }
    }

    /// `playSound`, blocking.
    package func playSound(_ sound: String, seconds: Double) throws(AlarmError) -> String {
        try blocking { client async throws(AlarmError) in try await client.playSound(sound, seconds: seconds) }
    }

    /// `settings`, blocking.
    package func settings() throws(AlarmError) -> AgentSettings {
        try blocking { client async throws(AlarmError) in try await client.settings() }
    }

    /// `setSettings`, blocking.
    package func setSettings(_ changes: String) throws(AlarmError) -> AgentSettings {
        try blocking { client async throws(AlarmError) in try await client.setSettings(changes) }
    }

    /// `previewSound`, blocking.
    package func previewSound(_ sound: String, seconds: Double, volume: Double) throws(AlarmError) -> String {
        try blocking { client async throws(AlarmError) in try await client.previewSound(sound, seconds: seconds, volume: volume) }
    }

    /// `stopPreview`, blocking.
    package func stopPreview() throws(AlarmError) {
        try blocking { client async throws(AlarmError) in try await client.stopPreview() }
    }

    /// `listIfRunning`, blocking.
    package func listIfRunning() throws(AlarmError) -> [AlarmRecord] {
        try blocking { client async throws(AlarmError) in try await client.listIfRunning() }
    }

    /// `soundsIfRunning`, blocking.
    package func soundsIfRunning() throws(AlarmError) -> [SoundEntry] {
        try blocking { client async throws(AlarmError) in try await client.soundsIfRunning() }
    }

    /// `agentIsRunning`, blocking.
    package func agentIsRunning() throws(AlarmError) -> Bool {
        try blocking { client async throws(AlarmError) in try await client.agentIsRunning() }
    }

    /// `call`, blocking.
    package func call(_ call: AgentCall) throws(AlarmError) -> String {
        try blocking { client async throws(AlarmError) in try await client.call(call) }
    }

    /// `reply`, blocking.
    package func reply(_ call: AgentCall) throws(AlarmError) -> [Variant] {
        try blocking { client async throws(AlarmError) in try await client.reply(call) }
    }
    /// `startAgentByActivation`, blocking.
    package func startAgentByActivation() throws(AlarmError) -> AgentActivation {
        try blocking { client async throws(AlarmError) in try await client.startAgentByActivation() }
    }

    // MARK: Encoding and decoding

    /// The one encoding of a call for the bus.
    package static func wire(_ call: AgentCall) -> (method: String, arguments: [Variant]) {
        let (method, arguments) = call.wire
        return (method, arguments.map { argument in
            switch argument {
            case .string(let text): .string(text)
            case .number(let value): .double(value)
            case .count(let value): .uint32(value)
            case .dictionary, .other: .vardict([:])
            }
        })
    }

    /// The refusal of a call the agent (or the bus) asks to be made again later.
    static let busyName = "org.freedesktop.DBus.Error.LimitsExceeded"
    /// How long a call refused as busy is asked again before the refusal is the answer.
    package static let busyRetrySeconds = 20.0

    /// The agent's error, or why the agent could not be reached.
    static func alarmError(_ error: BusError) -> AlarmError {
        if error.name.hasPrefix(AgentInterface.errorPrefix) {
            return AlarmError(code: String(error.name.dropFirst(AgentInterface.errorPrefix.count)), reason: error.message)
        }
        if error.isServiceMissing {
            return .agentUnavailable("no reveille-agent is running on the session bus, and none could be started (\(error.message))")
        }
        return .agentUnavailable("reveille-agent did not answer: \(error.message)")
    }

    private static func state(_ text: String) throws(AlarmError) -> AuthorizationState {
        guard let state = AuthorizationState(rawValue: text) else {
            throw .agentUnavailable("reveille-agent answered an unknown authorization state '\(text)'")
        }
        return state
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from json: String) throws(AlarmError) -> Value {
        do {
            return try JSONCoding.decoder.decode(type, from: Data(json.utf8))
        } catch {
            throw .agentUnavailable("reveille-agent sent an answer this client cannot read: \(error)")
        }
    }

    private static func encode(_ request: AlarmRequest) throws(AlarmError) -> String {
        do {
            return String(decoding: try JSONCoding.compactEncoder.encode(request), as: UTF8.self)
        } catch {
            throw .invalidConfiguration("the configuration cannot be encoded: \(error)")
        }
    }

    /// A list of alarms; the agent writes one per line, so a long one decodes in parallel.
    static func decodeList<Element: Decodable & Sendable>(_ type: Element.Type, from json: String) throws(AlarmError) -> [Element] {
        do {
            return try JSONLines.decode([Element].self, from: Data(json.utf8), inParallel: PosixThread.runAll)
        } catch {
            throw .agentUnavailable("reveille-agent sent an answer this client cannot read: \(error)")
        }
    }
}
