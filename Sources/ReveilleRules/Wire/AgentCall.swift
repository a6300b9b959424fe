import FoundationEssentials
import ReveilleModel

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
    /// An alarm scheduled again as it stood when it ended (Undo of a Cancel): `record` is its
    /// `AlarmRecord` as Get or List gave it, text until the caller's authorization is known.
    case restore(record: String)
    case requestAuthorization
    case authorizationState
    case authorizations
    case setAuthorization(appID: String, state: AuthorizationState)
    case listSounds
    /// The sound outputs (sinks) alarms can ring on (the user's tools only).
    case listOutputs
    case playSound(name: String, seconds: Double)
    /// `playSound` at the ring volume `volume`, replacing the preview that plays.
    case previewSound(name: String, seconds: Double, volume: Double)
    /// Stops the previews that play.
    case stopPreview
    case wakeStatus
    /// The ended occurrences the caller may see, newest first.
    case history
    /// Sync through a CalDAV collection (the user's tools only): set up, asked about, stopped.
    case syncAdd(url: String, user: String, password: String)
    case syncStatus
    case syncRemove
    /// The agent's settings, read and changed (the user's tools only): `changes` is a JSON
    /// object of the keys to change (`AgentSettings.changed(by:)`).
    case settings
    case setSettings(changes: String)

    /// What a D-Bus argument is, as far as the agent's signatures go (`s`, `u`, `d`, `a{sv}`).
    package enum Argument: Sendable, Equatable {
        case string(String)
        case number(Double)
        case count(UInt32)
        /// An `a{sv}` with this many entries (the reserved `options`).
        case dictionary(count: Int)
        case other
    }

    /// The method names, in the table's order (`AgentMethod.table`).
    package static let methods: [String] = AgentMethod.table.map(\.name)
}

extension AgentCall {
    /// The call's entry in `AgentMethod.table`.
    package var method: AgentMethod {
        guard let method = AgentMethod.table.first(where: { $0.encode(self) != nil }) else {
            preconditionFailure("AgentMethod.table has no entry for \(self)")
        }
        return method
    }

    /// The call as the bus carries it: its method and arguments, which `read` reads back.
    package var wire: (method: String, arguments: [Argument]) {
        let method = method
        return (method.name, method.encode(self) ?? [])
    }

    /// Whether the call may wait for the user's answer (a prompt), so a client gives it no timeout.
    package var waitsForUser: Bool { method.waitsForUser }

    /// The caller hears signals from now on, on the connection it called on.
    package var subscribes: Bool { self == .subscribe || self == .subscribeUpdates }

    /// Reads `method`'s arguments as its entry in `AgentMethod.table` declares them; throws
    /// naming the argument and what is accepted (in data: Core words it, `decode`). Never
    /// traps, whatever the input (fuzzed: `make fuzz`).
    package static func read(method name: String, arguments: [Argument]) throws(AlarmRuleError) -> AgentCall {
        guard let method = AgentMethod.named(name) else {
            throw .alarmKit(.invalidConfiguration("no method \(name.prefix(WireLimits.shortStringBytes)); the agent has \(methods.joined(separator: ", "))"))
        }
        var reader = AgentMethod.Reader(method: method, arguments: arguments)
        let call: AgentCall
        do { call = try method.decode(&reader) } catch let refusal as AlarmRuleError { throw refusal } catch {
            throw .alarmKit(.invalidConfiguration("\(name): \(error)"))
        }
        guard reader.isAtEnd else {
            throw .alarmKit(.invalidConfiguration("\(name) takes \(reader.position) arguments; \(arguments.count) were given"))
        }
        return call
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
