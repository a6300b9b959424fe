import Foundation
@testable import ReveilleAgent
@testable import ReveilleAgentRuntime
import ReveilleAgentTesting
import ReveilleBus
import ReveilleCore
@testable import ReveilleKit
import ReveilleLoop
import ReveilleRules
import Testing

/// The agent's bus in process: calls are encoded as the client library encodes them
/// (`AgentClient.wire`), serialized and read back as the registration reads a peer's
/// (`CallArguments`), and handed to the service; every reply, error and signal is recorded.
@GLibActor
final class RecordingBus: ServiceBus {
    /// A signal sent to one subscriber.
    struct Signal: Equatable {
        let name: String
        let to: String
        let arguments: [Variant]
    }

    private var handler: (@GLibActor (any IncomingCall) -> Void)?
    /// The runtime the service sends changes to: a call returns once it is quiet.
    weak var runtime: AgentRuntime?
    private(set) var signals: [Signal] = []

    func exportAgent(_ handler: @escaping @GLibActor (any IncomingCall) -> Void) throws(BusError) {
        self.handler = handler
    }

    func emit(_ signal: String, to names: [String], _ arguments: [Variant]) -> [(destination: String, error: BusError)] {
        signals += names.map { Signal(name: signal, to: $0, arguments: arguments) }
        return []
    }

    /// `sender` calls the agent as ReveilleKit and the CLI do.
    @discardableResult
    func send(_ call: AgentCall, from sender: String) async -> SentCall {
        let (method, arguments) = AgentClient.wire(call)
        return await send(method, CallArguments(delivering: arguments, limit: WireLimits.callBytes), from: sender)
    }

    /// `sender` calls `method` with what a peer's message would carry; returns once the loop
    /// has done all the call led to (a change is answered in a later turn, by the runtime): the
    /// call is answered then, or waits for something else (the user's decision).
    @discardableResult
    func send(_ method: String, _ arguments: CallArguments, from sender: String) async -> SentCall {
        let call = SentCall(sender: sender, method: method, arguments: arguments)
        handler?(call)
        await runtime?.quiet()
        return call
    }

    /// The signals since `start`, by subscriber.
    func signals(since start: Int, to name: String) -> [Signal] {
        signals[start...].filter { $0.to == name }
    }
}

/// One call fed to the service; records how it was answered.
@GLibActor
final class SentCall: IncomingCall {
    enum Answer: Equatable {
        case reply([Variant])
        /// The error's name without `AgentInterface.errorPrefix`, and its message.
        case error(String, message: String)
    }

    let sender: String
    let method: String
    let arguments: [Variant]
    let argumentBytes: Int
    let isOversized: Bool
    /// Every answer given: one, once the call is answered.
    private(set) var answers: [Answer] = []
    /// Hears the answer as it is given.
    var onAnswer: (@GLibActor (Answer) -> Void)?

    init(sender: String, method: String, arguments: CallArguments) {
        self.sender = sender
        self.method = method
        self.arguments = arguments.values
        argumentBytes = arguments.bytes
        isOversized = arguments.isOversized
    }

    var answer: Answer? { answers.first }

    /// The reply's values; `nil` when it failed or is not answered yet.
    var values: [Variant]? {
        guard case .reply(let values) = answer else { return nil }
        return values
    }

    /// The reply's strings; `nil` when it failed or is not answered yet.
    var strings: [String]? {
        guard case .reply(let values) = answer else { return nil }
        return values.compactMap(\.string)
    }

    /// The error's short name (`NotFound`), if it failed.
    var error: String? {
        guard case .error(let name, _) = answer else { return nil }
        return name
    }

    func reply(_ values: [Variant]) { answered(.reply(values)) }

    /// The loop time charged for work done after the handler returned.
    private(set) var charged: Double = 0
    func charge(seconds: Double) { charged += seconds }

    func fail(name: String, message: String) {
        #expect(name.hasPrefix(AgentInterface.errorPrefix), "a named error of the agent's: \(name)")
        answered(.error(String(name.dropFirst(AgentInterface.errorPrefix.count)), message: message))
    }

    private func answered(_ answer: Answer) {
        answers.append(answer)
        #expect(answers.count == 1, "\(method) is answered once, not \(answers)")
        onAnswer?(answer)
    }
}

/// Connections the test names: an unknown one is the user's tools; one that says Hello is
/// the app it declares (an unconfined process, as `ClientRegistry` takes it).
@GLibActor
final class NamedClients: ClientDirectory {
    private var clients: [String: ClientRegistry.Client] = [:]

    func identity(of sender: String) throws(AlarmError) -> ClientIdentity {
        clients[sender]?.identity ?? .user
    }

    func client(_ sender: String) -> ClientRegistry.Client? { clients[sender] }

    func hello(_ sender: String, declaredID: String, usageDescription: String) throws(AlarmError) -> ClientIdentity {
        try ClientRegistry.validate(appID: declaredID)
        let identity = ClientIdentity(appID: declaredID, sandboxed: false, source: "declared")
        clients[sender] = ClientRegistry.Client(identity: identity, usageDescription: usageDescription,
                                                subscribed: clients[sender]?.subscribed ?? false, declaredID: declaredID)
        return identity
    }

    func subscribe(_ sender: String, as identity: ClientIdentity) throws(AlarmError) {
        clients[sender, default: ClientRegistry.Client(identity: identity)].subscribed = true
    }

    var subscribers: [(name: String, identity: ClientIdentity)] {
        clients.filter(\.value.subscribed).map { ($0.key, $0.value.identity) }
    }
}
