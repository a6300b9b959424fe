import FoundationEssentials
package import ReveilleBus
@_exported public import ReveilleModel
package import ReveilleCore

/// A sound the agent can ring: its name, file, and where it was found (`user`, `bundled`, `theme`).
/// A sound output (a sink) as `ListOutputs` answers: the name `ringOn` takes, and what a person reads.
package struct OutputEntry: Codable, Sendable, Equatable {
    package var name: String
    package var description: String
}

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

/// A connection to reveille-agent over the session bus, with the agent's full view of
/// each alarm (`AlarmRecord`). `AlarmManager` builds AlarmKit's API on it; the CLI uses it directly.
///
/// A client with an app id other than `ClientIdentity.userAppID` is an app: it introduces
/// itself (Hello) before its first call, sees only its own alarms, and needs the user's
/// authorization to schedule. The user's client sees and manages everything.
@GLibActor
package final class AgentClient {
    /// The app this client schedules for.
    package nonisolated var appID: String { link.appID }
    /// Why the app wants alarms, shown when the user is asked (NSAlarmKitUsageDescription).
    package nonisolated var usageDescription: String? { link.usageDescription }
    private nonisolated let link: AgentLink

    /// `busAddress` picks a bus other than the session bus (tests).
    package nonisolated init(appID: String, usageDescription: String? = nil, busAddress: String? = nil) {
        link = AgentLink(appID: appID, usageDescription: usageDescription, busAddress: busAddress)
    }

    private nonisolated var isUser: Bool { link.isUser }

    /// The identity the agent gave this client (starting the agent if none runs).
    @discardableResult
    package func introduce() async throws(AlarmError) -> ClientIdentity {
        guard !isUser else { return .user }
        return try Self.decode(ClientIdentity.self, from: try await introduceOffLoop().identity)
    }

    /// Hello blocks (it may wait for the agent to start), so it runs on a thread of its own,
    /// never the loop's.
    private nonisolated func introduceOffLoop() async throws(AlarmError) -> (agent: String, identity: String) {
        let link = self.link
        let result: Result<(agent: String, identity: String), AlarmError> = await withCheckedContinuation { continuation in
            PosixThread {
                continuation.resume(returning: Result { () throws(AlarmError) in try link.introduce() })
            }.detach()
        }
        return try result.get()
    }

    /// Calls the agent and waits on this thread for its answer (JSON text): AlarmKit's
    /// synchronous API. Safe on any thread, the GLib loop's included.
    package nonisolated func callBlocking(_ call: AgentCall) throws(AlarmError) -> String {
        try link.callBlocking(call)
    }

    /// Asks the user (once; later calls return the decision) whether this app may schedule alarms.
    package func requestAuthorization() async throws(AlarmError) -> AuthorizationState {
        try Self.state(try await call(.requestAuthorization))
    }

    /// This app's current decision.
    package func authorizationState() async throws(AlarmError) -> AuthorizationState {
        try Self.state(try await call(.authorizationState))
    }

    /// Every app's decision (the user's client only).
    package func authorizations() async throws(AlarmError) -> [AppAuthorization] {
        try Self.decode([AppAuthorization].self, from: try await call(.authorizations))
    }

    /// Sets an app's decision (the user's client only).
    package func setAuthorization(_ state: AuthorizationState, for app: String) async throws(AlarmError) {
        _ = try await call(.setAuthorization(appID: app, state: state))
    }

    /// All alarms the agent holds, in its display order.
    package func list() async throws(AlarmError) -> [AlarmRecord] {
        try await pages(AlarmRecord.self).sortedForDisplay()
    }

    /// The same list, read only as far as a table of alarms needs (`AlarmListing`).
    package func listings() async throws(AlarmError) -> [AlarmListing] {
        try await pages(AlarmListing.self).sortedForDisplay()
    }

    /// Every alarm the caller may see, a `ListPage` at a time (no reply carries more than
    /// `WireLimits.pageBytes`, whatever the number of alarms).
    private func pages<Element: Decodable & Sendable>(_ type: Element.Type) async throws(AlarmError) -> [Element] {
        var elements: [Element] = []
        var after = ""
        repeat {
            let reply = try await callReply(.listPage(after: after, limit: 0))
            elements += try Self.decodeList(Element.self, from: reply.first?.string ?? "[]")
            after = reply.dropFirst().first?.string ?? ""
        } while !after.isEmpty
        return elements
    }

    /// The alarm whose id starts with `idPrefix`.
    package func alarm(_ idPrefix: String) async throws(AlarmError) -> AlarmRecord {
        try Self.decode(AlarmRecord.self, from: try await call(.get(id: idPrefix)))
    }

    /// Schedules `request` under `id`; returns the alarm as the agent stored it.
    package func schedule(id: UUID, request: AlarmRequest) async throws(AlarmError) -> AlarmRecord {
        let reply = try await call(.schedule(id: id, configuration: try Self.encode(request)))
        return try Self.decode(AlarmRecord.self, from: reply)
    }

    /// Gives the alarm whose id starts with `idPrefix` a new configuration, keeping its id.
    package func update(_ idPrefix: String, request: AlarmRequest) async throws(AlarmError) -> AlarmRecord {
        try Self.decode(AlarmRecord.self, from: try await call(.update(id: idPrefix, configuration: try Self.encode(request))))
    }

    /// Undoes a skip: the occurrence it passed over rings after all.
    package func unskip(_ idPrefix: String) async throws(AlarmError) -> AlarmRecord {
        try Self.decode(AlarmRecord.self, from: try await call(.unskip(id: idPrefix)))
    }

    /// Skips the next occurrence of a repeating alarm.
    package func skip(_ idPrefix: String) async throws(AlarmError) -> AlarmRecord {
        try Self.decode(AlarmRecord.self, from: try await call(.skip(id: idPrefix)))
    }

    /// Silences an alarm but keeps it (`enabled: false`), or turns it on again.
    package func setEnabled(_ enabled: Bool, _ idPrefix: String) async throws(AlarmError) -> AlarmRecord {
        try Self.decode(AlarmRecord.self, from: try await call(.setEnabled(enabled, id: idPrefix)))
    }

    /// Applies `action` to the alarm whose id starts with `idPrefix`; returns it afterwards,
    /// or `nil` when it has ended.
    package func apply(_ action: AlarmAction, to idPrefix: String) async throws(AlarmError) -> AlarmRecord? {
        try Self.decode(AlarmRecord?.self, from: try await call(.apply(action, id: idPrefix)))
    }

    /// Snoozes the ringing alarm `idPrefix` names for `seconds` instead of its own snooze
    /// length (a Reveille extension); returns it afterwards.
    package func snooze(_ idPrefix: String, for seconds: TimeInterval) async throws(AlarmError) -> AlarmRecord? {
        try Self.decode(AlarmRecord?.self, from: try await call(.snooze(id: idPrefix, seconds: seconds)))
    }

    /// Presses one of the ringing alarm's buttons as the person (the alert window): as on its
    /// notification, the app's intent runs and it hears the press. Returns the alarm after.
    package func press(_ button: AlarmButtonRole, on id: UUID) async throws(AlarmError) -> AlarmRecord? {
        try Self.decode(AlarmRecord?.self, from: try await call(.pressButton(id: id.uuidString, button: button)))
    }

    // MARK: Blocking calls (AlarmKit's synchronous API)

    /// `list()`, waiting on this thread.
    package nonisolated func listBlocking() throws(AlarmError) -> [AlarmRecord] {
        try pagesBlocking(AlarmRecord.self).sortedForDisplay()
    }

    /// `listings()`, waiting on this thread: no loop thread and no task hop, which a command
    /// that only lists does not need (`reveille list`).
    package nonisolated func listingsBlocking() throws(AlarmError) -> [AlarmListing] {
        try pagesBlocking(AlarmListing.self).sortedForDisplay()
    }

    /// `listings()` and, for the user's client, `wakeStatus()` (`nil` when it could not be had),
    /// waiting on this thread: one `ListPageAndWake` a page. From an agent older than that
    /// method, `ListPage`s and `WakeStatus`.
    package nonisolated func listingsAndWakeBlocking() throws(AlarmError) -> (listings: [AlarmListing], wake: WakeStatus?) {
        var listings: [AlarmListing] = []
        var wake: WakeStatus?
        var after = ""
        repeat {
            guard let reply = try link.callBlockingReplyIfImplemented(.listPageAndWake(after: after, limit: 0)) else {
                return (try listingsBlocking(), isUser ? try? wakeStatusBlocking() : nil)
            }
            let page = try Self.pageAndWake(reply)
            listings += try Self.decodeList(AlarmListing.self, from: page.alarms)
            wake = wake ?? page.wake
            after = page.next
        } while !after.isEmpty
        return (listings.sortedForDisplay(), wake)
    }

    /// A `ListPageAndWake` reply read: the page's JSON, the next page's `after`, and the wake
    /// answer (`nil` when empty, as an app is sent). A reply of another shape is refused, saying how.
    package nonisolated static func pageAndWake(_ reply: [Variant]) throws(AlarmError) -> (alarms: String, next: String, wake: WakeStatus?) {
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

    /// `pages`, waiting on this thread.
    private nonisolated func pagesBlocking<Element: Decodable & Sendable>(_ type: Element.Type) throws(AlarmError) -> [Element] {
        var elements: [Element] = []
        var after = ""
        repeat {
            let reply = try link.callBlockingReply(.listPage(after: after, limit: 0))
            elements += try Self.decodeList(Element.self, from: reply.first?.string ?? "[]")
            after = reply.dropFirst().first?.string ?? ""
        } while !after.isEmpty
        return elements
    }

    /// `wakeStatus()`, waiting on this thread.
    package nonisolated func wakeStatusBlocking() throws(AlarmError) -> WakeStatus {
        try Self.decode(WakeStatus.self, from: try callBlocking(.wakeStatus))
    }

    /// `agentIsRunning()`, waiting on this thread.
    package nonisolated func agentIsRunningBlocking() throws(AlarmError) -> Bool {
        try link.agentIsRunning()
    }

    /// `alarm(_:)` of a whole id, waiting on this thread.
    package nonisolated func alarmBlocking(_ id: UUID) throws(AlarmError) -> AlarmRecord {
        try Self.decode(AlarmRecord.self, from: try callBlocking(.get(id: id.uuidString)))
    }

    /// `apply(_:to:)` of a whole id, waiting on this thread.
    package nonisolated func applyBlocking(_ action: AlarmAction, to id: UUID) throws(AlarmError) {
        _ = try callBlocking(.apply(action, id: id.uuidString))
    }

    /// `snooze(_:for:)` of a whole id, waiting on this thread.
    package nonisolated func snoozeBlocking(_ id: UUID, for seconds: TimeInterval) throws(AlarmError) {
        _ = try callBlocking(.snooze(id: id.uuidString, seconds: seconds))
    }

    /// `listBlocking()` if an agent runs now; never starts one (shell completion).
    package nonisolated func listBlockingIfRunning() throws(AlarmError) -> [AlarmRecord] {
        guard try link.agentIsRunning() else { return [] }
        return try listBlocking()
    }

    /// The sounds, waiting on this thread, if an agent runs now; never starts one.
    package nonisolated func soundsBlockingIfRunning() throws(AlarmError) -> [SoundEntry] {
        guard try link.agentIsRunning() else { return [] }
        return try Self.decode([SoundEntry].self, from: try callBlocking(.listSounds))
    }

    /// `authorizationState()`, waiting on this thread.
    package nonisolated func authorizationStateBlocking() throws(AlarmError) -> AuthorizationState {
        try Self.state(try callBlocking(.authorizationState))
    }

    /// The occurrences that ended (the caller's alarms' only, for an app), newest first.
    package func history() async throws(AlarmError) -> [AlarmHistory.Entry] {
        try Self.decode([AlarmHistory.Entry].self, from: try await call(.history))
    }

    /// Whether the next alarm will wake the machine from suspend (the user's client only).
    package func wakeStatus() async throws(AlarmError) -> WakeStatus {
        try Self.decode(WakeStatus.self, from: try await call(.wakeStatus))
    }

    /// Every sound the agent can resolve by name.
    package func sounds() async throws(AlarmError) -> [SoundEntry] {
        try Self.decode([SoundEntry].self, from: try await call(.listSounds))
    }

    /// The sound outputs alarms can ring on (the user's client only).
    package func outputs() async throws(AlarmError) -> [OutputEntry] {
        try Self.decode([OutputEntry].self, from: try await call(.listOutputs))
    }

    /// Plays `sound` (a name, or a path for the user's CLI) for `seconds`; returns the file played.
    package func playSound(_ sound: String, seconds: Double) async throws(AlarmError) -> String {
        try await call(.playSound(name: sound, seconds: seconds))
    }

    /// Whether any process owns the agent's bus name (`org.freedesktop.DBus.NameHasOwner`).
    package func agentIsRunning() async throws(AlarmError) -> Bool {
        do {
            let reply = try await bus().call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                             interface: "org.freedesktop.DBus", method: "NameHasOwner",
                                             arguments: [.string(AgentInterface.busName)])
            return reply.first == .bool(true)
        } catch let error as BusError {
            throw .agentUnavailable("the session bus did not answer: \(error.message)")
        } catch {
            throw error as! AlarmError
        }
    }

    /// The full list now, then again after every change, until the sequence is dropped.
    /// The agent sends only what changed (`AlarmsUpdated`); the list is kept here. When the
    /// agent restarts, the stream subscribes again and goes on with the new agent's list.
    /// Ends at once when the session bus cannot be reached.
    package nonisolated func updates() -> AsyncThrowingStream<[AlarmRecord], any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [AlarmRecord].self, bufferingPolicy: .bufferingNewest(16))
        Task { @GLibActor in
            let bus: BusConnection
            do { bus = try self.bus() } catch { return continuation.finish(throwing: error) }
            let mirror = MirrorBox()
            let synchronize = { @GLibActor [weak self] in
                mirror.value.awaitList()
                guard let self else { return continuation.finish() }
                // Signals first, then the list a page at a time: what changes meanwhile
                // arrives as updates, which the mirror applies on the pages. A refusal (every
                // subscriber slot taken) ends the stream with it: a reader never waits on nothing.
                do {
                    try await self.call(.subscribeUpdates)
                    continuation.yield(mirror.value.received(list: try await self.pages(AlarmRecord.self)))
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            let subscription = bus.subscribe(sender: AgentInterface.busName, interface: AgentInterface.interface,
                                             name: "AlarmsUpdated", path: AgentInterface.objectPath) { signal in
                guard let changed = signal.arguments.first?.string.flatMap({ try? Self.decodeList(AlarmRecord.self, from: $0) }),
                      case .array(_, let removed)? = signal.arguments.dropFirst().first else { return }
                if let alarms = mirror.value.received(changed: changed, removed: removed.compactMap { $0.string.flatMap(UUID.init(uuidString:)) }) {
                    continuation.yield(alarms)
                }
            }
            // A new agent knows nothing of this subscriber: subscribe again when one appears
            // after the one that sent the list went away.
            var agentLeft = false
            let watch = bus.watchName(AgentInterface.busName) { owner in
                if owner == nil, mirror.value.isSynchronized { agentLeft = true }
                if owner != nil, agentLeft {
                    agentLeft = false
                    Task { @GLibActor in await synchronize() }
                }
            }
            continuation.onTermination = { _ in
                Task { @GLibActor in
                    bus.unsubscribe(subscription)
                    bus.unwatchName(watch)
                }
            }
            await synchronize()
        }
        return stream
    }

    /// The list an `updates()` stream keeps, shared by its callbacks on the loop.
    private final class MirrorBox {
        var value = AlarmListMirror()
    }

    /// Presses of this app's alarms' buttons (the alarm's id and `stop`, `secondary`, `pause`,
    /// `resume` or `cancel`), so a running app can react.
    package nonisolated func actions() -> AsyncStream<(alarmID: UUID, button: AlarmButtonRole)> {
        signals("ActionInvoked", first: { client throws(AlarmError) in
            _ = try await client.call(.subscribeUpdates)
            return nil
        }) { signal in
            guard let id = signal.arguments.first?.string.flatMap(UUID.init(uuidString:)),
                  let button = signal.arguments.dropFirst().first?.string.flatMap(AlarmButtonRole.init(rawValue:)) else { return nil }
            return (id, button)
        }
    }

    /// This app's alarms beginning to alert, and occurrences missed, while the app runs.
    package nonisolated func events() -> AsyncStream<AlarmEvent> {
        signals(nil, first: { client throws(AlarmError) in
            _ = try await client.call(.subscribeUpdates)
            return nil
        }) { signal in
            let arguments = signal.arguments.map { $0.string ?? "" }
            guard let id = arguments.first.flatMap(UUID.init(uuidString:)) else { return nil }
            switch signal.name {
            case "AlarmAlerting":
                return .alerting(id)
            case "AlarmMissed" where arguments.count == 3:
                guard let due = ISO8601Local.parse(arguments[1], defaultTimeZone: UTCTimeZone()),
                      let reason = MissReason(rawValue: arguments[2]) else { return nil }
                return .missed(id, dueDate: due, reason: reason)
            default:
                return nil
            }
        }
    }

    /// This app's decision now, then at every change.
    package nonisolated func authorizationUpdates() -> AsyncStream<AuthorizationState> {
        let appID = self.appID
        return signals("AuthorizationChanged", first: { client throws(AlarmError) in
            _ = try await client.call(.subscribeUpdates)
            return try await client.authorizationState()
        }) { signal in
            guard signal.arguments.first?.string == appID else { return nil }
            return signal.arguments.dropFirst().first?.string.flatMap(AuthorizationState.init(rawValue:))
        }
    }

    /// A stream of one signal's values (any of the agent's signals when `name` is `nil`):
    /// subscribe first (so nothing is missed), then the current value from `first` (if it has
    /// one), then each signal that `parse` accepts.
    private nonisolated func signals<Value: Sendable>(_ name: String?, first: @escaping @GLibActor (AgentClient) async throws(AlarmError) -> Value?,
                                                      parse: @escaping @Sendable (BusConnection.Signal) -> Value?) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(16))
        Task { @GLibActor in
            guard let bus = try? self.bus() else { return continuation.finish() }
            let subscription = bus.subscribe(sender: AgentInterface.busName, interface: AgentInterface.interface,
                                             name: name, path: AgentInterface.objectPath) { signal in
                if let value = parse(signal) { continuation.yield(value) }
            }
            continuation.onTermination = { _ in Task { @GLibActor in bus.unsubscribe(subscription) } }
            do {
                if let current = try await first(self) { continuation.yield(current) }
            } catch {
                // The agent is gone or refused: the stream simply has no first value.
            }
        }
        return stream
    }

    private func bus() throws(AlarmError) -> BusConnection { try link.bus() }

    /// Calls the agent; an app goes to the agent it introduced itself to (introducing itself
    /// first, and again to an agent that replaced it). A call that may wait for the user (a
    /// prompt) has no timeout.
    private func call(_ call: AgentCall) async throws(AlarmError) -> String {
        try await callReply(call).first?.string ?? "null"
    }

    /// `call`, with every argument of the reply.
    private func callReply(_ call: AgentCall) async throws(AlarmError) -> [Variant] {
        let (method, arguments) = AgentLink.wire(call)
        let waitsForUser = call.waitsForUser
        let bus = try bus()
        for attempt in 0..<2 {
            var destination = AgentInterface.busName
            if !isUser {
                if let known = link.introducedAgent { destination = known } else { destination = try await introduceOffLoop().agent }
            }
            do {
                return try await bus.call(destination: destination, path: AgentInterface.objectPath,
                                          interface: AgentInterface.interface, method: method, arguments: arguments,
                                          timeoutMilliseconds: waitsForUser ? Int32.max : 25_000)
            } catch where error.isServiceMissing && !isUser && attempt == 0 {
                link.forgetAgent(destination)  // it left: the next agent hears this app's Hello first
            } catch {
                throw AgentLink.alarmError(error)
            }
        }
        throw .agentUnavailable("reveille-agent went away twice during one call")
    }

    private nonisolated static func state(_ text: String) throws(AlarmError) -> AuthorizationState {
        guard let state = AuthorizationState(rawValue: text) else {
            throw .agentUnavailable("reveille-agent answered an unknown authorization state '\(text)'")
        }
        return state
    }

    private nonisolated static func decode<Value: Decodable>(_ type: Value.Type, from json: String) throws(AlarmError) -> Value {
        do {
            return try JSONCoding.decoder.decode(type, from: Data(json.utf8))
        } catch {
            throw .agentUnavailable("reveille-agent sent an answer this client cannot read: \(error)")
        }
    }

    private nonisolated static func encode(_ request: AlarmRequest) throws(AlarmError) -> String {
        do {
            return String(decoding: try JSONCoding.compactEncoder.encode(request), as: UTF8.self)
        } catch {
            throw .invalidConfiguration("the configuration cannot be encoded: \(error)")
        }
    }

    /// A list of alarms; the agent writes one per line, so a long one decodes in parallel.
    private nonisolated static func decodeList<Element: Decodable & Sendable>(_ type: Element.Type, from json: String) throws(AlarmError) -> [Element] {
        do {
            return try JSONLines.decode([Element].self, from: Data(json.utf8))
        } catch {
            throw .agentUnavailable("reveille-agent sent an answer this client cannot read: \(error)")
        }
    }
}
