import Logging
@testable import ReveilleAgent
@testable import ReveilleAgentRuntime
import ReveilleAgentTesting
import ReveilleRules
import ReveilleSound
import SystemPackage

extension Agent {
    /// The agent as `Agent.start` wires it (`assemble`), in process on virtual time: the
    /// notification and sound servers are the recording ones given, the service's bus and
    /// callers `bus` and `clients`; there is no session bus, so no panel item, media player, lock
    /// or reach watch. The store, the settings and the history are in `folder`; nothing starts.
    static func inProcess(folder: FilePath, clock: VirtualClock, notifications: any NotificationTransport,
                          sound: any SoundOutput, bus: any ServiceBus = RecordingBus(),
                          clients: any ClientDirectory = NamedClients(),
                          engine: AgentRuntime.Settings = .init(), sources: [AgentOutbox] = []) throws -> AgentParts {
        let logger = Logger(label: "test")
        let peers = AgentPeers(notifications: notifications, sound: sound, service: bus, clients: clients,
                               clientLog: ClientLog(logger: logger), session: nil)
        return try assemble(peers: peers, clock: clock,
                            setup: AgentSetup(stateDirectory: folder, configDirectory: folder, engine: engine, logger: logger), sources: sources)
    }
}
