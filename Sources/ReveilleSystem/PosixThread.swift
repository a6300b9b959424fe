#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX thread running one closure: Foundation's `Thread` without the rest of
/// corelibs Foundation, which it would link in. One never joined runs until its body returns.
package final class PosixThread {
    private var thread: pthread_t?

    /// Starts `body` on a new thread (`pthread_create`); runs it here if no thread can be made.
    package init(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var handle = pthread_t()
        if pthread_create(&handle, nil, { context in
            let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
            box.body()
            return nil
        }, box) == 0 {
            thread = handle
        } else {
            Unmanaged<Box>.fromOpaque(box).takeRetainedValue().body()
        }
    }

    /// Waits for the thread to finish (`pthread_join`).
    package func join() {
        guard let thread else { return }
        pthread_join(thread, nil)
        self.thread = nil
    }

    /// Lets the thread go: its resources are freed when its body returns (`pthread_detach`).
    package func detach() {
        guard let thread else { return }
        pthread_detach(thread)
        self.thread = nil
    }

    /// Runs `jobs` at once, the first on this thread and each other on a thread of its own,
    /// and returns when all have finished. Plain threads, joined before returning: no thread
    /// pool is left behind to wake up.
    package static func runAll(_ jobs: [@Sendable () -> Void]) {
        let threads = jobs.dropFirst().map { job in PosixThread(job) }
        jobs.first?()
        for thread in threads { thread.join() }
    }

    private final class Box {
        let body: @Sendable () -> Void
        package init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
