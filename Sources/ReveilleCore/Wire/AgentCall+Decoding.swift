import FoundationEssentials

/// Reading a call from what the bus delivered: in Core, beside the rules, because a refusal
/// is worded in the user's language (`AlarmError.worded`).
extension AgentCall {
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
