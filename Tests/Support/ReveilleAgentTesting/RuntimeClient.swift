import CGLib
import FoundationEssentials
import ReveilleAgentRuntime
import ReveilleLoop
import ReveilleModel
import ReveilleRules

/// A part the tests play: it sends the runtime events from an outbox of its own, which the
/// runtime reads as it reads the parts' (give `outbox` in `AgentRuntime`'s `sources`), and
/// waits for each answer, as the D-Bus service and sync do.
@GLibActor
package final class RuntimeClient {
    package let outbox = AgentOutbox()

    package nonisolated init() {}

    /// A client's change; the alarm after it (`nil`: it ended), once the runtime answered.
    @discardableResult
    package func call(_ command: AlarmEngine.Command, owner: String? = nil) async throws(AlarmError) -> AlarmRecord? {
        let result = await withCheckedContinuation { (answered: CheckedContinuation<Result<AlarmRecord?, AlarmError>, Never>) in
            outbox.send(.call(command, owner: owner) { answered.resume(returning: $0) })
        }
        return try result.get()
    }

    /// A button pressed as the person (`PressButton`), answered as `call` is.
    @discardableResult
    package func press(_ role: AlarmButtonRole, on id: UUID) async throws(AlarmError) -> AlarmRecord? {
        let result = await withCheckedContinuation { (answered: CheckedContinuation<Result<AlarmRecord?, AlarmError>, Never>) in
            outbox.send(.buttonPressed(id, role, answer: { answered.resume(returning: $0) }))
        }
        return try result.get()
    }

    /// Sends `event`, and returns once `runtime` has handled it and everything it led to.
    package func send(_ event: AgentEvent, to runtime: AgentRuntime) async {
        outbox.send(event)
        await runtime.quiet()
    }
}

extension AgentRuntime {
    /// Returns once every event the parts sent is handled, and what the handling led to (a
    /// part's event is read in a later turn of the loop). Before the start (and after `settle`)
    /// nothing is read: it returns after one turn.
    package func quiet() async {
        repeat { await GLibLoop.turn() } while isRunning && hasUnreadEvents
    }
}

/// The GLib loop the agent's parts run on, as the tests wait for it.
package enum GLibLoop {
    /// Returns after what the loop had ready to run at the agent's priority has run (other
    /// tests' work on the same loop too, but never waiting for all of it to end).
    @GLibActor
    package static func turn() async {
        await after(priority: G_PRIORITY_DEFAULT)
    }

    /// Returns once the default context has nothing more urgent to run than an idle source of
    /// low priority: every job queued on the loop (an event read, a task resumed) has run.
    @GLibActor
    package static func idle() async {
        await after(priority: G_PRIORITY_LOW)
    }

    @GLibActor
    private static func after(priority: Int32) async {
        await withCheckedContinuation { (idle: CheckedContinuation<Void, Never>) in
            let source = g_idle_source_new()
            g_source_set_priority(source, priority)
            g_source_set_callback(source, { data in
                CallbackBox<CheckedContinuation<Void, Never>>.take(data).resume()
                return gboolean(G_SOURCE_REMOVE)
            }, CallbackBox(idle).retainedPointer, nil)
            g_source_attach(source, g_main_context_default())
            g_source_unref(source)
        }
    }
}
