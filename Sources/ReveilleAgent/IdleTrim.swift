import CGLib
import CLinux
import ReveilleSystem

/// Gives the heap's free pages back to the kernel once the agent has been idle a while after work,
/// and the executable's code pages too when no timer of the loop is due soon.
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

    /// How far the loop's next timer must be (ms) for an idle moment to give the code's pages back
    /// too (`ExecutableCode`: after any work the kernel has the whole 10 MB of it mapped, counted in
    /// the agent's RSS). Mapping them again on the next work costs at most 0.5 ms of minor faults:
    /// not worth paying between a sound's preparing and its alarm 1.5 s later, nor in a burst.
    package static let codeHorizon: Int32 = 10_000

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

    /// Whether the idle moment after a wait of `waited` of the `timeout` asked also gives the
    /// code's pages back: no timer of the loop is due within `codeHorizon`.
    package static func releasesCode(timeout: Int32, waited: Int32) -> Bool {
        timeout < 0 || timeout - waited >= codeHorizon
    }

    private static let poll: GPollFunc = { descriptors, count, timeout in
        let waited = IdleTrim.wait(for: timeout, workSinceTrim: IdleTrim.workSinceTrim)
        let ready = g_poll(descriptors, count, waited)
        switch IdleTrim.outcome(ready: ready, timeout: timeout, waited: waited) {
        case .trim:
            // The code first: reading where it is mapped allocates, and the trim then frees that too.
            if IdleTrim.releasesCode(timeout: timeout, waited: waited) { ExecutableCode.release() }
            _ = malloc_trim(0)
            IdleTrim.workSinceTrim = false
        case .work: IdleTrim.workSinceTrim = true
        case .nothing: break
        }
        // A cut-short wait reports no event: the loop finds nothing due and polls again for the rest.
        return ready
    }
}
