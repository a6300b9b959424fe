import CGLib
import Dispatch
import ReveilleLoop
import Synchronization

/// The global actor of a client's calls to a service (ReveilleKit's `AgentClient`): its jobs run
/// on one thread of the process, started on first use, that iterates a `GMainContext` of its own.
/// GDBus delivers an asynchronous call's reply to the context that was the thread's default
/// when the call was made; a CLI or an app's worker thread runs no GLib loop, so without this
/// thread the reply would have nowhere to arrive. One thread for every call of the process, made
/// once: N calls at once are N replies awaited on it, not N threads. It is not the agent's GLib
/// loop (`GLibActor`), so a blocking call made on that loop (`blocking`) does not wait on itself.
@globalActor package actor ClientCallActor {
    package static let shared = ClientCallActor()
    /// Started on first use (a static is initialized once, when first read).
    static let executor = GLibExecutor(threadName: "bus-client-calls")

    package nonisolated var unownedExecutor: UnownedSerialExecutor {
        Self.executor.asUnownedSerialExecutor()
    }

    /// The context this actor's thread iterates, where its calls' replies arrive.
    nonisolated static var context: OpaquePointer { executor.context }

    /// Waits `seconds` on this actor's thread (a GLib timeout source there): nothing else is
    /// held up meanwhile, and no other thread or executor is needed to wake it.
    package static func pause(seconds: Double) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let source = g_timeout_source_new(guint(max(0, seconds * 1000)))!
            g_source_set_callback(source, { data in
                CallbackBox<CheckedContinuation<Void, Never>>.take(data).resume()
                return gboolean(G_SOURCE_REMOVE)
            }, CallbackBox(continuation).retainedPointer, nil)
            g_source_attach(source, context)
            g_source_unref(source)
        }
    }

    /// Runs `work` on this actor and blocks the calling thread until it is done: the blocking
    /// form of every asynchronous client call (AlarmKit's synchronous API). Safe on any thread
    /// but this actor's own (which would wait on itself: a precondition says so), the GLib
    /// loop's and Swift's task pool's included, as `work` needs neither: it starts on this
    /// actor's executor directly and its replies arrive there.
    package nonisolated static func blocking<Value: Sendable, Failure: Error>(
        _ work: @escaping @Sendable @ClientCallActor () async throws(Failure) -> Value
    ) throws(Failure) -> Value {
        precondition(g_main_context_is_owner(context) == 0,
                     "a blocking client call was made on the thread that answers client calls; await the asynchronous form there")
        let outcome = BlockingOutcome<Value, Failure>()
        let done = DispatchSemaphore(value: 0)
        Task { @ClientCallActor in
            let result: Result<Value, Failure>
            do throws(Failure) { result = .success(try await work()) } catch { result = .failure(error) }
            outcome.result.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        // Set before the signal the wait returned on.
        return try outcome.result.withLock { $0! }.get()
    }
}

/// What a `blocking` call's work ended with, handed from the actor's thread to the waiting one.
private final class BlockingOutcome<Value: Sendable, Failure: Error>: Sendable {
    let result = Mutex<Result<Value, Failure>?>(nil)
}
