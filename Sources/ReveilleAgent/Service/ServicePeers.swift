import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleModel
import ReveilleRules

/// What the service asks of its bus: the agent's object exported, every call to it handed to
/// `handler`, and signals sent to named subscribers. The session bus in the agent
/// (`BusConnection`); in tests a recording bus that feeds calls in process.
@GLibActor
protocol ServiceBus: AnyObject {
    /// Exports `AgentInterface` at its path; a call larger than `WireLimits.callBytes` arrives unread.
    func exportAgent(_ handler: @escaping @GLibActor (any IncomingCall) -> Void) throws(BusError)
    /// Emits `signal` of `AgentInterface` to each of `names`; returns those it failed for.
    func emit(_ signal: String, to names: [String], _ arguments: [Variant]) -> [(destination: String, error: BusError)]
}

extension ExportGate: ServiceBus {
    /// Every identified caller reaches the service, which answers each with its own view.
    func exportAgent(_ handler: @escaping @GLibActor (any IncomingCall) -> Void) throws(BusError) {
        _ = try export(path: AgentInterface.objectPath, introspectionXML: AgentInterface.introspectionXML, audience: .everyone,
                       maximumArgumentBytes: WireLimits.callBytes,
                       answering: AgentMethod.answeringAlarms, onDirectLine: true) { call in handler(call) }
    }

    func emit(_ signal: String, to names: [String], _ arguments: [Variant]) -> [(destination: String, error: BusError)] {
        bus.emitSignal(to: names, path: AgentInterface.objectPath, interface: AgentInterface.interface,
                   name: signal, arguments: arguments, flushEvery: WireLimits.queuedSignalBytes)
    }
}

/// Who each connection is and who listens: what the service asks of the `ClientRegistry`
/// (in tests, a table of named clients).
@GLibActor
protocol ClientDirectory: AnyObject {
    /// The caller's identity, decided at its first call; throws when it cannot be told.
    func identity(of sender: String) throws(AlarmError) -> ClientIdentity
    /// What is known of a connection (its usage description), if it called before.
    func client(_ sender: String) -> ClientRegistry.Client?
    /// An app introduces itself: its app id and why it wants alarms.
    func hello(_ sender: String, declaredID: String, usageDescription: String) throws(AlarmError) -> ClientIdentity
    /// The caller hears its view's signals from now on.
    func subscribe(_ sender: String, as identity: ClientIdentity) throws(AlarmError)
    /// Everyone subscribed, with who they are.
    var subscribers: [(name: String, identity: ClientIdentity)] { get }
}

extension ClientRegistry: ClientDirectory {}
