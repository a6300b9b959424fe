import CGLib
import CLinux

/// Gives the heap's free pages back to the kernel once the agent has been idle a while after work.
///
/// glibc keeps freed memory for reuse and raises its thresholds to the largest block freed (the
/// store read at start, a page of the list), so the idle agent kept all it ever used: with 1,000
/// alarms loaded from the store, 7.2 MiB of heap where 1.4 MiB are in use. Fixed thresholds gave
/// memory back after every large block instead, and cost each 10,000-alarm list 25 ms more of the
/// agent's CPU (54 → 79 ms: its pages faulted in again). So memory stays while the agent works and
/// goes once it has been idle `idleDelay` after work: while work is untrimmed the loop's poll
/// waits at most that long, and a wait that ends with nothing to do trims. An agent that did
/// nothing since its last trim is never woken for it.
package enum IdleHeapTrim {
    /// How long the loop must have had nothing to do after work before the heap is trimmed (ms):
    /// longer than the gaps inside a burst (a client reading the list's pages), short enough that
    /// an agent left idle is trimmed before anyone counts its wakeups.
    package static let idleDelay: Int32 = 500

    /// Work was done since the last trim (starting is work). Read and written by the loop's thread only.
    nonisolated(unsafe) private static var workSinceTrim = true

    /// Wraps the poll of the agent's loop (the default main context). Call before the loop runs.
    package static func install() {
        g_main_context_set_poll_func(g_main_context_default(), poll)
    }

    /// What to do after a wait of the loop: the policy, apart from the poll itself.
    package enum Outcome: Equatable { case trim, work, nothing }

    /// The wait for a poll asked to wait `timeout` ms (negative: no limit) while work is untrimmed.
    package static func wait(for timeout: Int32, workSinceTrim: Bool) -> Int32 {
        guard workSinceTrim, timeout < 0 || timeout > idleDelay else { return timeout }
        return idleDelay
    }

    /// After a poll that waited `waited` of the `timeout` asked and found `ready` descriptors: any
    /// event, or a timer due (a finite wait the loop asked for ended), is work; a wait cut short to
    /// `idleDelay` that found nothing is the idle moment to trim.
    package static func outcome(ready: Int32, timeout: Int32, waited: Int32) -> Outcome {
        if ready != 0 { return .work }
        if waited != timeout { return .trim }
        return timeout >= 0 ? .work : .nothing
    }

    private static let poll: GPollFunc = { descriptors, count, timeout in
        let waited = IdleHeapTrim.wait(for: timeout, workSinceTrim: IdleHeapTrim.workSinceTrim)
        let ready = g_poll(descriptors, count, waited)
        switch IdleHeapTrim.outcome(ready: ready, timeout: timeout, waited: waited) {
        case .trim:
            _ = malloc_trim(0)
            IdleHeapTrim.workSinceTrim = false
        case .work: IdleHeapTrim.workSinceTrim = true
        case .nothing: break
        }
        // A cut-short wait reports no event: the loop finds nothing due and polls again for the rest.
        return ready
    }
}
