import CGLib
import CLinux

/// Gives the heap's free pages back to the kernel once the agent has been idle a while after work.
///
/// glibc keeps freed memory for reuse and raises its thresholds to the largest block freed (the
/// store read at start, a page of the list), so the idle agent kept all it ever used: with 1,000
/// alarms loaded from the store, 7.2 MiB of heap where 1.4 MiB are in use, all of it private
/// dirty memory. Fixed thresholds gave memory back after every large block instead, and cost
/// each 10,000-alarm list 25 ms more of the agent's CPU (54 → 79 ms: its pages faulted in again).
/// So memory stays while the agent works and goes once it has been idle `idleDelay` after work:
/// while work is untrimmed the loop's poll waits at most that long, and a wait that ends with
/// nothing to do trims. An agent that did nothing since its last trim is never woken for it.
///
/// The executable's code pages are not given back: they are clean pages of the file, which the
/// kernel reclaims by itself under pressure, and they count in RSS, not in private dirty memory
/// or (shared with every process that maps the file) fully in PSS.
package enum IdleTrim {
    /// How long the loop must have had nothing to do after work before the heap is trimmed (ms):
    /// longer than the gaps inside a burst (a client reading the list's pages), short enough that
    /// an agent left idle is trimmed before anyone counts its wakeups.
    package static let idleDelay: Int32 = 500

    /// What the loop has done since it last gave memory back. Read and written by the loop's thread only.
    package struct State: Equatable, Sendable {
        /// Work was done since the last trim (starting is work).
        package var workSinceTrim = true
        package init(workSinceTrim: Bool = true) { self.workSinceTrim = workSinceTrim }
    }

    /// A poll's wait (ms, negative: no limit), and whether it is the idle delay's cut: only a
    /// wait that `idleDelay` ended with nothing to do trims.
    package struct Wait: Equatable, Sendable {
        package var milliseconds: Int32
        package var idleCut: Bool
        package init(_ milliseconds: Int32, idleCut: Bool = false) { (self.milliseconds, self.idleCut) = (milliseconds, idleCut) }
    }

    nonisolated(unsafe) private static var state = State()

    /// Wraps the poll of the agent's loop (the default main context). Call before the loop runs.
    package static func install() {
        g_main_context_set_poll_func(g_main_context_default(), poll)
    }

    /// The wait for a poll asked to wait `timeout` ms (negative: no limit): cut to `idleDelay`
    /// while work is untrimmed.
    package static func wait(for timeout: Int32, state: State) -> Wait {
        guard state.workSinceTrim, timeout < 0 || timeout > idleDelay else { return Wait(timeout) }
        return Wait(idleDelay, idleCut: true)
    }

    /// After a poll that waited `wait` of the `timeout` asked and found `ready` descriptors,
    /// whether to trim the heap now. Any event, or a timer due (a finite wait the loop asked for
    /// ended), is work; the idle delay's cut ending with nothing to do after work is the moment.
    package static func after(ready: Int32, timeout: Int32, wait: Wait, state: inout State) -> Bool {
        if ready != 0 || (wait.milliseconds == timeout && timeout >= 0) {
            state.workSinceTrim = true
            return false
        }
        guard wait.idleCut && state.workSinceTrim else { return false }
        state.workSinceTrim = false
        return true
    }

    private static let poll: GPollFunc = { descriptors, count, timeout in
        let wait = IdleTrim.wait(for: timeout, state: IdleTrim.state)
        let ready = g_poll(descriptors, count, wait.milliseconds)
        if IdleTrim.after(ready: ready, timeout: timeout, wait: wait, state: &IdleTrim.state) { _ = malloc_trim(0) }
        // A cut-short wait reports no event: the loop finds nothing due and polls again for the rest.
        return ready
    }
}
