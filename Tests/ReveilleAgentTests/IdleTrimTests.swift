import ReveilleAgent
import Testing

/// When the agent's loop trims the heap: once, after `idleDelay` with nothing to do following work;
/// never while it works, and never an agent that did nothing since. The code's pages go too only
/// when nothing is due within `codeHorizon`, a timer of the loop or the alarm timer's instant, and
/// come back that far ahead of the alarm.
@Suite("Heap and code pages given back when idle")
struct IdleTrimTests {
    let delay = IdleTrim.idleDelay
    let horizon = IdleTrim.codeHorizon

    @Test func aWaitWithoutLimitOrLongerIsCutToTheDelayOnlyAfterWork() {
        let worked = IdleTrim.State(workSinceTrim: true), rested = IdleTrim.State(workSinceTrim: false)
        #expect(IdleTrim.wait(for: -1, untilAlarm: nil, state: worked) == IdleTrim.Wait(delay, idleCut: true))
        #expect(IdleTrim.wait(for: delay * 10, untilAlarm: nil, state: worked) == IdleTrim.Wait(delay, idleCut: true))
        #expect(IdleTrim.wait(for: 100, untilAlarm: nil, state: worked) == IdleTrim.Wait(100), "a timer due sooner keeps its wait")
        #expect(IdleTrim.wait(for: -1, untilAlarm: nil, state: rested) == IdleTrim.Wait(-1), "an agent idle since its trim sleeps without limit")
        #expect(IdleTrim.wait(for: delay * 10, untilAlarm: 60_000, state: rested) == IdleTrim.Wait(delay * 10),
                "code not given back: the alarm cuts nothing")
    }

    @Test func onlyTheIdleDelaysCutFindingNothingAfterWorkTrims() {
        func decide(ready: Int32, timeout: Int32, wait: IdleTrim.Wait, workSinceTrim: Bool = true) -> IdleTrim.Decision {
            var state = IdleTrim.State(workSinceTrim: workSinceTrim)
            return IdleTrim.after(ready: ready, timeout: timeout, wait: wait, untilAlarm: nil, state: &state)
        }
        let idleCut = IdleTrim.Wait(delay, idleCut: true)
        #expect(decide(ready: 0, timeout: -1, wait: idleCut).trimHeap)
        #expect(decide(ready: 0, timeout: delay * 10, wait: idleCut).trimHeap)
        #expect(!decide(ready: 1, timeout: -1, wait: idleCut).trimHeap, "a call arrived: work, not idle")
        #expect(!decide(ready: 0, timeout: 100, wait: IdleTrim.Wait(100)).trimHeap, "a timer fell due: its callback runs")
        #expect(!decide(ready: 0, timeout: -1, wait: IdleTrim.Wait(0)).trimHeap, "a cut for the alarm's horizon is not idleness")
        #expect(decide(ready: 0, timeout: -1, wait: IdleTrim.Wait(-1), workSinceTrim: false) == IdleTrim.Decision())
    }

    @Test func anIdleAgentIsWokenOnceAfterWorkAndThenNotAgain() {
        // Work, then silence, no alarm armed: one cut wait trims; the next wait is unlimited again.
        var state = IdleTrim.State()
        var wakeups = 0, trims = 0
        for _ in 0..<3 {
            #expect(!IdleTrim.before(untilAlarm: nil, state: &state))
            let wait = IdleTrim.wait(for: -1, untilAlarm: nil, state: state)
            if wait.milliseconds >= 0 { wakeups += 1 }
            if IdleTrim.after(ready: 0, timeout: -1, wait: wait, untilAlarm: nil, state: &state).trimHeap { trims += 1 }
        }
        #expect(wakeups == 1 && trims == 1)
        #expect(state == IdleTrim.State(workSinceTrim: false, codeReleased: true))
    }

    @Test func theCodeIsGivenBackOnlyWhenNothingIsDueSoon() {
        func releases(timeout: Int32, untilAlarm: Int64?) -> Bool {
            var state = IdleTrim.State()
            let wait = IdleTrim.Wait(delay, idleCut: true)
            return IdleTrim.after(ready: 0, timeout: timeout, wait: wait, untilAlarm: untilAlarm, state: &state).releaseCode
        }
        #expect(releases(timeout: -1, untilAlarm: nil), "nothing due at all")
        #expect(releases(timeout: delay + Int32(horizon) + 1, untilAlarm: nil), "the next timer just beyond the horizon")
        #expect(!releases(timeout: delay + Int32(horizon), untilAlarm: nil), "a timer due at the horizon")
        #expect(!releases(timeout: 2000, untilAlarm: nil), "a sound prepared 1.5 s before its alarm")
        // The alarm timer is a descriptor the loop polls: the poll's timeout says nothing of it.
        #expect(!releases(timeout: -1, untilAlarm: 1000), "the alarm itself due in 1 s, no timer of the loop")
        #expect(!releases(timeout: -1, untilAlarm: horizon))
        #expect(releases(timeout: -1, untilAlarm: horizon + 1))
        #expect(!releases(timeout: -1, untilAlarm: -5), "an alarm already due")
    }

    @Test func codeGivenBackIsMappedAgainTheHorizonAheadOfTheAlarm() {
        // Idle after work with the alarm 60 s away: the code goes.
        var state = IdleTrim.State()
        var wait = IdleTrim.wait(for: -1, untilAlarm: 60_000, state: state)
        #expect(wait == IdleTrim.Wait(delay, idleCut: true))
        #expect(IdleTrim.after(ready: 0, timeout: -1, wait: wait, untilAlarm: 60_000 - Int64(delay), state: &state)
                == IdleTrim.Decision(trimHeap: true, releaseCode: true))
        // Then the loop sleeps until the horizon before the alarm, not until the alarm.
        let untilAlarm = 60_000 - Int64(delay)
        #expect(!IdleTrim.before(untilAlarm: untilAlarm, state: &state))
        wait = IdleTrim.wait(for: -1, untilAlarm: untilAlarm, state: state)
        #expect(wait == IdleTrim.Wait(Int32(untilAlarm - horizon)))
        #expect(IdleTrim.after(ready: 0, timeout: -1, wait: wait, untilAlarm: horizon, state: &state) == IdleTrim.Decision())
        // Woken there, it maps the code in before its next poll, once, and then waits for the alarm.
        #expect(IdleTrim.before(untilAlarm: horizon, state: &state))
        #expect(!IdleTrim.before(untilAlarm: horizon - 1, state: &state))
        #expect(IdleTrim.wait(for: -1, untilAlarm: horizon, state: state) == IdleTrim.Wait(-1))
        // An alarm armed inside the horizon while the code is given back (`reveille timer 5s`): mapped
        // in before the poll, with no zero wait that would trim in the middle of the work.
        var released = IdleTrim.State(workSinceTrim: true, codeReleased: true)
        #expect(IdleTrim.before(untilAlarm: 5000, state: &released))
        #expect(IdleTrim.wait(for: -1, untilAlarm: 5000, state: released) == IdleTrim.Wait(delay, idleCut: true))
    }

    @Test func aTimerOfTheLoopInsideTheHorizonDoesNotMapTheWholeCodeIn() {
        // A long countdown's notification refreshed each minute: it faults in what it runs, no more.
        var state = IdleTrim.State(workSinceTrim: false, codeReleased: true)
        #expect(!IdleTrim.before(untilAlarm: 3_600_000, state: &state))
        #expect(state.codeReleased)
        // Its work done, the code it mapped goes again.
        _ = IdleTrim.after(ready: 0, timeout: 60_000, wait: IdleTrim.Wait(60_000), untilAlarm: 3_600_000, state: &state)
        #expect(state.workSinceTrim)
        let wait = IdleTrim.wait(for: 59_000, untilAlarm: 3_599_000, state: state)
        #expect(wait == IdleTrim.Wait(delay, idleCut: true))
        #expect(IdleTrim.after(ready: 0, timeout: 59_000, wait: wait, untilAlarm: 3_599_000, state: &state).releaseCode)
    }
}
