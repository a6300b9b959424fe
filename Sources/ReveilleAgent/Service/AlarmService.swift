import FoundationEssentials
import Logging
import ReveilleAgentRuntime
import ReveilleBus
import ReveilleCalendar
import ReveilleCore
import ReveilleLoop
import ReveilleModel
import ReveilleRules
import ReveilleSound
import ReveilleSync
import ReveilleWakeUp

/// The agent's D-Bus interface (`AgentInterface`): decodes calls, hands changes to the
/// runtime as events, answers reads from the alarms it follows, and answers with JSON or a named
/// error. A bad call never harms the agent.
@GLibActor
final class AlarmService: AlarmFollower, AgentEventSource {
    private let bus: any ServiceBus
    /// Where changes go, each with how to answer it: read by the runtime alone.
    package let outbox = AgentOutbox()
    /// The sounds there are, by name (what rings is the runtime's, through its ringer).
    private let sounds: SoundLibrary
    private let registry: any ClientDirectory
    private let authorizer: Authorizer
    private let logger: Logger
    /// Whether the next alarm will wake the machine from suspend (`WakeStatus`).
    private let sleep: SleepCoordinator?
    /// The ended occurrences (`History`).
    private let history: HistoryFile?
    /// Sync through CalDAV (`SyncAdd`, `SyncStatus`, `SyncRemove`).
    private let sync: SyncService?
    /// How a ringing alarm can be answered in this session, told with the wake status.
    private let answering: (@GLibActor () -> SessionAnswering)?
    /// The alarms, read-only; `nil` until the runtime loaded them.
    private var table: AlarmTable?
    /// Splits each change into what each subscriber's view of it is.
    private var views = AlarmViewUpdates()
    private let json = AlarmJSONCache()

    /// Calls waiting for the user's decision, counted and in bytes, by connection and by app.
    private var parked = ParkedCalls()
    /// The lines clients' calls write to the log, bounded (a client calling again and again cannot fill it).
    private let clientLog: ClientLog

    /// The person's settings file (`Settings`, `SetSettings`), and the settings the parts
    /// apply now: read at start, then changed by `SetSettings` or by a `Settings` that finds
    /// the file edited by hand.
    private let settings: SettingsFile
    private var applied: AgentSettings

    /// `sleep`, `history`, `sync` and `answering` answer what they are about; without one (in
    /// tests), the call says the agent is starting or has none.
    init(bus: any ServiceBus, clients: any ClientDirectory, sounds: SoundLibrary,
         authorizer: Authorizer, settings: SettingsFile, applied: AgentSettings = AgentSettings(), logger: Logger, clientLog: ClientLog, sleep: SleepCoordinator? = nil,
         history: HistoryFile? = nil, sync: SyncService? = nil,
         answering: (@GLibActor () -> SessionAnswering)? = nil) throws(BusError) {
        self.bus = bus
        self.settings = settings
        self.applied = applied
        self.sleep = sleep
        self.history = history
        self.sync = sync
        self.answering = answering
        self.sounds = sounds
        self.authorizer = authorizer
        self.logger = logger
        self.clientLog = clientLog
        registry = clients
        try bus.exportAgent { [unowned self] call in self.handle(call) }
    }

    /// Emits `AlarmsUpdated` to each subscriber whose view the change touched, with just what
    /// changed in it: each view's update is encoded once, whatever the number of subscribers,
    /// and sent in as many signals of at most `WireLimits.pageBytes` as it needs.
    func follow(_ changes: [AlarmChange], in alarms: AlarmTable) {
        table = alarms
        json.forget(changes)
        let subscribers = registry.subscribers.map { (name: $0.name, view: AlarmViewUpdates.View($0.identity)) }
        let updates = views.split(changes, for: Set(subscribers.map(\.view)))
        var encoded: [AlarmViewUpdates.View: [[Variant]]] = [:]
        var alerting: [AlarmViewUpdates.View: [UUID]] = [:]
        for (view, update) in updates {
            alerting[view] = update.startedAlerting
            guard let pages = try? json.pages(update.changed, maximumBytes: WireLimits.pageBytes) else {
                logger.error("AlarmsUpdated for \(view) could not be encoded; not sent")
                continue
            }
            var signals = pages.map { [Variant.string($0.json), .array(elementType: "s", [])] }
            // Removals are 36-byte ids: a page of them is far below the limit.
            for removed in update.removed.chunks(of: WireLimits.pageBytes / 64) {
                signals.append([.string("[]"), .array(elementType: "s", removed.map { .string($0.uuidString) })])
            }
            encoded[view] = signals
        }
        // Each view's signals are converted once and sent to its subscribers; alerts follow.
        for (view, signals) in encoded {
            let names = subscribers.filter { $0.view == view }.map(\.name)
            for arguments in signals { emit(.alarmsUpdated, to: names, arguments) }
        }
        for subscriber in subscribers {
            for id in alerting[subscriber.view] ?? [] { emit(.alarmAlerting, to: [subscriber.name], [.string(id.uuidString)]) }
        }
    }

