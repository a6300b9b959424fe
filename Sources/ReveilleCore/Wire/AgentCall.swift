import FoundationEssentials

/// One method call of the agent's interface, decoded once from what the bus delivered and
/// bounded by `WireLimits` before anything allocates in proportion to it. A configuration
/// stays text here: it is decoded (`AlarmRequest.decode(configuration:)`) only after the
/// caller's authorization is known, so an app that may not schedule costs nothing to refuse.
package enum AgentCall: Sendable, Equatable {
    case hello(appID: String, usageDescription: String)
    /// Starts the caller's signals and returns its alarms (one page at most).
    case subscribe
    /// Starts the caller's signals, returning nothing: a client then reads `listPage`s.
    case subscribeUpdates
    case list
    /// The caller's alarms whose id sorts after `after` ("" from the start), at most `limit`.
    case listPage(after: String, limit: Int)
    /// `listPage` with the user's `wakeStatus`: what `reveille list` shows, in one round trip.
    case listPageAndWake(after: String, limit: Int)
    case get(id: String)
    case schedule(id: UUID, configuration: String)
    case update(id: String, configuration: String)
    case apply(AlarmAction, id: String)
    /// Snoozes a ringing alarm for `seconds` instead of its own snooze length (a Reveille extension).
    case snooze(id: String, seconds: Double)
    /// A button of an alarm pressed by the person in the user's own alert UI (the alert
    /// window), as on its notification: the app's intent runs and it hears `ActionInvoked`.
    case pressButton(id: String, button: AlarmButtonRole)
    case skip(id: String)
    case unskip(id: String)
    case setEnabled(Bool, id: String)
    case requestAuthorization
    case authorizationState
    case authorizations
    case setAuthorization(appID: String, state: AuthorizationState)
    case listSounds
    /// The sound outputs (sinks) alarms can ring on (the user's tools only).
    case listOutputs
    case playSound(name: String, seconds: Double)
    case wakeStatus
    /// The ended occurrences the caller may see, newest first.
    case history
    /// Sync through a CalDAV collection (the user's tools only): set up, asked about, stopped.
    case syncAdd(url: String, user: String, password: String)
    case syncStatus
    case syncRemove

    /// What a D-Bus argument is, as far as the agent's signatures go (`s`, `u`, `d`, `a{sv}`).
    package enum Argument: Sendable, Equatable {
        case string(String)
        case number(Double)
        case count(UInt32)
        /// An `a{sv}` with this many entries (the reserved `options`).
        case dictionary(count: Int)
        case other
    }

    /// The method names, one per case: the table the introspection XML is checked against.
    package static let methods: [String] = [
        "Hello", "Subscribe", "SubscribeUpdates", "List", "ListPage", "ListPageAndWake", "Get", "Schedule", "Update",
        "Cancel", "Stop", "Countdown", "Pause", "Resume", "Skip", "Unskip", "Disable", "Enable",
        "RequestAuthorization", "AuthorizationState", "Authorizations", "SetAuthorization",
        "ListSounds", "ListOutputs", "PlaySound", "WakeStatus", "History",
        "Snooze", "PressButton",
        "SyncAdd", "SyncStatus", "SyncRemove",
    ]

    /// Decodes `method`'s arguments; throws `invalidConfiguration` naming the argument and
    /// what is accepted. Never traps, whatever the input (fuzzed: `make fuzz`).
    package static func decode(method: String, arguments: [Argument]) throws(AlarmError) -> AgentCall {
        var reader = Reader(method: method, arguments: arguments)
        let call: AgentCall
        switch method {
        case "Hello":
            call = .hello(appID: try reader.string("app_id"),
                          usageDescription: try reader.string("usage_description", bytes: WireLimits.usageDescriptionBytes))
        case "Subscribe": call = .subscribe
        case "SubscribeUpdates": call = .subscribeUpdates
        case "List": call = .list
        case "ListPage":
            call = .listPage(after: try reader.string("after"), limit: try reader.count("limit", upTo: WireLimits.pageAlarms))
        case "ListPageAndWake":
            call = .listPageAndWake(after: try reader.string("after"), limit: try reader.count("limit", upTo: WireLimits.pageAlarms))
        case "Get": call = .get(id: try reader.string("id"))
        case "Schedule":
            let text = try reader.string("id")
            let id: UUID
            if text.isEmpty { id = UUID() } else {
                guard let parsed = UUID(uuidString: text) else {
                    throw .invalidConfiguration("id '\(text)' is not a UUID; give one like 123e4567-e89b-12d3-a456-426614174000, or \"\" for a new one")
                }
                id = parsed
            }
            call = .schedule(id: id, configuration: try reader.configuration())
            try reader.options()
        case "Update":
            call = .update(id: try reader.string("id"), configuration: try reader.configuration())
            try reader.options()
        case _ where actionMethods.values.contains(method):
            call = .apply(actionMethods.first { $0.value == method }!.key, id: try reader.string("id"))
        case "Skip": call = .skip(id: try reader.string("id"))
        case "Unskip": call = .unskip(id: try reader.string("id"))
        case "Disable": call = .setEnabled(false, id: try reader.string("id"))
        case "Enable": call = .setEnabled(true, id: try reader.string("id"))
        case "RequestAuthorization": call = .requestAuthorization
        case "AuthorizationState": call = .authorizationState
        case "Authorizations": call = .authorizations
        case "SetAuthorization":
            let appID = try reader.string("app_id"), name = try reader.string("state")
            guard let state = AuthorizationState(rawValue: name) else {
                throw .invalidConfiguration("state '\(name)' is not one of authorized, denied, notDetermined")
            }
            call = .setAuthorization(appID: appID, state: state)
        case "ListSounds": call = .listSounds
        case "ListOutputs": call = .listOutputs
        case "PlaySound":
            let name = try reader.string("sound", bytes: WireLimits.soundNameBytes)
            let seconds = try reader.number("seconds")
            guard seconds.isFinite, (0.1...60).contains(seconds) else {
                throw .invalidConfiguration("seconds is \(seconds); accepted: 0.1 to 60")
            }
            call = .playSound(name: name, seconds: seconds)
        case "WakeStatus": call = .wakeStatus
        case "Snooze":
            let id = try reader.string("id"), seconds = try reader.number("seconds")
            try AlarmError.worded { () throws(AlarmRuleError) in try AlarmRecord.checkSnoozeLength(seconds) }
            call = .snooze(id: id, seconds: seconds)
        case "PressButton":
            let id = try reader.string("id"), name = try reader.string("button")
            guard let button = AlarmButtonRole(rawValue: name) else {
                throw .invalidConfiguration("button '\(name.prefix(WireLimits.shortStringBytes))' is not one of \(AlarmButtonRole.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            call = .pressButton(id: id, button: button)
        case "History": call = .history
        case "SyncAdd":
            call = .syncAdd(url: try reader.string("url", bytes: WireLimits.syncURLBytes), user: try reader.string("user"),
                            password: try reader.string("password", bytes: WireLimits.passwordBytes))
        case "SyncStatus": call = .syncStatus
        case "SyncRemove": call = .syncRemove
        default:
            throw .invalidConfiguration("no method \(method.prefix(WireLimits.shortStringBytes)); the agent has \(methods.joined(separator: ", "))")
        }
        guard reader.isAtEnd else {
            throw .invalidConfiguration("\(method) takes \(reader.position) arguments; \(arguments.count) were given")
        }
        return call
    }

    /// Reads the arguments in order, each within its bound.
    private struct Reader {
        let method: String
        let arguments: [Argument]
        var position = 0

        var isAtEnd: Bool { position == arguments.count }

        private mutating func next(_ name: String) throws(AlarmError) -> Argument {
            guard position < arguments.count else {
                throw .invalidConfiguration("\(method) needs its argument \(name)")
            }
            defer { position += 1 }
            return arguments[position]
        }

        mutating func string(_ name: String, bytes: Int = WireLimits.shortStringBytes) throws(AlarmError) -> String {
            guard case .string(let text) = try next(name) else {
                throw .invalidConfiguration("\(method)'s argument \(name) must be a string")
            }
            guard text.utf8.count <= bytes else {
                throw .invalidConfiguration("\(method)'s argument \(name) is \(text.utf8.count) bytes; at most \(bytes) are accepted")
            }
            return text
        }

        mutating func configuration() throws(AlarmError) -> String {
            try string("configuration", bytes: WireLimits.configurationBytes)
        }

        mutating func number(_ name: String) throws(AlarmError) -> Double {
            guard case .number(let value) = try next(name) else {
                throw .invalidConfiguration("\(method)'s argument \(name) must be a number")
            }
            return value
        }

        /// A count (`u`) from 0 to `maximum`; 0 or more means `maximum`.
        mutating func count(_ name: String, upTo maximum: Int) throws(AlarmError) -> Int {
            guard case .count(let value) = try next(name) else {
                throw .invalidConfiguration("\(method)'s argument \(name) must be a count (u): 0 for as many as fit, or at most \(maximum)")
            }
            return value == 0 || Int(value) > maximum ? maximum : Int(value)
        }

        /// The reserved `options` dictionary: empty, or ignored entries.
        mutating func options() throws(AlarmError) {
            guard case .dictionary = try next("options") else {
                throw .invalidConfiguration("\(method)'s argument options must be a dictionary (a{sv}); pass {}")
            }
        }
    }
}

extension AgentCall {
    /// The call as the bus carries it: its method and arguments, which `decode` reads back.
    package var wire: (method: String, arguments: [Argument]) {
        switch self {
        case .hello(let appID, let usageDescription): ("Hello", [.string(appID), .string(usageDescription)])
        case .subscribe: ("Subscribe", [])
        case .subscribeUpdates: ("SubscribeUpdates", [])
        case .list: ("List", [])
        case .listPage(let after, let limit): ("ListPage", [.string(after), .count(UInt32(clamping: limit))])
        case .listPageAndWake(let after, let limit): ("ListPageAndWake", [.string(after), .count(UInt32(clamping: limit))])
        case .get(let id): ("Get", [.string(id)])
        case .schedule(let id, let configuration): ("Schedule", [.string(id.uuidString), .string(configuration), .dictionary(count: 0)])
        case .update(let id, let configuration): ("Update", [.string(id), .string(configuration), .dictionary(count: 0)])
        case .apply(let action, let id): (Self.actionMethods[action]!, [.string(id)])
        case .skip(let id): ("Skip", [.string(id)])
        case .unskip(let id): ("Unskip", [.string(id)])
        case .setEnabled(let enabled, let id): (enabled ? "Enable" : "Disable", [.string(id)])
        case .requestAuthorization: ("RequestAuthorization", [])
        case .authorizationState: ("AuthorizationState", [])
        case .authorizations: ("Authorizations", [])
        case .setAuthorization(let appID, let state): ("SetAuthorization", [.string(appID), .string(state.rawValue)])
        case .listSounds: ("ListSounds", [])
        case .listOutputs: ("ListOutputs", [])
        case .playSound(let name, let seconds): ("PlaySound", [.string(name), .number(seconds)])
        case .wakeStatus: ("WakeStatus", [])
        case .history: ("History", [])
        case .snooze(let id, let seconds): ("Snooze", [.string(id), .number(seconds)])
        case .pressButton(let id, let button): ("PressButton", [.string(id), .string(button.rawValue)])
        case .syncAdd(let url, let user, let password): ("SyncAdd", [.string(url), .string(user), .string(password)])
        case .syncStatus: ("SyncStatus", [])
        case .syncRemove: ("SyncRemove", [])
        }
    }

    /// The methods that apply an `AlarmAction` to one alarm.
    package static let actionMethods: [AlarmAction: String] = [
        .cancel: "Cancel", .stop: "Stop", .countdown: "Countdown", .pause: "Pause", .resume: "Resume",
    ]

    /// Whether the call may wait for the user's answer (a prompt), so a client gives it no timeout.
    package var waitsForUser: Bool {
        switch self {
        case .requestAuthorization, .schedule: true
        default: false
        }
    }
}

extension AlarmRequest {
    /// A configuration's JSON text as an `AlarmRequest` (its size was bounded by `AgentCall`);
    /// throws `invalidConfiguration` naming what is missing or wrong.
    package static func decode(configuration text: String) throws(AlarmError) -> AlarmRequest {
        guard text.utf8.count <= WireLimits.configurationBytes else {
            throw .invalidConfiguration("the configuration is \(text.utf8.count) bytes; at most \(WireLimits.configurationBytes) are accepted")
        }
        // Read strictly first: a key given twice is refused, not taken as its first value.
        let sent: JSONValue
        do { sent = try StrictJSON.parse(text) } catch { throw .invalidConfiguration("configuration: \(error)") }
        // A key a newer ReveilleKit may send is passed over; a slip of a known one is not:
        // {"Schedule": ...} made a December alarm a five-minute timer, {"volum": ...} rang loud.
        for (path, known) in [([StrictJSON.Step](), AlarmRequest.fieldNames), ([.key("ring")], RingOptions.fieldNames)] {
            guard case .object(let members)? = sent.value(at: path[...]) else { continue }
            for member in members {
                if let meant = StrictJSON.slip(member.key, of: known) {
                    let place = path.isEmpty ? "configuration" : "configuration's \(StrictJSON.path(path))"
                    throw .invalidConfiguration("\(place) has '\(member.key.prefix(40))', which is not a key; did you mean '\(meant)'?")
                }
            }
        }
        do {
            return try JSONCoding.decoder.decode(AlarmRequest.self, from: Data(text.utf8))
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            // Foundation says only "not valid JSON" of a number a field cannot hold (7.5 for an
            // hour, 1e400): zeroed one after another, the number whose zeroing changes the
            // answer is one (the first 16 such numbers are tried; each try decodes once).
            var zeroed = sent
            let culprit = StrictJSON.unusualNumbers(in: sent).first { candidate in
                zeroed = zeroed.replacing(at: candidate.steps[...], with: .number("0"))
                do { _ = try JSONCoding.decoder.decode(AlarmRequest.self, from: Data(zeroed.text.utf8)); return true } catch {
                    guard case DecodingError.dataCorrupted(let again) = error else { return true }
                    return !again.codingPath.isEmpty
                }
            }
            guard let culprit else { throw .invalidConfiguration("configuration is not a valid AlarmRequest JSON object: \(context.debugDescription)") }
            throw .invalidConfiguration("configuration's \(StrictJSON.path(culprit.steps)) is \(culprit.text.prefix(40)), which it cannot hold: a whole number is due there, or a smaller one")
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
}
