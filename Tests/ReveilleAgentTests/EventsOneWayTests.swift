import Foundation
import Logging
@testable import ReveilleAgent
@testable import ReveilleAgentRuntime
import ReveilleAgentTesting
import ReveilleBus
import ReveilleLoop
import ReveilleNotifications
import ReveilleTestSupport
import ReveilleTestTraits
import SystemPackage
import Testing

/// Events travel one way: every part of the agent as `Agent.assemble` wires it (with a session
/// bus, so the panel item, the media player, the lock and reach watches and sync are there too)
/// sends what it has to say into an outbox of its own, which the runtime reads. No part holds
/// the runtime, strongly or weakly, nor another part's outbox: what each stores is walked, and
/// the runtime goes as soon as the agent lets it go, while every part stays.
@Suite("Events one way", .waitsOnItsOwnThread)
struct EventsOneWayTests {
    /// What a walk through a part's stored properties found.
    struct Finding: CustomStringConvertible {
        let path: String
        let what: String
        var description: String { "\(path): \(what)" }
    }

    /// Walks what `root` stores, through values, optionals, collections and objects (each once),
    /// and reports each path that reaches an `AgentRuntime`, and each `AgentOutbox` stored under
    /// another name than `outbox` (a part's own).
    @GLibActor
    static func holdings(of root: Any, named name: String) -> [Finding] {
        var findings: [Finding] = []
        var seen = Set<ObjectIdentifier>()
        var walked = 0
        func walk(_ value: Any, path: String, label: String?) {
            walked += 1
            guard walked < 200_000 else { return }
            if value is AgentRuntime { return findings.append(Finding(path: path, what: "the runtime")) }
            if value is AgentOutbox, label != "outbox" {
                return findings.append(Finding(path: path, what: "an outbox that is not its own"))
            }
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .class {
                guard seen.insert(ObjectIdentifier(value as AnyObject)).inserted else { return }
            }
            var current: Mirror? = mirror
            while let level = current {
                for (index, child) in level.children.enumerated() {
                    let childLabel = child.label ?? "[\(index)]"
                    walk(child.value, path: path + "." + childLabel, label: child.label)
                }
                current = level.superclassMirror
            }
        }
        walk(root, path: name, label: nil)
        return findings
    }

    @Test func noPartHoldsTheRuntimeAndTheRuntimeGoesWhenTheAgentLetsItGo() async throws {
        let session = try TestSession(audio: .none)
        let address = try #require(session.environment["DBUS_SESSION_BUS_ADDRESS"])
        let folder = try privateFolder("reveille-one-way")
        defer { try? FileManager.default.removeItem(atPath: folder.string) }
        try await Task { @GLibActor in
            let bus = try BusConnection.connect(address: address)
            let logger = Logger(label: "test")
            let clock = VirtualClock()
            let gate = ExportGate(bus: bus) { _, answer in answer(.success(.user)) }
            let peers = AgentPeers(notifications: RecordingNotifications(clock: clock), sound: RecordingSound(clock: clock),
                                   service: RecordingBus(), clients: NamedClients(), clientLog: ClientLog(logger: logger),
                                   session: .init(bus: bus, gate: gate, notifications: NotificationClient(bus: bus, logger: logger)))
            var parts: AgentParts? = try Agent.assemble(peers: peers, clock: clock,
                                                        setup: AgentSetup(stateDirectory: folder, configDirectory: folder, logger: logger))
            try parts!.startAlarms()
            weak let runtime = parts!.runtime

            // Every part but the runtime, as the agent holds them.
            let others = Mirror(reflecting: parts!).children.filter { $0.label != "runtime" }
            #expect(others.count >= 11, "the parts are read: \(others.compactMap(\.label))")
            #expect(others.contains { $0.label == "panel" && ($0.value as Any?) != nil }, "with the session's parts")
            var findings: [Finding] = []
            for part in others { findings += Self.holdings(of: part.value, named: part.label ?? "?") }
            #expect(findings.isEmpty, "\(findings)")

            let kept = others.map(\.value)
            parts = nil
            #expect(runtime == nil, "something the parts keep holds the runtime")
            withExtendedLifetime(kept) {}
        }.value
    }
}
