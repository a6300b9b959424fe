import ReveilleAgent
import Testing

/// When the agent's loop trims the heap: once, after `idleDelay` with nothing to do following work;
/// never while it works, and never an agent that did nothing since.
@Suite("Heap trimmed when idle")
struct IdleHeapTrimTests {
    let delay = IdleHeapTrim.idleDelay

    @Test func aWaitWithoutLimitOrLongerIsCutToTheDelayOnlyAfterWork() {
        #expect(IdleHeapTrim.wait(for: -1, workSinceTrim: true) == delay)
        #expect(IdleHeapTrim.wait(for: delay * 10, workSinceTrim: true) == delay)
        #expect(IdleHeapTrim.wait(for: 100, workSinceTrim: true) == 100, "a timer due sooner keeps its wait")
        #expect(IdleHeapTrim.wait(for: -1, workSinceTrim: false) == -1, "an agent idle since its trim sleeps without limit")
        #expect(IdleHeapTrim.wait(for: delay * 10, workSinceTrim: false) == delay * 10)
    }

    @Test func onlyACutWaitThatFoundNothingTrims() {
        #expect(IdleHeapTrim.outcome(ready: 0, timeout: -1, waited: delay) == .trim)
        #expect(IdleHeapTrim.outcome(ready: 0, timeout: delay * 10, waited: delay) == .trim)
        #expect(IdleHeapTrim.outcome(ready: 1, timeout: -1, waited: delay) == .work, "a call arrived: work, not idle")
        #expect(IdleHeapTrim.outcome(ready: 0, timeout: 100, waited: 100) == .work, "a timer fell due: its callback runs")
        #expect(IdleHeapTrim.outcome(ready: 2, timeout: -1, waited: -1) == .work)
        #expect(IdleHeapTrim.outcome(ready: 0, timeout: -1, waited: -1) == .nothing)
    }

    @Test func anIdleAgentIsWokenOnceAfterWorkAndThenNotAgain() {
        // Work, then silence: one cut wait trims; the next wait is unlimited again.
        var workSinceTrim = true
        var wakeups = 0
        for _ in 0..<3 {
            let waited = IdleHeapTrim.wait(for: -1, workSinceTrim: workSinceTrim)
            if waited >= 0 { wakeups += 1 }
            switch IdleHeapTrim.outcome(ready: 0, timeout: -1, waited: waited) {
            case .trim: workSinceTrim = false
            case .work: workSinceTrim = true
            case .nothing: break
            }
        }
        #expect(wakeups == 1)
        #expect(!workSinceTrim)
    }
}
