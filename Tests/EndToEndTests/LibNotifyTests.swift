import Foundation
import ReveilleCore
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// The agent shows notifications through libnotify, on a thread of its own, against the
/// recording server.
@Suite("libnotify end to end", .waitsOnItsOwnThread)
struct LibNotifyTests {
    @Test func notificationsComeFromLibnotifyOnItsOwnThread() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let agent = try #require(session.agent?.pid)
        _ = try session.cliJSON(AlarmJSON.self, "timer", "55s", "--title", "Soup")
        let countdown = try eventually(timeout: 20, "the countdown notification") { try session.notifications(titled: "Soup").first }
        // libnotify names the sending process in every Notify; the agent's own GDBus calls did not.
        #expect(countdown.hints?["sender-pid"] == .number(Double(agent)), "\(String(describing: countdown.hints))")
        let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(agent)/task").map {
            try String(contentsOfFile: "/proc/\(agent)/task/\($0)/comm", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(threads.contains("notifications"), "libnotify's thread: \(threads)")
        // At 50 s left the text changes: the same NotifyNotification is shown again, in place.
        let refreshed = try eventually(timeout: 10, "the countdown's refresh") {
            try session.notifications(titled: "Soup").dropFirst().first
        }
        #expect(refreshed.id == countdown.id, "updated in place, not shown anew")
        #expect(refreshed.body != countdown.body)
        #expect(try session.events.first { $0.event == "closed" && $0.id == countdown.id } == nil)
    }
}
