import FoundationEssentials
public import ReveilleModel
package import ReveilleBus
package import ReveilleCore
import Synchronization

/// The connection to the agent and what the agent knows of this client, shared by the
/// blocking calls (AlarmKit's synchronous API, from any thread) and the async ones.
///
/// An app's calls go to the agent's unique bus name, the one it said Hello to: an agent that
/// restarts knows nothing of the app, and a call that reached it unintroduced would be taken
/// for the user's. Its successor answers the next call only after a new Hello.
final class AgentLink: Sendable {
    let appID: String
    let usageDescription: String?
    private let busAddress: String?
    private struct State {
        var bus: BusConnection?
        /// The unique name of the agent this app introduced itself to.
        var introducedTo: String?
    }
    private let state = Mutex(State())

    init(appID: String, usageDescription: String?, busAddress: String?) {
        self.appID = appID
        self.usageDescription = usageDescription
        self.busAddress = busAddress
    }

    var isUser: Bool { appID == ClientIdentity.userAppID }

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

    /// Where an app's calls go: the agent it introduced itself to, if that one still runs.
    var introducedAgent: String? { state.withLock { $0.introducedTo } }

    /// Forgets the agent this app introduced itself to (it left the bus).
    func forgetAgent(_ name: String) {
        state.withLock { if $0.introducedTo == name { $0.introducedTo = nil } }
    }

    /// Starts the agent if none runs (D-Bus activation), says Hello to it by its unique name,
    /// and returns that name. Blocks; safe on any thread.
    func introduce() throws(AlarmError) -> (agent: String, identity: String) {
        let bus = try bus()
        for _ in 0..<3 {
            let agent = try Self.blocking { () throws(BusError) -> String in
                if let owner = try? Self.owner(on: bus) { return owner }
                _ = try bus.callSync(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                     interface: "org.freedesktop.DBus", method: "StartServiceByName",
                                     arguments: [.string(AgentInterface.busName), .uint32(0)], timeoutMilliseconds: 25_000)
                return try Self.owner(on: bus)
            }
            do {
                let (method, arguments) = Self.wire(.hello(appID: appID, usageDescription: usageDescription ?? ""))
                let reply = try bus.callSync(destination: agent, path: AgentInterface.objectPath, interface: AgentInterface.interface,
                                             method: method, arguments: arguments, timeoutMilliseconds: 25_000)
                state.withLock { $0.introducedTo = agent }
                return (agent, reply.first?.string ?? "null")
            } catch where error.isServiceMissing {
                continue  // that agent left between the two calls: introduce this app to the next one
            } catch {
                throw Self.alarmError(error)
            }
        }
        throw .agentUnavailable("reveille-agent kept leaving the bus while this app introduced itself")
    }

    /// Calls the agent and waits here for the answer (JSON text). Safe on any thread, the GLib
    /// loop's included; starts the agent by D-Bus activation; an app introduces itself first.
    func callBlocking(_ call: AgentCall) throws(AlarmError) -> String {
        try callBlockingReply(call).first?.string ?? "null"
    }

    /// `callBlocking`, with every argument of the reply.
    func callBlockingReply(_ call: AgentCall) throws(AlarmError) -> [Variant] {
        switch try callBlockingOutcome(call) {
        case .success(let reply): return reply
        case .failure(let error): throw Self.alarmError(error)
        }
    }

    /// `callBlockingReply`, or `nil` from an agent older than the call's method (UnknownMethod).
    func callBlockingReplyIfImplemented(_ call: AgentCall) throws(AlarmError) -> [Variant]? {
        switch try callBlockingOutcome(call) {
        case .success(let reply): return reply
        case .failure(let error) where error.name == "org.freedesktop.DBus.Error.UnknownMethod": return nil
        case .failure(let error): throw Self.alarmError(error)
        }
    }

    /// The call's reply, or the bus's error; throws only when no agent could be reached.
    private func callBlockingOutcome(_ call: AgentCall) throws(AlarmError) -> Result<[Variant], BusError> {
        let (method, arguments) = Self.wire(call)
        let bus = try bus()
        for attempt in 0..<2 {
            var destination = AgentInterface.busName
            if !isUser {
                if let known = introducedAgent { destination = known } else { destination = try introduce().agent }
            }
            do {
                return .success(try bus.callSync(destination: destination, path: AgentInterface.objectPath, interface: AgentInterface.interface,
                                                 method: method, arguments: arguments, timeoutMilliseconds: 25_000, autoStart: true))
            } catch where error.isServiceMissing && !isUser && attempt == 0 {
                forgetAgent(destination)  // it left: the next agent hears this app's Hello first
            } catch {
                return .failure(error)
            }
        }
        throw .agentUnavailable("reveille-agent went away twice during one call")
    }

    /// Whether an agent owns its bus name now (`NameHasOwner`); blocks.
    func agentIsRunning() throws(AlarmError) -> Bool {
        let bus = try bus()
        let reply = try Self.blocking { () throws(BusError) -> [Variant] in
            try bus.callSync(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                             method: "NameHasOwner", arguments: [.string(AgentInterface.busName)], timeoutMilliseconds: 5000)
        }
        return reply.first == .bool(true)
    }

    private static func owner(on bus: BusConnection) throws(BusError) -> String {
        let reply = try bus.callSync(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                     interface: "org.freedesktop.DBus", method: "GetNameOwner",
                                     arguments: [.string(AgentInterface.busName)], timeoutMilliseconds: 25_000)
        return reply.first?.string ?? ""
    }

    /// Runs a blocking bus call and turns its error into the agent's `AlarmError`.
    static func blocking<Value>(_ body: () throws(BusError) -> Value) throws(AlarmError) -> Value {
        do { return try body() } catch { throw alarmError(error) }
    }

    /// The agent's error, or why the agent could not be reached.
    /// The one encoding of a call for the bus, for the blocking path here and `AgentClient`'s.
    static func wire(_ call: AgentCall) -> (method: String, arguments: [Variant]) {
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

    static func alarmError(_ error: BusError) -> AlarmError {
        if error.name.hasPrefix(AgentInterface.errorPrefix) {
            return AlarmError(code: String(error.name.dropFirst(AgentInterface.errorPrefix.count)), reason: error.message)
        }
        if error.isServiceMissing {
            return .agentUnavailable("no reveille-agent is running on the session bus, and none could be started (\(error.message))")
        }
        return .agentUnavailable("reveille-agent did not answer: \(error.message)")
    }
}
