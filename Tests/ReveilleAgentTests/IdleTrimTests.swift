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
        #expect(IdleTrim.wait(for: -1, untilAlarm: nil, state: worked) == delay)
        #expect(IdleTrim.wait(for: delay * 10, untilAlarm: nil, state: worked) == delay)
        #expect(IdleTrim.wait(for: 100, untilAlarm: nil, state: worked) == 100, "a timer due sooner keeps its wait")
        #expect(IdleTrim.wait(for: -1, untilAlarm: nil, state: rested) == -1, "an agent idle since its trim sleeps without limit")
        #expect(IdleTrim.wait(for: delay * 10, untilAlarm: 60_000, state: rested) == delay * 10, "code not given back: the alarm cuts nothing")
    }

    @Test func onlyACutWaitThatFoundNothingAfterWorkTrims() {
        func decide(ready: Int32, timeout: Int32, waited: Int32, workSinceTrim: Bool = true) -> IdleTrim.Decision {
            var state = IdleTrim.State(workSinceTrim: workSinceTrim)
            return IdleTrim.after(ready: ready, timeout: timeout, waited: waited, untilAlarm: nil, state: &state)
        }
        #expect(decide(ready: 0, timeout: -1, waited: delay).trimHeap)
        #expect(decide(ready: 0, timeout: delay * 10, waited: delay).trimHeap)
        #expect(!decide(ready: 1, timeout: -1, waited: delay).trimHeap, "a call arrived: work, not idle")
        #expect(!decide(ready: 0, timeout: 100, waited: 100).trimHeap, "a timer fell due: its callback runs")
        #expect(decide(ready: 0, timeout: -1, waited: -1, workSinceTrim: false) == IdleTrim.Decision())
    }

    @Test func anIdleAgentIsWokenOnceAfterWorkAndThenNotAgain() {
        // Work, then silence, no alarm armed: one cut wait trims; the next wait is unlimited again.
        var state = IdleTrim.State()
        var wakeups = 0, trims = 0
        for _ in 0..<3 {
            let waited = IdleTrim.wait(for: -1, untilAlarm: nil, state: state)
            if waited >= 0 { wakeups += 1 }
            if IdleTrim.after(ready: 0, timeout: -1, waited: waited, untilAlarm: nil, state: &state).trimHeap { trims += 1 }
        }
        #expect(wakeups == 1 && trims == 1)
        #expect(state == IdleTrim.State(workSinceTrim: false, codeReleased: true))
    }

    @Test func theCodeIsGivenBackOnlyWhenNothingIsDueSoon() {
        func releases(timeout: Int32, untilAlarm: Int64?) -> Bool {
            var state = IdleTrim.State()
            return IdleTrim.after(ready: 0, timeout: timeout, waited: delay, untilAlarm: untilAlarm, state: &state).releaseCode
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
        var waited = IdleTrim.wait(for: -1, untilAlarm: 60_000, state: state)
        #expect(waited == delay)
        #expect(IdleTrim.after(ready: 0, timeout: -1, waited: waited, untilAlarm: 60_000 - Int64(delay), state: &state)
                == IdleTrim.Decision(trimHeap: true, releaseCode: true))
        // Then the loop sleeps until the horizon before the alarm, not until the alarm.
        let untilAlarm = 60_000 - Int64(delay)
        waited = IdleTrim.wait(for: -1, untilAlarm: untilAlarm, state: state)
        #expect(Int64(waited) == untilAlarm - horizon)
        // There, with nothing else to do, the code is mapped in again, and only once.
        #expect(IdleTrim.after(ready: 0, timeout: -1, waited: waited, untilAlarm: horizon, state: &state) == IdleTrim.Decision(restoreCode: true))
        #expect(IdleTrim.wait(for: -1, untilAlarm: horizon, state: state) == -1, "restored: the loop waits for the alarm")
        // Woken inside the horizon for something else, it is mapped in at once as well.
        var released = IdleTrim.State(workSinceTrim: false, codeReleased: true)
        #expect(IdleTrim.after(ready: 1, timeout: -1, waited: -1, untilAlarm: 3000, state: &released).restoreCode)
        #expect(!released.codeReleased && released.workSinceTrim)
        // An alarm due when the code was given back is not slept past.
        #expect(IdleTrim.wait(for: -1, untilAlarm: 200, state: IdleTrim.State(workSinceTrim: false, codeReleased: true)) == 0)
    }

    @Test func workAfterTheCodeWasGivenBackGivesItBackAgainWhenIdle() {
        // The work mapped in what it ran: the next idle moment gives it back again.
        var state = IdleTrim.State(workSinceTrim: false, codeReleased: true)
        _ = IdleTrim.after(ready: 1, timeout: -1, waited: -1, untilAlarm: nil, state: &state)
        #expect(state.workSinceTrim)
        #expect(IdleTrim.after(ready: 0, timeout: -1, waited: delay, untilAlarm: nil, state: &state).releaseCode)
    }
}
