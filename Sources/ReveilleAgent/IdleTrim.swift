import CGLib
import CLinux
import ReveilleSystem

/// Gives the heap's free pages back to the kernel once the agent has been idle a while after work,
/// and the executable's code pages too when nothing is due soon; those are mapped in again
/// `codeHorizon` ahead of the next alarm.
///
/// glibc keeps freed memory for reuse and raises its thresholds to the largest block freed (the
/// store read at start, a page of the list), so the idle agent kept all it ever used: with 1,000
/// alarms loaded from the store, 7.2 MiB of heap where 1.4 MiB are in use. Fixed thresholds gave
/// memory back after every large block instead, and cost each 10,000-alarm list 25 ms more of the
/// agent's CPU (54 → 79 ms: its pages faulted in again). So memory stays while the agent works and
/// goes once it has been idle `idleDelay` after work: while work is untrimmed the loop's poll
/// waits at most that long, and a wait that ends with nothing to do trims. An agent that did
/// nothing since its last trim is never woken for it.
package enum IdleTrim {
    /// How long the loop must have had nothing to do after work before the heap is trimmed (ms):
    /// longer than the gaps inside a burst (a client reading the list's pages), short enough that
    /// an agent left idle is trimmed before anyone counts its wakeups.
    package static let idleDelay: Int32 = 500

    /// How far the next due instant must be (ms) for an idle moment to give the code's pages back
    /// too (`ExecutableCode`: after any work the kernel has the whole 10 MB of it mapped, counted
    /// in the agent's RSS), and how long before an alarm they are mapped in again if they were:
    /// the alarm's path must not wait for page faults, nor for reads from disk if memory pressure
    /// evicted them since. Not worth paying in a burst, nor between a sound's preparing and its
    /// alarm 1.5 s later.
    package static let codeHorizon: Int64 = 10_000

    /// What the loop has done since it last gave memory back. Read and written by the loop's thread only.
    package struct State: Equatable, Sendable {
        /// Work was done since the last trim (starting is work).
        package var workSinceTrim = true
        /// The code's pages were given back and not mapped in again since.
        package var codeReleased = false
        package init(workSinceTrim: Bool = true, codeReleased: Bool = false) {
            (self.workSinceTrim, self.codeReleased) = (workSinceTrim, codeReleased)
        }
    }

    /// A poll's wait (ms, negative: no limit), and whether it is the idle delay's cut: only a
    /// wait that `idleDelay` ended with nothing to do trims.
    package struct Wait: Equatable, Sendable {
        package var milliseconds: Int32
        package var idleCut: Bool
        package init(_ milliseconds: Int32, idleCut: Bool = false) { (self.milliseconds, self.idleCut) = (milliseconds, idleCut) }
    }

    /// What to do after a wait of the loop: the policy, apart from the poll itself.
    package struct Decision: Equatable, Sendable {
        package var trimHeap = false
        package var releaseCode = false
        package init(trimHeap: Bool = false, releaseCode: Bool = false) { (self.trimHeap, self.releaseCode) = (trimHeap, releaseCode) }
    }

    nonisolated(unsafe) private static var state = State()
    /// The instant the alarm timer is armed for (seconds since the epoch), `nil` when disarmed. It
    /// is a descriptor the loop polls (`WallClockTimer`), not a timer of the loop: the poll's
    /// timeout does not show it. Read and written by the loop's thread only.
    nonisolated(unsafe) private static var alarmInstant: Double?

    /// The alarm timer was armed for `epochSeconds` (`nil`: for nothing but clock changes).
    package static func alarmArmed(atEpochSeconds epochSeconds: Double?) { alarmInstant = epochSeconds }

    /// Wraps the poll of the agent's loop (the default main context). Call before the loop runs.
    package static func install() {
        g_main_context_set_poll_func(g_main_context_default(), poll)
    }

    /// Before a poll, the alarm `untilAlarm` ms away: whether the code given back is mapped in
    /// again now, the alarm within `codeHorizon` (only the alarm: a timer of the loop, a countdown's
    /// refresh, faults in what it runs).
    package static func before(untilAlarm: Int64?, state: inout State) -> Bool {
        guard state.codeReleased, let untilAlarm, untilAlarm <= codeHorizon else { return false }
        state.codeReleased = false
        return true
    }

    /// The wait for a poll asked to wait `timeout` ms (negative: no limit), the alarm `untilAlarm`
    /// ms away: cut to `idleDelay` while work is untrimmed, and to the alarm's horizon while the
    /// code is given back (`before` then maps it in).
    package static func wait(for timeout: Int32, untilAlarm: Int64?, state: State) -> Wait {
        var wait = Wait(timeout)
        if state.workSinceTrim, timeout < 0 || timeout > idleDelay { wait = Wait(idleDelay, idleCut: true) }
        if state.codeReleased, let untilAlarm, untilAlarm > codeHorizon {
            let horizon = Int32(clamping: untilAlarm - codeHorizon)
            if wait.milliseconds < 0 || horizon < wait.milliseconds { wait = Wait(horizon) }
        }
        return wait
    }

    /// After a poll that waited `wait` of the `timeout` asked and found `ready` descriptors, the
    /// alarm now `untilAlarm` ms away. Any event, or a timer due (a finite wait the loop asked for
    /// ended), is work; the idle delay's cut ending with nothing to do after work is the moment to
    /// trim, and to give the code back if nothing (a timer of the loop, the alarm) is due within
    /// `codeHorizon`. The caller clears `codeReleased` if nothing could be given back.
    package static func after(ready: Int32, timeout: Int32, wait: Wait, untilAlarm: Int64?, state: inout State) -> Decision {
        var decision = Decision()
        if ready != 0 || (wait.milliseconds == timeout && timeout >= 0) {
            state.workSinceTrim = true
        } else if wait.idleCut && state.workSinceTrim {
            let timerSoon = timeout >= 0 && Int64(timeout) - Int64(wait.milliseconds) <= codeHorizon
            let alarmSoon = untilAlarm.map { $0 <= codeHorizon } ?? false
            decision.trimHeap = true
            // Again after work even if given back before: the work mapped what it ran.
            decision.releaseCode = !timerSoon && !alarmSoon
            state.workSinceTrim = false
            if decision.releaseCode { state.codeReleased = true }
        }
        return decision
    }

    /// Milliseconds until the alarm timer's instant, `nil` when it is disarmed.
    private static func untilAlarm() -> Int64? {
        guard let alarmInstant else { return nil }
        let milliseconds = ((alarmInstant - SystemClock.wallTime) * 1000).rounded(.down)
        return Int64(exactly: milliseconds) ?? (milliseconds > 0 ? .max : .min)
    }

    private static let poll: GPollFunc = { descriptors, count, timeout in
        let untilAlarm = IdleTrim.untilAlarm()
        if IdleTrim.before(untilAlarm: untilAlarm, state: &IdleTrim.state) { ExecutableCode.restore() }
        let wait = IdleTrim.wait(for: timeout, untilAlarm: untilAlarm, state: IdleTrim.state)
        let ready = g_poll(descriptors, count, wait.milliseconds)
        let decision = IdleTrim.after(ready: ready, timeout: timeout, wait: wait, untilAlarm: IdleTrim.untilAlarm(), state: &IdleTrim.state)
        // The code first: reading where it is mapped allocates, and the trim then frees that too.
        // Nothing given back (a page written, no mapping found): no wake ahead of the alarm for it.
        if decision.releaseCode, ExecutableCode.release() == 0 { IdleTrim.state.codeReleased = false }
        if decision.trimHeap { _ = malloc_trim(0) }
        // A cut-short wait reports no event: the loop finds nothing due and polls again for the rest.
        return ready
    }
}
