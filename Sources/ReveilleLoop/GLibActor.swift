import CGLib
import FoundationEssentials

/// Runs Swift jobs on the thread that runs a GLib main context (the default one, or a
/// context of its own), so that GLib, GDBus and libnotify calls and their callbacks all happen
/// on the thread that owns them.
package final class GLibExecutor: SerialExecutor, @unchecked Sendable {
    /// `GMainContext*` that the loop thread owns: the default context, or one of its own.
    package let context: OpaquePointer

    /// Runs GLib's default context (whose sources GLib and every library attach by default).
    init() {
        context = g_main_context_default()
        // The loop runs for the life of the process, so the thread is never joined.
        g_thread_unref(g_thread_new("glib-main-loop", { context in
            g_main_loop_run(g_main_loop_new(OpaquePointer(context), 0))
            return nil
        }, UnsafeMutableRawPointer(context)))
    }

    /// Runs a new context of its own, the thread's default there, so what is started on the
    /// thread (a GDBus call) is answered on it rather than on the process's default context.
    package init(threadName: String) {
        context = g_main_context_new()
        g_thread_unref(g_thread_new(threadName, { context in
            g_main_context_push_thread_default(OpaquePointer(context))
            g_main_loop_run(g_main_loop_new(OpaquePointer(context), 0))
            return nil
        }, UnsafeMutableRawPointer(context)))
    }

    /// Attaches an idle source that runs the job. (`g_main_context_invoke` would run it
    /// inline when called on the owner thread, breaking the executor's ordering.)
    package func enqueue(_ job: consuming ExecutorJob) {
        let box = JobBox(job: UnownedJob(job), executor: asUnownedSerialExecutor())
        let source = g_idle_source_new()
        g_source_set_priority(source, G_PRIORITY_DEFAULT)
        g_source_set_callback(source, { data in
            Unmanaged<JobBox>.fromOpaque(data!).takeUnretainedValue().run()
            return gboolean(G_SOURCE_REMOVE)
        }, Unmanaged.passRetained(box).toOpaque(), { data in
            Unmanaged<JobBox>.fromOpaque(data!).release()
        })
        g_source_attach(source, context)
        g_source_unref(source)
    }

    /// Isolated exactly when running on the loop thread (`g_main_context_is_owner`).
    package func checkIsolated() {
        precondition(g_main_context_is_owner(context) != 0, "not on the thread of this executor's GLib main loop")
    }

    private final class JobBox {
        let job: UnownedJob
        let executor: UnownedSerialExecutor
        init(job: UnownedJob, executor: UnownedSerialExecutor) {
            self.job = job
            self.executor = executor
        }
        func run() { job.runSynchronously(on: executor) }
    }
}

/// Runs a task's nonisolated jobs on the thread of a GLib main context, each from an idle source
/// of `priority` (`GLibActor.urgentTaskExecutor`).
final class GLibTaskExecutor: TaskExecutor, @unchecked Sendable {
    private let context: OpaquePointer
    private let priority: Int32

    init(context: OpaquePointer, priority: Int32) {
        self.context = context
        self.priority = priority
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let box = CallbackBox((job: UnownedJob(job), executor: asUnownedTaskExecutor()))
        let source = g_idle_source_new()
        g_source_set_priority(source, priority)
        g_source_set_callback(source, { data in
            let (job, executor) = CallbackBox<(job: UnownedJob, executor: UnownedTaskExecutor)>.take(data)
            job.runSynchronously(on: executor)
            return gboolean(G_SOURCE_REMOVE)
        }, box.retainedPointer, nil)
        g_source_attach(source, context)
        g_source_unref(source)
    }
}

/// The global actor of everything that touches GLib: its jobs run on the GLib main loop.
@globalActor package actor GLibActor {
    package static let shared = GLibActor()
    static let executor = GLibExecutor()

    /// The loop as a task's executor preference, its jobs ahead of the loop's other sources
    /// (`G_PRIORITY_HIGH`): a task made with it resumes on the loop after it waited (a stream's
    /// next element), instead of on Swift's global executor first, which would bring that
    /// executor's threads into the process and cost a round trip through one; and a flood of bus
    /// messages, each dispatched by GDBus at the default priority, does not hold it back. Only
    /// nonisolated code of such a task runs there (isolated code hops to the actor's executor);
    /// the task's priority, which a task made inside inherits, is left alone.
    package static let urgentTaskExecutor: any TaskExecutor = GLibTaskExecutor(context: executor.context, priority: G_PRIORITY_HIGH)

    package nonisolated var unownedExecutor: UnownedSerialExecutor {
        Self.executor.asUnownedSerialExecutor()
    }

    /// Runs `operation` as isolated to the actor from a C callback that GLib called on
    /// the loop thread; traps if called from any other thread.
    package static func assumeIsolated<T>(_ operation: @GLibActor () throws -> T) rethrows -> T {
        shared.preconditionIsolated()
        return try withoutActuallyEscaping(operation) { isolated in
            try unsafeBitCast(isolated, to: (() throws -> T).self)()
        }
    }
}

/// Keeps a Swift value alive while C holds it as `user_data`: `retainedPointer` gives C a
/// reference, the callback reads the value back (`from`, or `take` for a callback that runs
/// once), and `releaseCallbackBox` (the `GDestroyNotify`) or `take` gives the reference up.
/// Generic, so the callback names the type it reads and nothing is cast.
package final class CallbackBox<Value> {
    package let value: Value
    package init(_ value: Value) { self.value = value }

    /// A +1 pointer for `user_data`, balanced by `releaseCallbackBox` or `take`.
    package var retainedPointer: UnsafeMutableRawPointer { Unmanaged.passRetained(self).toOpaque() }

    /// The value behind `pointer` (a box of this type's `retainedPointer`), which stays held.
    package static func from(_ pointer: UnsafeMutableRawPointer?) -> Value {
        box(pointer).takeUnretainedValue().value
    }

    /// The value behind `pointer`, giving up the reference: for a callback C calls once.
    package static func take(_ pointer: UnsafeMutableRawPointer?) -> Value {
        box(pointer).takeRetainedValue().value
    }

    private static func box(_ pointer: UnsafeMutableRawPointer?) -> Unmanaged<CallbackBox<Value>> {
        // A pointer from another box type would be read as this one: in debug builds, say so.
        assert(Unmanaged<AnyObject>.fromOpaque(pointer!).takeUnretainedValue() is CallbackBox<Value>,
               "user_data is not a CallbackBox<\(Value.self)>")
        return Unmanaged<CallbackBox<Value>>.fromOpaque(pointer!)
    }
}

/// The `GDestroyNotify` of every `CallbackBox`'s `retainedPointer`: releasing needs no type.
package let releaseCallbackBox: GDestroyNotify = { pointer in
    Unmanaged<AnyObject>.fromOpaque(pointer!).release()
}
