import FoundationEssentials
import Logging
import ReveilleBus
import ReveilleCore

/// The agent's D-Bus interface (`AgentInterface`): decodes calls, hands them to the
/// scheduler, and answers with JSON or a named error. A bad call never harms the agent.
@GLibActor
final class AlarmService {
    private let bus: BusConnection
    private let scheduler: AlarmScheduler
    private let sounder: AlarmSounder
    private let registry: ClientRegistry
    private let authorizer: Authorizer
    private let logger: Logger
    /// Whether the next alarm will wake the machine from suspend (`WakeStatus`).
    var wakeStatus: (@GLibActor () -> WakeStatus)?
    /// Splits each change into what each subscriber's view of it is.
    private var views = AlarmViewUpdates()
    private let json = AlarmJSONCache()

    /// Calls waiting for the user's decision, by connection and by app.
    private var parked: [String: Int] = [:]
    private var parkedByApp: [String: Int] = [:]
    static let maximumParkedPerConnection = 8
    static let maximumParkedPerApp = 32
    /// The largest reply or signal sent, in bytes of JSON: D-Bus drops a connection that sends
    /// a message over its limit (128 MiB by default), and the agent would go with it.
    static let maximumMessageBytes = 64 << 20

    init(bus: BusConnection, scheduler: AlarmScheduler, sounder: AlarmSounder, authorizer: Authorizer,
         logger: Logger) throws(BusError) {
        self.bus = bus
        self.scheduler = scheduler
        self.sounder = sounder
        self.authorizer = authorizer
        self.logger = logger
        registry = ClientRegistry(bus: bus, logger: logger)
        try bus.register(path: AgentInterface.objectPath, introspectionXML: AgentInterface.introspectionXML) {
            [unowned self] call in self.handle(call)
        }
        authorizer.onChange = { [weak self] appID, state in self?.publishAuthorization(appID, state) }
    }

    /// Emits `AlarmsUpdated` to each subscriber whose view the change touched, with just what
    /// changed in it: each view's update is encoded once, whatever the number of subscribers.
    func publish(_ changes: [AlarmChange]) {
        json.forget(changes)
        let subscribers = registry.subscribers.map { (name: $0.name, view: AlarmViewUpdates.View($0.identity)) }
        let updates = views.split(changes, for: Set(subscribers.map(\.view)))
        var encoded: [AlarmViewUpdates.View: [Variant]] = [:]
        var alerting: [AlarmViewUpdates.View: [UUID]] = [:]
        for (view, update) in updates {
            alerting[view] = update.startedAlerting
            guard let changed = try? json.array(update.changed), changed.utf8.count <= Self.maximumMessageBytes else {
                logger.error("AlarmsUpdated for \(view) could not be encoded within \(Self.maximumMessageBytes >> 20) MiB; not sent")
                continue
            }
            encoded[view] = [.string(changed), .array(elementType: "s", update.removed.map { .string($0.uuidString) })]
        }
        for subscriber in subscribers {
            guard let arguments = encoded[subscriber.view] else { continue }
            emit("AlarmsUpdated", to: subscriber.name, arguments)
            for id in alerting[subscriber.view] ?? [] { emit("AlarmAlerting", to: subscriber.name, [.string(id.uuidString)]) }
        }
    }

    /// Tells the alarm's app (and the user's tools) that an occurrence was missed: due at
    /// `due` while nothing could ring it (`late`), or rang unanswered to its ring limit.
    func alarmMissed(_ alarm: AlarmRecord, due: Date, reason: MissReason) {
        let arguments: [Variant] = [.string(alarm.id.uuidString), .string(ISO8601Local.utcString(from: due)), .string(reason.rawValue)]
        for (name, identity) in registry.subscribers where identity.isUser || identity.appID == alarm.appID {
            emit("AlarmMissed", to: name, arguments)
        }
    }

    /// Tells the alarm's app (and the user's tools) that one of its buttons was pressed.
    func actionInvoked(on alarm: AlarmRecord, button: String) {
        for (name, identity) in registry.subscribers where identity.isUser || identity.appID == alarm.appID {
            emit("ActionInvoked", to: name, [.string(alarm.id.uuidString), .string(button)])
        }
    }

    private func publishAuthorization(_ appID: String, _ state: AuthorizationState) {
        for (name, identity) in registry.subscribers where identity.isUser || identity.appID == appID {
            emit("AuthorizationChanged", to: name, [.string(appID), .string(state.rawValue)])
        }
    }

    private func emit(_ signal: String, to name: String, _ arguments: [Variant]) {
        do {
            try bus.emitSignal(destination: name, path: AgentInterface.objectPath, interface: AgentInterface.interface,
                               name: signal, arguments: arguments)
        } catch {
            logger.error("could not emit \(signal) to \(name): \(error)")
        }
    }