    func hear(_ notice: AgentNotice) {
        switch notice {
        case .missed(let record, let due, let reason): alarmMissed(record, due: due, reason: reason)
        case .buttonPressed(let record, let role): actionInvoked(on: record, button: role.rawValue)
        case .authorizationChanged(let appID, let state): publishAuthorization(appID, state)
        case .settingsChanged(let settings):
            let users = registry.subscribers.filter(\.identity.isUser).map(\.name)
            if !users.isEmpty { emit(.settingsChanged, to: users, [.string(settings.json)]) }
        case .notice, .notificationReach, .sessionUnlocked, .missedWithdrawn: break
        }
    }

    /// Tells the alarm's app (and the user's tools) that an occurrence was missed: due at
    /// `due` while nothing could ring it (`late`), or rang unanswered to its ring limit.
    private func alarmMissed(_ alarm: AlarmRecord, due: Date, reason: MissReason) {
        let arguments: [Variant] = [.string(alarm.id.uuidString), .string(ISO8601Local.utcString(from: due)), .string(reason.rawValue)]
        for (name, identity) in registry.subscribers where identity.isUser || identity.appID == alarm.appID {
            emit(.alarmMissed, to: [name], arguments)
        }
    }

    /// Tells the alarm's app (and the user's tools) that one of its buttons was pressed.
    private func actionInvoked(on alarm: AlarmRecord, button: String) {
        for (name, identity) in registry.subscribers where identity.isUser || identity.appID == alarm.appID {
            emit(.actionInvoked, to: [name], [.string(alarm.id.uuidString), .string(button)])
        }
    }

    private func publishAuthorization(_ appID: String, _ state: AuthorizationState) {
        for (name, identity) in registry.subscribers where identity.isUser || identity.appID == appID {
            emit(.authorizationChanged, to: [name], [.string(appID), .string(state.rawValue)])
        }
    }

    private func emit(_ signal: AgentSignal, to names: [String], _ arguments: [Variant]) {
        let failures = bus.emit(signal.name, to: names, arguments)
        for failure in failures { logger.error("could not emit \(signal) to \(failure.destination): \(failure.error)") }
    }

    /// Answers on the loop, synchronously, except where the user must decide first: then the
    /// call is parked and answered from the prompt's callback. Nothing the caller sent is
    /// converted before its size is known (`WireLimits.callBytes`), and no configuration is
    /// decoded before the caller's authorization is.
    private func handle(_ call: any IncomingCall) {
        guard table != nil else {
            // Between taking the bus name and the state folder (an agent it replaced is exiting).
            let starting = AgentRuntime.notStarted
            return call.fail(name: AgentInterface.errorPrefix + starting.code, message: starting.reason)
        }
        let request: AgentCall
        do throws(AlarmError) {
            guard !call.isOversized else {
                throw .invalidConfiguration("the call's arguments are \(call.argumentBytes) bytes; at most \(WireLimits.callBytes) are accepted")
            }
            request = try AgentCall.decode(method: call.method, arguments: call.arguments.map(Self.argument))
        } catch {
            clientLog.notice("\(call.method) from \(call.sender) refused: \(error.reason)")
            return call.fail(name: AgentInterface.errorPrefix + error.code, message: error.reason)
        }
        let identity: ClientIdentity
        do { identity = try registry.identity(of: call.sender) } catch {
            clientLog.notice("\(call.method) from \(call.sender) refused: \(error.reason)")
            return call.fail(name: AgentInterface.errorPrefix + error.code, message: error.reason)
        }
        let waitsForTheUser: Bool
        switch request {
        case .requestAuthorization: waitsForTheUser = true
        case .schedule: waitsForTheUser = !identity.isUser && authorizer.state(of: identity) == .notDetermined
        default: waitsForTheUser = false
        }
        guard waitsForTheUser else { return respond(call, request, from: identity) }
        let ticket: ParkedCalls.Ticket
        do {
            ticket = try parked.admit(connection: call.sender, app: identity.appID, bytes: call.argumentBytes)
        } catch {
            return call.fail(name: AgentInterface.errorPrefix + error.code, message: error.reason)
        }
        authorizer.request(for: identity, usageDescription: registry.client(call.sender)?.usageDescription) { [weak self] state in
            self?.parked.release(ticket)
            if case .requestAuthorization = request {
                return call.reply([.string(state.rawValue)])
            }
            guard let self else { return }
            if self.registry.client(call.sender) == nil {
                // Its app is gone and would never hear of it: an alarm it does not know of is not made.
                self.clientLog.notice("\(call.method) from \(call.sender) (\(identity.appID)): the app left before the user decided (\(state.rawValue)); nothing was scheduled")
                let left = AlarmError.notAuthorized("the app left before the user decided")
                call.fail(name: AgentInterface.errorPrefix + left.code, message: left.reason)
            } else {
                self.respond(call, request, from: identity)
            }
        }
    }

