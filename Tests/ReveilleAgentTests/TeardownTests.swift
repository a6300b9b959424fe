import Foundation
import Logging
@testable import ReveilleAgent
@testable import ReveilleAgentRuntime
import ReveilleAgentTesting
import ReveilleBus
import ReveilleCore
import ReveilleLoop
@testable import ReveilleNotifications
@testable import ReveillePanel
@testable import ReveilleSound
import ReveilleTestSupport
import ReveilleTestTraits
import ReveilleTimeZone
import SystemPackage
import Testing

/// What a part asked of GLib, GDBus or libpulse goes when the part goes: a connection or a
/// callback left behind would call into freed memory or keep a peer's resources.
@Suite("Teardown", .waitsOnItsOwnThread)
struct TeardownTests {
    /// Holds a part on the loop, so the test can let it go there.
    @GLibActor final class Holder {
        var pulse: PulseAudio?
        var panel: PanelItem?
        /// A part whose only trace is its subscriptions and watches.
        var part: AnyObject?

        /// A panel item on `bus`, with events to send (no runtime reads them).
        func makePanel(bus: BusConnection, folder: String) throws {
            let utc = GLibTimeZone(identifier: "UTC")!
            let clock = VirtualClock(now: Date(timeIntervalSince1970: 1_800_000_000), timeZone: utc)
            panel = try PanelItem(gate: ExportGate(bus: bus) { _, answer in answer(.success(.user)) }, logger: .init(label: "test"), clock: clock)
        }
    }

    /// How many of the sound server's clients have this application name (`pactl list clients`).
    func clients(named name: String, in session: TestSession) throws -> Int {
        try session.pactl("list", "clients").stdout.components(separatedBy: "application.name = \"\(name)\"").count - 1
    }

    @Test func aPulseAudioClientThatGoesClosesItsConnection() async throws {
        let session = try TestSession(audio: .pulseAudio)
        let name = "reveille-teardown-\(UUID().uuidString.prefix(8))"
        let server = try #require(session.environment["PULSE_SERVER"])
        let holder = await Holder()
        let connected = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            Task { @GLibActor in
                let pulse = PulseAudio(appName: name, appID: "io.github.reveille.Tests")
                holder.pulse = pulse
                pulse.onReadyChange = { [weak pulse] ready in
                    pulse?.onReadyChange = nil
                    done.resume(returning: ready)
                }
                pulse.connect(server: server)
            }
        }
        #expect(connected, "the client connects to the session's PulseAudio")
        #expect(try clients(named: name, in: session) == 1)
        await Task { @GLibActor in holder.pulse = nil }.value
        _ = try eventually(timeout: 10, "the server to drop the client once the object is gone") {
            try clients(named: name, in: session) == 0 ? true : nil
        }
    }

    /// The bus's match rules in all (its `Debug.Stats`): what subscriptions and name watches add.
    func matchRules(in session: TestSession) throws -> Int {
        let stats = try session.gdbusCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                          method: "org.freedesktop.DBus.Debug.Stats.GetStats", []).stdout
        let match = try #require(stats.firstMatch(of: /'MatchRules': <uint32 (\d+)>/), "\(stats)")
        return try #require(Int(match.1))
    }

    /// Makes a part on a session's bus, waits for its match rules (subscriptions, name
    /// watches) to reach the bus, lets the part go, and waits for them to go with it.
    func expectRulesGo(with part: String, rule: String,
                       _ make: @escaping @GLibActor @Sendable (BusConnection) -> AnyObject) async throws {
        let session = try TestSession(audio: .none)
        let bus = try BusConnection.connect(address: try #require(session.environment["DBUS_SESSION_BUS_ADDRESS"]))
        let before = try matchRules(in: session)
        let holder = await Holder()
        await Task { @GLibActor in holder.part = make(bus) }.value
        _ = try eventually("the \(part)'s \(rule)") { try matchRules(in: session) > before ? true : nil }
        await Task { @GLibActor in holder.part = nil }.value
        _ = try eventually("the \(rule) to go with the \(part)") { try matchRules(in: session) == before ? true : nil }
    }

    @Test func aClientRegistryThatGoesRemovesItsSubscription() async throws {
        try await expectRulesGo(with: "registry", rule: "NameOwnerChanged rule") { bus in ClientRegistry(bus: bus, log: ClientLog(logger: Logger(label: "test"))) }
    }

    @Test func aPanelItemThatGoesUnexportsItsObjectsAndDropsItsWatch() async throws {
        let session = try TestSession(audio: .none)
        let bus = try BusConnection.connect(address: try #require(session.environment["DBUS_SESSION_BUS_ADDRESS"]))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-teardown-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let before = try matchRules(in: session)
        let holder = await Holder()
        try await Task { @GLibActor in try holder.makePanel(bus: bus, folder: folder) }.value
        _ = try eventually("the item's watch on the StatusNotifierWatcher") { try matchRules(in: session) > before ? true : nil }
        await Task { @GLibActor in holder.panel = nil }.value
        _ = try eventually("the watch to go with the item") { try matchRules(in: session) == before ? true : nil }
        // Nothing of the first item is left on the connection: its paths can be exported again
        // (GDBus refuses a second export of an object path still exported).
        try await Task { @GLibActor in
            try holder.makePanel(bus: bus, folder: folder)
            holder.panel = nil
        }.value
    }

    @Test func aDoNotDisturbWatchThatGoesRemovesItsSubscription() async throws {
        try await expectRulesGo(with: "watch", rule: "OnDndToggle rule") { bus in
            DoNotDisturbWatch(source: .swayncSignal, bus: bus, logger: Logger(label: "test")) { _ in }
        }
    }

    @Test func aNotificationServerThatGoesDropsItsWatchOnTheServersName() async throws {
        try await expectRulesGo(with: "server object", rule: "watch on org.freedesktop.Notifications") { bus in
            NotificationClient(bus: bus, logger: Logger(label: "test"))
        }
    }
}
