// A regular target, so both test targets can use it: a release build (`make release`, which
// builds every target) has no Testing module, and this target is then empty.
#if canImport(Testing)
import Dispatch
import Testing

/// Runs each test of a suite on a dispatch queue of its own instead of Swift's cooperative
/// pool.
///
/// The end-to-end tests (and the in-process tests that start a peer: PulseAudio, Radicale, a
/// bus) wait for real processes (waitpid, polling a file, a reply on a
/// socket) by blocking their thread. On the cooperative pool, which has one thread per core,
/// two blocked tests held the whole run: on the 2-core CI machine every other test, the
/// millisecond unit tests included, queued behind them, and `make test` took five minutes
/// of mostly waiting. A queue the test creates draws its thread from libdispatch's
/// overcommitting pool, which adds a thread when the others block.
///
/// The end-to-end suites are not `.serialized`: each test starts its own session (bus,
/// servers, state folders), so the tests of a long suite wait side by side, up to
/// `make test`'s width, instead of one after another (Wake from suspend: 107 s alone, 24 s
/// side by side).
public struct WaitsOnItsOwnThread: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }
    /// The tests sharing it run at most as many at once as it counts.
    private let slots: Slots?

    public init() { slots = nil }

    fileprivate init(slots: Slots) { self.slots = slots }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else { return try await function() }
        try await withTaskExecutorPreference(QueueExecutor(label: test.name)) {
            // On the test's own queue: waiting for a slot blocks that thread only.
            slots?.take()
            defer { slots?.give() }
            try await function()
        }
    }
}

/// A count of places, taken by blocking the thread that waits (a test's own queue's).
fileprivate final class Slots: Sendable {
    private let semaphore: DispatchSemaphore
    init(_ count: Int) { semaphore = DispatchSemaphore(value: count) }
    func take() { semaphore.wait() }
    func give() { semaphore.signal() }
}

/// Three windows at a time: each test that draws one runs a display server, a GTK program and
/// AT-SPI walks of its widgets (a Python process each), and its waits (a dialog within 30 s)
/// assume it gets the processor now and then. Sixteen tests side by side on a 2-core machine,
/// up to a dozen of them drawing, had a dialog take longer than that.
private let windowSlots = Slots(3)

extension Trait where Self == WaitsOnItsOwnThread {
    /// The suite's tests block while they wait for processes: see `WaitsOnItsOwnThread`.
    public static var waitsOnItsOwnThread: Self { Self() }

    /// As `waitsOnItsOwnThread`, for tests that draw windows under Xvfb: at most three of them
    /// run at once, the rest of the run going on beside them.
    public static var drawsWindows: Self { Self(slots: windowSlots) }
}

/// A task executor that runs every job on one serial dispatch queue.
public final class QueueExecutor: TaskExecutor, @unchecked Sendable {
    private let queue: DispatchQueue

    public init(label: String) {
        queue = DispatchQueue(label: "reveille.test." + label)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { [self] in
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
#endif
