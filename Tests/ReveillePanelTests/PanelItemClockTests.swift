import Foundation
import Logging
@testable import ReveilleAgent
@testable import ReveilleAgentRuntime
import ReveilleAgentTesting
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleModel
@testable import ReveillePanel
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import SystemPackage
import Testing

/// The panel item keeps its countdown's text current with a timer of the agent's clock: on
/// virtual time in tests, and only while a countdown shows.
@Suite("Panel item on virtual time", .waitsOnItsOwnThread)
struct PanelItemClockTests {
    @Test func theTooltipRefreshIsATimerOfTheClockOnlyWhileACountdownShows() async throws {
        let session = try TestSession(audio: .none)
        let bus = try BusConnection.connect(address: try #require(session.environment["DBUS_SESSION_BUS_ADDRESS"]))
        let folder = try privateFolder("reveille-panel-clock")
        defer { try? FileManager.default.removeItem(atPath: folder.string) }
        try await Task { @GLibActor in
            let clock = VirtualClock()
            let panel = try PanelItem(gate: ExportGate(bus: bus) { _, answer in answer(.success(.user)) }, logger: .init(label: "test"), clock: clock)
            let client = RuntimeClient()
            let runtime = AgentRuntime(store: AlarmStore(directory: folder), settings: .init(), logger: .init(label: "test"), clock: clock,
                                       sources: [client.outbox], followers: [panel])
            try runtime.start()
            clock.advance()
            let idle = clock.pendingTimers
            let request = AlarmRequest(schedule: nil, countdownDuration: .init(preAlert: 300, postAlert: nil),
                                       presentation: AlarmPresentation(alert: .init(title: "Tea"), countdown: .init(title: "Tea"),
                                                                       paused: .init(title: "Tea")))
            let tea = try #require(try await client.call(.schedule(id: UUID(), request: request, appID: ClientIdentity.userAppID)))
            #expect(clock.pendingTimers == idle + 1, "the countdown's next change of text is a timer of the clock")
            clock.advance(by: 125)
            #expect(clock.pendingTimers == idle + 1, "armed again at each change, one at a time")
            try await client.call(.apply(.pause, id: .id(tea.id)))
            #expect(clock.pendingTimers == idle, "a paused countdown's text does not change: no timer")
            withExtendedLifetime(panel) {}
        }.value
    }
}