    private static func argument(_ value: Variant) -> AgentCall.Argument {
        switch value {
        case .string(let text): .string(text)
        case .double(let number): .number(number)
        case .uint32(let count): .count(count)
        case .array(let type, let entries) where type.hasPrefix("{"): .dictionary(count: entries.count)
        default: .other
        }
    }

    /// The user's tools are told of a sound that cannot be found (a person can correct it);
    /// an app's unknown name rings the default sound, as in AlarmKit. A path is never an app's.
    private func checkSound(_ sound: AlertConfiguration.AlertSound, for identity: ClientIdentity) throws(AlarmError) {
        do {
            _ = try sounds.resolve(sound, allowPaths: identity.isUser)
        } catch {
            guard !identity.isUser, case .named(let name) = sound, !name.contains("/") else { throw error }
            clientLog.notice("\(identity.appID) asked for sound '\(NotificationContent.displayable(name, limit: 100))', which is not installed; its alarm rings the default sound")
        }
    }

    private func respond(_ call: any IncomingCall, _ request: AgentCall, from identity: ClientIdentity) {
        do {
            switch try answer(request, from: identity, sender: call.sender) {
            case .now(let answer):
                guard answer.allSatisfy({ $0.utf8.count <= WireLimits.pageBytes }) else {
                    throw AlarmError.invalidState("the answer would be more than \(WireLimits.pageBytes >> 20) MiB; read the alarms with ListPage, or Get one")
                }
                call.reply(answer.map(Variant.string))
            case .typed(let values):
                call.reply(values)
            case .change(let command, let owner):
                outbox.send(.call(command, owner: owner) { [weak self, clientLog] result in
                    Self.reply(call, with: result, from: identity, log: clientLog)
                    self?.charge(call)
                })
            case .press(let role, let id):
                outbox.send(.buttonPressed(id, role, answer: { [weak self, clientLog] result in
                    Self.reply(call, with: result, from: identity, log: clientLog)
                    self?.charge(call)
                }))
            case .sound(let request):
                outbox.send(.sound(request) { [weak self, clientLog] result in
                    switch result {
                    case .success(let strings): call.reply(strings.map(Variant.string))
                    case .failure(let error): Self.fail(call, error, from: identity, log: clientLog)
                    }
                    self?.charge(call)
                })
            case .settings(let settings):
                // Answered once every part applies them (and the user's tools heard them).
                applied = settings
                outbox.send(.settingsChanged(settings) { [weak self] in
                    call.reply([.string(settings.json)])
                    self?.charge(call)
                })
            }
        } catch {
            Self.fail(call, error, from: identity, log: clientLog)
        }
    }

    /// Charges the caller for the loop time the runtime spent on its call, as the runtime measured
    /// it (from when it began handling the event to its reply, sent): the gate counts it on the
    /// caller's budget as time taken while called, so a flood of changes costs its sender.
    private func charge(_ call: any IncomingCall) {
        let spent = (table ?? .empty).timeOnThisEvent.components
        call.charge(seconds: Double(spent.seconds) + Double(spent.attoseconds) * 1e-18)
    }

    /// Answers a change with the alarm after it, once the runtime has made it (and written it).
    private static func reply(_ call: any IncomingCall, with result: Result<AlarmRecord?, AlarmError>, from identity: ClientIdentity, log: ClientLog) {
        do { call.reply([.string(try json(try result.get()))]) } catch { fail(call, error, from: identity, log: log) }
    }

    private static func fail(_ call: any IncomingCall, _ error: any Error, from identity: ClientIdentity, log: ClientLog) {
        if let error = error as? AlarmError {
            log.notice("\(call.method) from \(call.sender) (\(identity.appID)) refused: \(error.reason)")
            call.fail(name: AgentInterface.errorPrefix + error.code, message: error.reason)
        } else {
            call.fail(name: AgentInterface.errorPrefix + "Failed", message: "\(error)")
        }
    }

