import Dispatch
import ReveilleLoop
import ReveilleSystem

/// A daemon's life on the GLib loop, written once for the agent and the wake helper: its
/// parts start in order, run until one of them (or a signal) asks to stop, then stop in
/// reverse order, each within a deadline, as swift-service-lifecycle's `ServiceGroup` does.
@GLibActor
package final class DaemonRunner {
    /// One part of a daemon: what starting and stopping it means.
    package struct Part {
        package var name: String
        /// Throws when the part cannot run; the daemon then stops what started before it.
        package var start: @GLibActor () throws -> Void
        /// Calls `done` once stopped; a part that has not called it by the deadline is left behind.
        package var stop: @GLibActor (_ done: @escaping @GLibActor () -> Void) -> Void

        package init(_ name: String, start: @escaping @GLibActor () throws -> Void = {},
                     stop: @escaping @GLibActor (_ done: @escaping @GLibActor () -> Void) -> Void = { $0() }) {
            self.name = name
            self.start = start
            self.stop = stop
        }
    }

    /// Why the daemon stopped: its exit status and, for the log, the reason.
    package struct Outcome: Sendable {
        package var status: Int32
        package var reason: String
    }

    private let parts: [Part]
    private let stopDeadlineMilliseconds: UInt32
    /// Hears a part that did not stop in time, by name.
    private let onLateStop: @GLibActor (String) -> Void
    private var started = 0
    /// Why the daemon stops, once a stop was asked for.
    package private(set) var outcome: Outcome?
    private var finished: CheckedContinuation<Outcome, Never>?
    private var stopped = false

    package init(parts: [Part], stopDeadlineMilliseconds: UInt32 = 2000,
                 onLateStop: @escaping @GLibActor (String) -> Void = { _ in }) {
        self.parts = parts
        self.stopDeadlineMilliseconds = stopDeadlineMilliseconds
        self.onLateStop = onLateStop
    }

    /// Whether a stop was asked for: what follows is its consequence, not a failure of its own.
    package var isStopping: Bool { outcome != nil }

    /// Starts the parts not yet started, in order; the first that throws stops the daemon
    /// (status 1) and what started before it.
    package func start() {
        guard outcome == nil else { return }
        while started < parts.count {
            let part = parts[started]
            do { try part.start() } catch {
                return stop(status: 1, reason: "cannot start \(part.name): \(error)")
            }
            started += 1
        }
    }

    /// Stops the started parts in reverse order; the first call's status and reason win.
    package func stop(status: Int32, reason: String) {
        guard outcome == nil else { return }
        outcome = Outcome(status: status, reason: reason)
        stopNext()
    }

    /// Waits until the daemon stopped and every started part is down (or late).
    package func run() async -> Outcome {
        await withCheckedContinuation { continuation in
            if stopped, let outcome { return continuation.resume(returning: outcome) }
            finished = continuation
        }
    }

    /// Stops the last part still started; once none is, the daemon is done.
    private func stopNext() {
        guard started > 0 else {
            stopped = true
            finished?.resume(returning: outcome!)
            finished = nil
            return
        }
        started -= 1
        let part = parts[started], step = started
        // Whichever comes first, the part's word or the deadline, moves on; the other finds
        // the runner past `step` and does nothing.
        let deadline = MainLoopSources.after(milliseconds: stopDeadlineMilliseconds) { [weak self] in
            guard let self, self.started == step, !self.stopped else { return }
            self.onLateStop(part.name)
            self.stopNext()
        }
        part.stop { [weak self] in
            guard let self, self.started == step, !self.stopped else { return }
            MainLoopSources.remove(deadline)
            self.stopNext()
        }
    }

    /// Runs `body` on the GLib loop's actor, blocks the calling thread until it returns, and
    /// ends the process with the status it returned (`CurrentProcess.exitNow`: the loop's
    /// thread still runs, so no library is torn down under it).
    ///
    /// Nothing here uses Swift's global concurrent executor, so libdispatch's worker pool, and
    /// the monitor timer that wakes it every second, never start: an idle daemon makes no wakeups.
    package nonisolated static func runThenExit(_ body: @escaping @GLibActor () async -> Int32) -> Never {
        // A daemon sets its own signal mask instead of inheriting its starter's: a parent that
        // blocked SIGTERM (a test runner, some launchers) would leave it unstoppable. Threads
        // started from here on inherit this mask.
        SignalMask.unblockAll()
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var status: Int32 = 0
        Task { @GLibActor in
            status = await body()
            done.signal()
        }
        done.wait()
        CurrentProcess.exitNow(status)
    }
}
