import ReveilleAgent
import Testing

/// When the agent's loop trims the heap: once, after `idleDelay` with nothing to do following work;
/// never while it works, and never an agent that did nothing since.
@Suite("Heap given back when idle")
struct IdleTrimTests {
    let delay = IdleTrim.idleDelay

    @Test func aWaitWithoutLimitOrLongerIsCutToTheDelayOnlyAfterWork() {
        let worked = IdleTrim.State(workSinceTrim: true), rested = IdleTrim.State(workSinceTrim: false)
        #expect(IdleTrim.wait(for: -1, state: worked) == IdleTrim.Wait(delay, idleCut: true))
        #expect(IdleTrim.wait(for: delay * 10, state: worked) == IdleTrim.Wait(delay, idleCut: true))
        #expect(IdleTrim.wait(for: 100, state: worked) == IdleTrim.Wait(100), "a timer due sooner keeps its wait")
        #expect(IdleTrim.wait(for: -1, state: rested) == IdleTrim.Wait(-1), "an agent idle since its trim sleeps without limit")
        #expect(IdleTrim.wait(for: delay * 10, state: rested) == IdleTrim.Wait(delay * 10))
    }

    @Test func onlyTheIdleDelaysCutFindingNothingAfterWorkTrims() {
        func trims(ready: Int32, timeout: Int32, wait: IdleTrim.Wait, workSinceTrim: Bool = true) -> Bool {
            var state = IdleTrim.State(workSinceTrim: workSinceTrim)
            return IdleTrim.after(ready: ready, timeout: timeout, wait: wait, state: &state)
        }
        let idleCut = IdleTrim.Wait(delay, idleCut: true)
        #expect(trims(ready: 0, timeout: -1, wait: idleCut))
        #expect(trims(ready: 0, timeout: delay * 10, wait: idleCut))
        #expect(!trims(ready: 1, timeout: -1, wait: idleCut), "a call arrived: work, not idle")
        #expect(!trims(ready: 0, timeout: 100, wait: IdleTrim.Wait(100)), "a timer fell due: its callback runs")
        #expect(!trims(ready: 0, timeout: -1, wait: IdleTrim.Wait(-1), workSinceTrim: false))
    }

    @Test func anIdleAgentIsWokenOnceAfterWorkAndThenNotAgain() {
        // Work, then silence: one cut wait trims; the next wait is unlimited again.
        var state = IdleTrim.State()
        var wakeups = 0, trims = 0
        for _ in 0..<3 {
            let wait = IdleTrim.wait(for: -1, state: state)
            if wait.milliseconds >= 0 { wakeups += 1 }
            if IdleTrim.after(ready: 0, timeout: -1, wait: wait, state: &state) { trims += 1 }
        }
        #expect(wakeups == 1 && trims == 1)
        #expect(state == IdleTrim.State(workSinceTrim: false))
    }
}