    /// How a call is answered: now, or once the runtime has made the change it asks for.
    private enum Answer {
        /// The reply's strings.
        case now([String])
        /// The reply's values, typed.
        case typed([Variant])
        /// A change of the alarms, for the runtime: answered with the alarm after it.
        case change(AlarmEngine.Command, owner: String? = nil)
        /// A button pressed as the person: answered with the alarm after it.
        case press(AlarmButtonRole, UUID)
        /// A request of the sound, for the runtime's ringer: answered with its strings.
        case sound(SoundRequest)
        /// New settings, written: answered with them once the parts apply them.
        case settings(AgentSettings)
    }

    /// One answer per call (the calls are `AgentMethod.table`'s).
    private func answer(_ request: AgentCall, from identity: ClientIdentity, sender: String) throws -> Answer {
        if let what = request.method.userOnly { try requireUser(identity, to: what) }
        let owner = identity.isUser ? nil : identity.appID
        switch request {
        case .hello(let appID, let usageDescription):
            return .now([try Self.json(try registry.hello(sender, declaredID: appID, usageDescription: usageDescription))])
        case .subscribe:
            try registry.subscribe(sender, as: identity)
            return .now([try json.array(visible(to: identity))])
        case .subscribeUpdates:
            try registry.subscribe(sender, as: identity)
            return .now([])
        case .list:
            return .now([try json.array(visible(to: identity))])
        case .listPageAndWake(let after, let limit):
            // The page as ListPage answers it; the wake answer typed, not text.
            let alarms = table ?? .empty
            let page = try json.page(of: alarms, owner: owner, after: after, limit: limit, maximumBytes: WireLimits.pageBytes)
            return .typed([.string(page.json), .string(page.next), .vardict(identity.isUser ? Self.fields(wakeStatus) : [:])])
        case .listPage(let after, let limit):
            let alarms = table ?? .empty
            let page = try json.page(of: alarms, owner: owner, after: after, limit: limit, maximumBytes: WireLimits.pageBytes)
            return .now([page.json, page.next])
        case .get(let id):
            let alarms = table ?? .empty
            return .now([try Self.json(alarms[try alarms.resolve(id, owner: owner)])])
        case .schedule(let id, let configuration):
            try requireAuthorization(identity, sender: sender)
            // A new alarm of the person's made without a sound, snooze or ring length gets their
            // defaults, as the settings are now. Not an alarm the sync brings (it is as made elsewhere).
            let request = applied.newAlarmDefaults.filling(try checked(configuration, for: identity), appID: identity.appID)
            return .change(.schedule(id: id, request: request, appID: identity.appID))
        case .update(let id, let configuration):
            try requireAuthorization(identity, sender: sender)
            let request = applied.newAlarmDefaults.fillingSnooze(try checked(configuration, for: identity), appID: identity.appID)
            return .change(.update(id: .prefix(id), request: request), owner: owner)
        case .wakeStatus:
            var status = wakeStatus
            status.answering = answering?()
            return .now([try Self.json(status)])
        case .skip(let id):
            return .change(.skip(id: .prefix(id)), owner: owner)
        case .unskip(let id):
            return .change(.unskip(id: .prefix(id)), owner: owner)
        case .setEnabled(let enabled, let id):
            return .change(.setEnabled(enabled, id: .prefix(id)), owner: owner)
        case .restore(let text):
            try requireAuthorization(identity, sender: sender)
            let old: AlarmRecord
            do { old = try JSONCoding.decoder.decode(AlarmRecord.self, from: Data(text.utf8)) } catch {
                throw AlarmError.invalidConfiguration("record is not an AlarmRecord as Get answers it: \(error)")
            }
            // Its configuration, checked as Schedule checks one (intents, sound).
            _ = try checked(try Self.json(old.request), for: identity)
            return .change(.restore(old, appID: identity.appID))
        case .requestAuthorization, .authorizationState:  // RequestAuthorization waits for the user in `handle`
            return .now([authorizer.state(of: identity).rawValue])
        case .authorizations:
            return .now([try Self.json(authorizer.all)])
        case .setAuthorization(let appID, let state):
            try ClientRegistry.validate(appID: appID)
            try authorizer.set(appID, state)
            return .now([state.rawValue])
        case .listSounds:
            // Where the files are is the user's business: apps get names only.
            let entries = sounds.entries()
            return .now([try Self.json(identity.isUser ? entries : entries.map { .init(name: $0.name, path: "", source: $0.source) })])
        case .listOutputs:
            return .sound(.outputs)
        case .playSound(let name, let seconds):
            return .sound(.preview(Self.sound(name), seconds: seconds, volume: 1, alone: false, owner: sender))
        case .previewSound(let name, let seconds, let volume):
            return .sound(.preview(Self.sound(name), seconds: seconds, volume: volume, alone: true, owner: sender))
        case .stopPreview:
            return .sound(.stopPreviews)
        case .apply(let action, let id):
            return .change(.apply(action, id: .prefix(id)), owner: owner)
        case .snooze(let id, let seconds):
            return .change(.snooze(id: .prefix(id), length: seconds), owner: owner)
        case .pressButton(let id, let button):
            let alarms = table ?? .empty
            return .press(button, try alarms.resolve(id, owner: nil))
        case .history:
            return .now([try (history?.history ?? AlarmHistory()).json(for: owner, maximumBytes: WireLimits.pageBytes)])
        case .syncAdd(let url, let user, let password):
            guard let sync else { throw AlarmError.agentUnavailable("reveille-agent is starting; try again in a moment") }
            try sync.add(url: url, user: user, password: password)
            return .now([try Self.json(sync.status)])
        case .syncStatus:
            return .now([try Self.json(sync?.status ?? SyncStatus(configured: false))])
        case .syncRemove:
            guard let sync else { throw AlarmError.agentUnavailable("reveille-agent is starting; try again in a moment") }
            try sync.remove()
            return .now([])
        case .settings:
            // What the file says now: a person may have edited it since; that edit applies now.
            let current = try settings.read()
            apply(current)
            return .now([current.json])
        case .setSettings(let changes):
            // Before the alarms are loaded nothing could apply it: the answer would be untrue.
            guard table != nil else { throw AgentRuntime.notStarted }
            // A default sound is one that rings, as `--sound` is: refused before anything is written.
            if let sound = (try? AgentSettings().changed(by: changes))?.sound {
                do { try checkSound(.named(sound), for: identity) } catch {
                    throw AlarmError.invalidConfiguration("sound: \(error.reason)")
                }
            }
            let changed = try settings.change(by: changes)
            guard changed != applied else { return .now([changed.json]) }
            clientLog.notice("\(identity.appID) changed the settings: \(NotificationContent.displayable(changes, limit: 200))")
            // Written first, then applied: a restart now reads what the parts apply.
            return .settings(changed)
        }
    }

