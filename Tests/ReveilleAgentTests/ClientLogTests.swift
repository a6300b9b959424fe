import FoundationEssentials
@testable import ReveilleAgent
@testable import ReveilleAgentRuntime
import Testing

/// How many lines clients' calls write to the log: a bucket, refilled with time, that counts what it holds back.
@Suite("Client log budget")
struct ClientLogTests {
    @Test func aBurstIsWrittenThenOneASecondAndWhatWasHeldBackIsCounted() {
        var log = LogBudget()
        let burst = Int(LogBudget.burst)
        // A client hammering: the first `burst` refusals are written, the rest of that instant not.
        let first = (0..<1_000).map { _ in log.admit(at: 100) }
        #expect(first.filter(\.write).count == burst)
        #expect(first.prefix(burst).allSatisfy { $0 == (true, 0) })
        #expect(log.heldBack == 1_000 - burst)
        // Half a second later nothing more; a second later one line, which says how many were not.
        #expect(log.admit(at: 100.5) == (false, 0))
        #expect(log.admit(at: 101.0) == (true, 1_000 - burst + 1))
        #expect(log.heldBack == 0)
        // Quiet for a while, the whole burst again.
        #expect((0..<burst).map { _ in log.admit(at: 200).write }.allSatisfy { $0 })
        #expect(log.admit(at: 200).write == false)
    }

    @Test func aClockThatGoesBackGivesNothingBack() {
        var log = LogBudget()
        for _ in 0..<Int(LogBudget.burst) { _ = log.admit(at: 50) }
        #expect(log.admit(at: 10).write == false, "no refill for time going back")
        #expect(log.admit(at: 11).write == false, "nor for the second after it")
        #expect(log.admit(at: 51).write == true)
    }
}
