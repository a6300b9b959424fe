import Foundation
import ReveilleCore
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// Ring, rest, ring again, then stop (issue 52), through the real agent, CLI and notification
/// server: a timer nobody answers rings three times, an agent restart in a rest included, and
/// is then missed; the list says which ring comes; the history keeps each ring.
@Suite("Unanswered repeat end to end", .waitsOnItsOwnThread)
struct UnansweredRepeatEndToEndTests {
    struct Listed: Decodable {
        var id: String, state: String
        var repeatUnanswered: String?
        var ringsAgain: RingsAgain?
        struct RingsAgain: Decodable, Equatable { var ring: Int, of: Int }
    }

    struct Entry: Decodable { var alarm: String, outcome: String, seconds: Double }

    @Test func threeRingsFiveSecondsApartAcrossARestartThenMissed() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let refused = try session.cli("timer", "1s", "--title", "Nap", "--repeat-unanswered", "12x5s")
        #expect(refused.status == 64 && refused.stderr.contains("--repeat-unanswered") && refused.stderr.contains("12x5s")
                && refused.stderr.contains("2 to 10 rings"), "\(refused.stderr)")
        let nap = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Nap", "--ring-limit", "5s", "--repeat-unanswered", "3x5s")
        func listed() throws -> Listed? { try session.cliJSON([Listed].self, "list").first { $0.id == nap.id } }

        _ = try eventually(timeout: 20, "the first ring") { try session.alerts(titled: "Nap").first }
        let resting = try eventually(timeout: 20, "the first rest") { try listed().flatMap { $0.ringsAgain != nil ? $0 : nil } }
        #expect(resting.ringsAgain == .init(ring: 2, of: 3) && resting.repeatUnanswered == "3x5s", "\(resting)")
        let shown = try session.cli("list")
        #expect(shown.stdout.contains("unanswered; rings again") && shown.stdout.contains("2 of 3"), "\(shown.stdout)")
        #expect(try session.notifications(titled: "Missed: Nap").isEmpty, "no missed notice before the last ring")

        // The agent stops in the rest and starts again: the chain goes on from what it wrote.
        try session.killAgent(signal: SIGTERM)
        try session.startAgent()
        #expect(try listed()?.ringsAgain == .init(ring: 2, of: 3))
        _ = try eventually(timeout: 20, "the second ring, after the restart") { try listed().flatMap { $0.state == "alerting" ? $0 : nil } }
        let second = try eventually(timeout: 20, "the second rest") { try listed().flatMap { $0.ringsAgain?.ring == 3 ? $0 : nil } }
        #expect(second.ringsAgain == .init(ring: 3, of: 3))
        _ = try eventually(timeout: 30, "the missed notice after the third ring") { try session.notifications(titled: "Missed: Nap").first }
        #expect(try listed() == nil, "a timer missed at its last ring ends")

        let entries = try eventually(timeout: 10, "three rings in the history") {
            let entries = try session.cliJSON([Entry].self, "history").filter { $0.alarm == nap.id }
            return entries.count == 3 ? entries : nil
        }
        #expect(entries.map(\.outcome) == ["unansweredRingsAgain", "unansweredRingsAgain", "missedUnanswered"], "\(entries)")
        #expect(entries.allSatisfy { $0.seconds >= 4.5 && $0.seconds < 9 }, "each ring to its 5 s limit: \(entries.map(\.seconds))")
        let table = try session.cli("history")
        #expect(table.stdout.contains("unanswered: rang again later") && table.stdout.contains("missed: rang unanswered"), "\(table.stdout)")
    }

    @Test func stopWhileItRestsEndsTheChain() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        #expect(try session.cli("settings", "repeatUnanswered=3x20s").status == 0)
        let tea = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Tea", "--ring-limit", "5s")
        let resting = try eventually(timeout: 20, "the rest the setting gives") {
            try session.cliJSON([Listed].self, "list").first { $0.id == tea.id && $0.state == "countdown" && $0.ringsAgain != nil }
        }
        #expect(resting.ringsAgain == .init(ring: 2, of: 3) && resting.repeatUnanswered == nil, "the setting, not its own: \(resting)")
        let stopped = try session.cli("stop", tea.id)
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(try session.cliJSON([Listed].self, "list").allSatisfy { $0.id != tea.id }, "a stopped timer ends")
        #expect(try session.notifications(titled: "Missed: Tea").isEmpty)
    }
}