    /// Answers on the loop, synchronously, except where the user must decide first: then the
    /// call is parked and answered from the prompt's callback.
    private func handle(_ call: MethodCall) {
        guard scheduler.isRunning else {
            // Between taking the bus name and the state folder (an agent it replaced is exiting).
            return call.fail(name: AgentInterface.errorPrefix + AlarmError.agentUnavailable("").code,
                             message: "reveille-agent is starting; try again in a moment")
        }
        let identity: ClientIdentity
        do { identity = try registry.identity(of: call.sender) } catch {
            logger.notice("\(call.method) from \(call.sender) refused: \(error.reason)")
            return call.fail(name: AgentInterface.errorPrefix + error.code, message: error.reason)
        }
        let waitsForTheUser = call.method == "RequestAuthorization"
            || (call.method == "Schedule" && !identity.isUser && authorizer.state(of: identity) == .notDetermined)
        guard waitsForTheUser else { return respond(call, from: identity) }
        // Calls waiting for the user's answer are kept: bounded per connection and per app.
        let bySender = parked[call.sender, default: 0], byApp = parkedByApp[identity.appID, default: 0]
        guard bySender < Self.maximumParkedPerConnection, byApp < Self.maximumParkedPerApp else {
            let error = AlarmError.invalidState("\(max(bySender, byApp)) calls of \(identity.appID) already wait for the user's decision; at most \(Self.maximumParkedPerConnection) per connection and \(Self.maximumParkedPerApp) per app may")
            return call.fail(name: AgentInterface.errorPrefix + error.code, message: error.reason)
        }
        parked[call.sender] = bySender + 1
        parkedByApp[identity.appID] = byApp + 1
        authorizer.request(for: identity, usageDescription: registry.client(call.sender)?.usageDescription) { [weak self] state in
            if let self {
                self.parked[call.sender] = self.parked[call.sender].flatMap { $0 > 1 ? $0 - 1 : nil }
                self.parkedByApp[identity.appID] = self.parkedByApp[identity.appID].flatMap { $0 > 1 ? $0 - 1 : nil }
            }
            if call.method == "RequestAuthorization" {
                call.reply([.string(state.rawValue)])
            } else {
                self?.respond(call, from: identity)
            }
        }
    }

    /// The user's tools are told of a sound that cannot be found (a person can correct it);
    /// an app's unknown name rings the default sound, as in AlarmKit. A path is never an app's.
    private func checkSound(_ sound: AlertConfiguration.AlertSound, for identity: ClientIdentity) throws(AlarmError) {
        do {
            _ = try sounder.library.resolve(sound, allowPaths: identity.isUser)
        } catch {
            guard !identity.isUser, case .named(let name) = sound, !name.contains("/") else { throw error }
            logger.notice("\(identity.appID) asked for sound '\(NotificationContent.displayable(name, limit: 100))', which is not installed; its alarm rings the default sound")
        }
    }

    private func respond(_ call: MethodCall, from identity: ClientIdentity) {
        do {
            let answer = try answer(call, from: identity)
            guard answer.utf8.count <= Self.maximumMessageBytes else {
                throw AlarmError.invalidState("the answer would be \(answer.utf8.count >> 20) MiB, more than a D-Bus message may carry; ask for less (Get one alarm)")
            }
            call.reply([.string(answer)])
        } catch let error as AlarmError {
            logger.notice("\(call.method) from \(call.sender) (\(identity.appID)) refused: \(error.reason)")
            call.fail(name: AgentInterface.errorPrefix + error.code, message: error.reason)
        } catch {
            call.fail(name: AgentInterface.errorPrefix + "Failed", message: "\(error)")
        }
    }

