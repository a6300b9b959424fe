import Foundation
@testable import ReveilleAgent
@testable import ReveilleAgentRuntime
import ReveilleBus
import ReveilleCore
import ReveilleModel
import ReveilleRules
import Testing

/// The agent's budgets and who-is-calling rules, in process.
@Suite("Agent boundary")
struct AgentBoundaryTests {
    @Test func parkedCallsAreBoundedByCountAndBytesPerConnectionAppAndInAll() throws {
        var parked = ParkedCalls()
        var tickets: [ParkedCalls.Ticket] = []
        for _ in 0..<WireLimits.parkedCallsPerConnection {
            tickets.append(try parked.admit(connection: ":1.1", app: "org.a", bytes: 100))
        }
        #expect(throws: AlarmError.self) { try parked.admit(connection: ":1.1", app: "org.a", bytes: 100) }
        // Bytes: a connection cannot hold more than its share, whatever the count.
        #expect(throws: AlarmError.self) { try parked.admit(connection: ":1.2", app: "org.a", bytes: WireLimits.parkedBytesPerConnection + 1) }
        // In all: many apps on many connections stop at the total.
        var others = 0
        while (try? parked.admit(connection: ":2.\(others)", app: "org.b\(others)", bytes: WireLimits.parkedBytesPerConnection)) != nil {
            others += 1
        }
        #expect(parked.bytes <= WireLimits.parkedBytes)
        #expect(others == (WireLimits.parkedBytes - 800) / WireLimits.parkedBytesPerConnection)
        for ticket in tickets { parked.release(ticket) }
        #expect(parked.bytes == others * WireLimits.parkedBytesPerConnection)
        _ = try parked.admit(connection: ":1.1", app: "org.a", bytes: 100)
    }

    func marker(_ contents: String?, fifo: Bool = false, symlink: Bool = false) throws -> FlatpakInfo {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("flatpak-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent(".flatpak-info").path
        if fifo { #expect(mkfifo(path, 0o600) == 0) }
        if symlink {
            try "[Application]\nname=org.example.Real\n".write(toFile: path + "-target", atomically: true, encoding: .utf8)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: path + "-target")
        }
        if let contents { try contents.write(toFile: path, atomically: true, encoding: .utf8) }
        return FlatpakInfo.read(path: path)
    }

    /// Before: a marker over 1 MiB, one with only [Runtime], or a FIFO was taken for "not sandboxed".
    @Test func aSandboxMarkerThatCannotBeReadWholeIsARefusalNotTheUser() throws {
        #expect(try marker(nil) == .absent)
        #expect(try marker("[Application]\nname=org.example.Cook\n") == .app("org.example.Cook"))
        let unreadable: [FlatpakInfo] = [
            try marker("[Runtime]\nruntime=org.gnome.Platform\n"),
            try marker("[Application]\nname=org.example.Cook\n" + String(repeating: "#\n", count: 600_000)),
            try marker("not a key file at all \u{1}"),
            try marker("[Application]\nname=../../evil\n"),
            try marker(nil, fifo: true),
            try marker(nil, symlink: true),
        ]
        for info in unreadable {
            guard case .unreadable = info else { Issue.record("taken as \(info)"); continue }
        }
    }

    @Test func aProcessThatStartedAfterItsConnectionAppearedIsNotItsOwner() {
        var times = ConnectionTimes()
        times.watchedSince = 1000
        times.own = ":1.3"
        times.changed(":1.5", appeared: true, at: 1500)
        #expect(times.connected(":1.5", arrived: 1600) == 1500)
        #expect(times.connected(":1.2", arrived: 1600) == 1000, "connections named before the agent's predate the watch")
        // Named after the agent's and not heard appearing (the bus daemon dropped the signal to
        // the agent's full queue): it was there when its call arrived, no sooner is known. It had
        // been taken for one older than the agent, and the user's new `reveille` refused.
        #expect(times.connected(":1.4", arrived: 1600) == 1600)
        #expect(times.connected(":1.12", arrived: 1700) == 1700, "names compare by number: :1.12 came after :1.3")
        times.changed(":1.5", appeared: false, at: 0)
        #expect(times.connected(":1.5", arrived: 1800) == 1800)
        #expect(ConnectionTimes.isNamed(":2.0", after: ":1.99") && !ConnectionTimes.isNamed(":1.9", after: ":1.10"))
        #expect(!ConnectionTimes.isNamed("org.example", after: ":1.1") && !ConnectionTimes.isNamed(":1.x", after: ":1.1"))
        times.own = ""
        #expect(times.connected(":1.4", arrived: 1600) == 1000, "the agent's own name unknown: as before")
        let started = ProcessStart.of(pid: getpid())
        #expect(started != nil && started! <= ProcessStart.now())
        #expect(ProcessStart.ticks(seconds: 5, nanoseconds: 999_999_999, hertz: 100) == 599, "a start in tick 600 is after 5.999999999 s")
        #expect(ProcessStart.of(pid: -1) == nil)
    }
}
