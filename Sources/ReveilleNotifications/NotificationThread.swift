import CGLib
import ReveilleBus
import ReveilleLoop

/// A thread of its own running a GLib main loop on a private `GMainContext`, for libnotify:
/// its calls block (a frozen server holds each for up to 25 s), so they run here and never on
/// the agent's loop. The context is the thread's default from its first instant, so every
/// signal subscription libnotify makes (its proxy's) delivers here too.
///
/// Jobs run one at a time in the order posted; results go back to the agent's loop with
/// `toAgentLoop`, in the order posted.
package final class NotificationThread: Sendable {
    /// `GMainContext*`, owned; the thread runs it for the life of the process.
    nonisolated(unsafe) private let context: OpaquePointer

    package init(name: String) {
        context = g_main_context_new()
        // The thread runs for the life of the process, so it is never joined.
        g_thread_unref(g_thread_new(name, { context in
            let context = OpaquePointer(context)
            g_main_context_push_thread_default(context)
            g_main_loop_run(g_main_loop_new(context, 0))
            return nil
        }, UnsafeMutableRawPointer(context)))
    }

    /// Runs `job` on the thread after every job posted before it.
    package func run(_ job: @escaping @Sendable () -> Void) {
        Self.attach(job, to: context)
    }

    /// Runs `job` on the agent's loop (the GLib actor), after every job this thread posted there before.
    package static func toAgentLoop(_ job: @escaping @Sendable @GLibActor () -> Void) {
        attach({ GLibActor.assumeIsolated { job() } }, to: g_main_context_default())
    }

    /// An idle source on `context` running `job` once: sources of one priority run in the
    /// order attached (`g_main_context_invoke` would run it inline on the owner thread).
    private static func attach(_ job: @escaping @Sendable () -> Void, to context: OpaquePointer) {
        let source = g_idle_source_new()
        g_source_set_priority(source, G_PRIORITY_DEFAULT)
        g_source_set_callback(source, { data in
            CallbackBox<@Sendable () -> Void>.from(data)()
            return gboolean(G_SOURCE_REMOVE)
        }, CallbackBox(job).retainedPointer, releaseCallbackBox)
        g_source_attach(source, context)
        g_source_unref(source)
    }
}