    private func answer(_ call: MethodCall, from identity: ClientIdentity) throws -> String {
        // GDBus has already checked the argument types against the introspection XML.
        let strings = call.arguments.map { $0.string ?? "" }
        let owner = identity.isUser ? nil : identity.appID
        switch call.method {
        case "Hello":
            return try Self.json(try registry.hello(call.sender, declaredID: strings[0], usageDescription: strings[1]))
        case "Subscribe":
            try registry.subscribe(call.sender, as: identity)
            return try json.array(visible(to: identity))
        case "List":
            return try json.array(visible(to: identity))
        case "Get":
            return try Self.json(scheduler.alarm(try scheduler.resolve(strings[0], owner: owner)))
        case "Schedule":
            let id = try Self.uuid(strings[0])
            let request = try Self.request(strings[1])
            try requireAuthorization(identity, sender: call.sender)
            try IntentRunner.check(request, for: identity)
            try checkSound(request.sound, for: identity)
            return try Self.json(try scheduler.schedule(id: id, request: request, appID: identity.appID))
        case "WakeStatus":
            // The next alarm's time is the user's, whichever app set it.
            try requireUser(identity, to: "ask whether alarms wake the machine")
            return try Self.json(wakeStatus?() ?? WakeStatus(wakes: false, reason: "the agent is starting", lead: 0))
        case "Update":
            let request = try Self.request(strings[1])
            try requireAuthorization(identity, sender: call.sender)
            try IntentRunner.check(request, for: identity)
            try checkSound(request.sound, for: identity)
            return try Self.json(try scheduler.update(strings[0], request: request, owner: owner))
        case "Skip":
            return try Self.json(try scheduler.skip(strings[0], owner: owner))
        case "Disable", "Enable":
            return try Self.json(try scheduler.setEnabled(call.method == "Enable", strings[0], owner: owner))
        case "AuthorizationState":  // RequestAuthorization is answered in `handle`, after the user decides
            return authorizer.state(of: identity).rawValue
        case "Authorizations":
            try requireUser(identity, to: "list the apps' authorizations")
            return try Self.json(authorizer.all)
        case "SetAuthorization":
            try requireUser(identity, to: "change an app's authorization")
            try ClientRegistry.validate(appID: strings[0])
            guard let state = AuthorizationState(rawValue: strings[1]) else {
                throw AlarmError.invalidConfiguration("state '\(strings[1])' is not one of authorized, denied, notDetermined")
            }
            try authorizer.set(strings[0], state)
            return state.rawValue
        case "ListSounds":
            // Where the files are is the user's business: apps get names only.
            let entries = sounder.library.entries()
            return try Self.json(identity.isUser ? entries : entries.map { .init(name: $0.name, path: "", source: $0.source) })
        case "PlaySound":
            try requireUser(identity, to: "play sounds")
            let seconds = call.arguments[1].double ?? 3
            guard seconds.isFinite, (0.1...60).contains(seconds) else {
                throw AlarmError.invalidConfiguration("seconds is \(seconds); accepted: 0.1 to 60")
            }
            let sound: AlertConfiguration.AlertSound = strings[0].isEmpty || strings[0] == "default" ? .default : .named(strings[0])
            return try sounder.preview(sound, seconds: seconds)
        default:
            guard let action = AgentInterface.actionMethods.first(where: { $0.value == call.method })?.key else {
                throw AlarmError.invalidConfiguration("no method \(call.method)")
            }
            return try Self.json(try scheduler.apply(action, to: strings[0], owner: owner))
        }
    }

    private func visible(to identity: ClientIdentity) -> [AlarmRecord] {
        identity.isUser ? scheduler.list : scheduler.list.filter { $0.appID == identity.appID }
    }

    /// An app may schedule once the user allowed it (an undecided one was asked in `handle`).
    private func requireAuthorization(_ identity: ClientIdentity, sender: String) throws(AlarmError) {
        guard !identity.isUser else { return }
        guard registry.client(sender)?.usageDescription != nil else {
            throw .notAuthorized("\(identity.appID) gave no usage description (AlarmKit's NSAlarmKitUsageDescription); say Hello with one first")
        }
        switch authorizer.state(of: identity) {
        case .authorized: return
        case .denied: throw .notAuthorized("the user did not allow \(identity.appID) to schedule alarms; `reveille auth allow \(identity.appID)` changes that")
        case .notDetermined: throw .notAuthorized("the user has not decided whether \(identity.appID) may schedule alarms")
        }
    }

    private func requireUser(_ identity: ClientIdentity, to what: String) throws(AlarmError) {
        guard identity.isUser else { throw .notAuthorized("only the user's own tools may \(what); \(identity.appID) is an app") }
    }

    private static func uuid(_ text: String) throws(AlarmError) -> UUID {
        if text.isEmpty { return UUID() }
        guard let id = UUID(uuidString: text) else {
            throw .invalidConfiguration("id '\(text)' is not a UUID; give one like 123e4567-e89b-12d3-a456-426614174000, or \"\" for a new one")
        }
        return id
    }

    private static func request(_ text: String) throws(AlarmError) -> AlarmRequest {
        do {
            return try JSONCoding.decoder.decode(AlarmRequest.self, from: Data(text.utf8))
        } catch let DecodingError.keyNotFound(key, context) {
            throw .invalidConfiguration("configuration is missing \((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw .invalidConfiguration("configuration has a wrong value at \(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)")
        } catch let DecodingError.dataCorrupted(context) {
            throw .invalidConfiguration("configuration is not a valid AlarmRequest JSON object: \(context.debugDescription) at '\(context.codingPath.map(\.stringValue).joined(separator: "."))'")
        } catch {
            throw .invalidConfiguration("configuration is not a valid AlarmRequest JSON object: \(error)")
        }
    }

    private static func json<Value: Encodable>(_ value: Value) throws -> String {
        String(decoding: try JSONCoding.compactEncoder.encode(value), as: UTF8.self)
    }
}