    /// Has every part apply `settings` (and the user's tools hear them) if they differ from
    /// what applies now and the alarms are loaded.
    private func apply(_ settings: AgentSettings) {
        guard settings != applied, table != nil else { return }
        applied = settings
        outbox.send(.settingsChanged(settings))
    }

    /// A sound as a preview names it: "" or "default" for the default.
    private static func sound(_ name: String) -> AlertConfiguration.AlertSound {
        name.isEmpty || name == "default" ? .default : .named(name)
    }

    private var wakeStatus: WakeStatus {
        sleep?.status() ?? WakeStatus(wakes: false, reason: "the agent is starting", lead: 0)
    }

    /// `WakeStatus` as `ListPageAndWake`'s `wake`, its absent fields left out.
    private static func fields(_ status: WakeStatus) -> [String: Variant] {
        var fields: [String: Variant] = ["wakes": .bool(status.wakes), "lead": .double(status.lead)]
        if let reason = status.reason { fields["reason"] = .string(reason) }
        if let wakeAt = status.wakeAt { fields["wakeAt"] = .double(wakeAt.timeIntervalSince1970) }
        if let alarmID = status.alarmID { fields["alarmID"] = .string(alarmID.uuidString) }
        if let blocked = status.blocked { fields["blocked"] = .bool(blocked) }
        if let mechanism = status.mechanism { fields["mechanism"] = .string(mechanism.rawValue) }
        return fields
    }

    /// A configuration decoded (only now that the caller may schedule) and checked for it.
    private func checked(_ configuration: String, for identity: ClientIdentity) throws -> AlarmRequest {
        let request = try AlarmRequest.decode(configuration: configuration)
        try IntentRunner.check(request, for: identity)
        try checkSound(request.sound, for: identity)
        return request
    }

    private func visible(to identity: ClientIdentity) -> [AlarmRecord] {
        let list = table?.list ?? []
        return identity.isUser ? list : list.filter { $0.appID == identity.appID }
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

    private static func json<Value: Encodable>(_ value: Value) throws -> String {
        String(decoding: try JSONCoding.compactEncoder.encode(value), as: UTF8.self)
    }
}
