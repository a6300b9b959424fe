import ReveilleAgent
import Testing

/// When the agent's loop trims the heap: once, after `idleDelay` with nothing to do following work;
/// never while it works, and never an agent that did nothing since. The code's pages go too only
/// when no timer is due within `codeHorizon`.
@Suite("Heap and code pages given back when idle")
struct IdleTrimTests {
    let delay = IdleTrim.idleDelay

    @Test func aWaitWithoutLimitOrLongerIsCutToTheDelayOnlyAfterWork() {
        #expect(IdleTrim.wait(for: -1, workSinceTrim: true) == delay)
        #expect(IdleTrim.wait(for: delay * 10, workSinceTrim: true) == delay)
        #expect(IdleTrim.wait(for: 100, workSinceTrim: true) == 100, "a timer due sooner keeps its wait")
        #expect(IdleTrim.wait(for: -1, workSinceTrim: false) == -1, "an agent idle since its trim sleeps without limit")
        #expect(IdleTrim.wait(for: delay * 10, workSinceTrim: false) == delay * 10)
    }

    @Test func onlyACutWaitThatFoundNothingTrims() {
        #expect(IdleTrim.outcome(ready: 0, timeout: -1, waited: delay) == .trim)
        #expect(IdleTrim.outcome(ready: 0, timeout: delay * 10, waited: delay) == .trim)
        #expect(IdleTrim.outcome(ready: 1, timeout: -1, waited: delay) == .work, "a call arrived: work, not idle")
        #expect(IdleTrim.outcome(ready: 0, timeout: 100, waited: 100) == .work, "a timer fell due: its callback runs")
        #expect(IdleTrim.outcome(ready: 2, timeout: -1, waited: -1) == .work)
        #expect(IdleTrim.outcome(ready: 0, timeout: -1, waited: -1) == .nothing)
    }

    @Test func anIdleAgentIsWokenOnceAfterWorkAndThenNotAgain() {
        // Work, then silence: one cut wait trims; the next wait is unlimited again.
        var workSinceTrim = true
        var wakeups = 0
        for _ in 0..<3 {
            let waited = IdleTrim.wait(for: -1, workSinceTrim: workSinceTrim)
            if waited >= 0 { wakeups += 1 }
            switch IdleTrim.outcome(ready: 0, timeout: -1, waited: waited) {
            case .trim: workSinceTrim = false
            case .work: workSinceTrim = true
            case .nothing: break
            }
        }
        #expect(wakeups == 1)
        #expect(!workSinceTrim)
    }

    @Test func theCodeIsGivenBackOnlyWhenNoTimerIsDueSoon() {
        let horizon = IdleTrim.codeHorizon
        #expect(IdleTrim.releasesCode(timeout: -1, waited: delay), "no timer at all")
        #expect(IdleTrim.releasesCode(timeout: delay + horizon, waited: delay), "the next timer exactly the horizon away")
        #expect(!IdleTrim.releasesCode(timeout: delay + horizon - 1, waited: delay), "a timer due just inside the horizon")
        #expect(!IdleTrim.releasesCode(timeout: 2000, waited: delay), "a sound prepared 1.5 s before its alarm")
    }
}
