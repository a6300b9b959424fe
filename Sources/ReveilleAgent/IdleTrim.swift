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

    /// What to do after a wait of the loop: the policy, apart from the poll itself.
    package struct Decision: Equatable, Sendable {
        package var trimHeap = false
        package var releaseCode = false
        package var restoreCode = false
        package init(trimHeap: Bool = false, releaseCode: Bool = false, restoreCode: Bool = false) {
            (self.trimHeap, self.releaseCode, self.restoreCode) = (trimHeap, releaseCode, restoreCode)
        }
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

    /// The wait for a poll asked to wait `timeout` ms (negative: no limit), the alarm `untilAlarm`
    /// ms away: cut to `idleDelay` while work is untrimmed, and to the alarm's horizon while the
    /// code is given back.
    package static func wait(for timeout: Int32, untilAlarm: Int64?, state: State) -> Int32 {
        var wait = timeout
        if state.workSinceTrim, wait < 0 || wait > idleDelay { wait = idleDelay }
        if state.codeReleased, let untilAlarm {
            let horizon = Int32(clamping: max(0, untilAlarm - codeHorizon))
            if wait < 0 || horizon < wait { wait = horizon }
        }
        return wait
    }

    /// After a poll that waited `waited` of the `timeout` asked and found `ready` descriptors, the
    /// alarm now `untilAlarm` ms away. Any event, or a timer due (a finite wait the loop asked for
    /// ended), is work; a wait cut short that found nothing after work is the idle moment to trim,
    /// and to give the code back if nothing is due within `codeHorizon`; code given back is mapped
    /// in again once something is due within it.
    package static func after(ready: Int32, timeout: Int32, waited: Int32, untilAlarm: Int64?, state: inout State) -> Decision {
        let untilTimer: Int64? = timeout < 0 ? nil : Int64(timeout) - Int64(waited)
        let nextDue = [untilTimer, untilAlarm].compactMap { $0 }.min()
        let dueSoon = nextDue.map { $0 <= codeHorizon } ?? false
        var decision = Decision()
        if state.codeReleased && dueSoon {
            decision.restoreCode = true
            state.codeReleased = false
        }
        if ready != 0 || (waited == timeout && timeout >= 0) {
            state.workSinceTrim = true
        } else if waited != timeout && state.workSinceTrim {
            decision.trimHeap = true
            // Again after work even if given back before: the work mapped what it ran.
            decision.releaseCode = !dueSoon
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
        let waited = IdleTrim.wait(for: timeout, untilAlarm: IdleTrim.untilAlarm(), state: IdleTrim.state)
        let ready = g_poll(descriptors, count, waited)
        let decision = IdleTrim.after(ready: ready, timeout: timeout, waited: waited, untilAlarm: IdleTrim.untilAlarm(), state: &IdleTrim.state)
        if decision.restoreCode { ExecutableCode.restore() }
        // The code first: reading where it is mapped allocates, and the trim then frees that too.
        if decision.releaseCode { ExecutableCode.release() }
        if decision.trimHeap { _ = malloc_trim(0) }
        // A cut-short wait reports no event: the loop finds nothing due and polls again for the rest.
        return ready
    }
}
