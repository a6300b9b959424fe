import CLinux
import FoundationEssentials
import Glibc
import ReveilleBus

/// One wall-clock timer on `timerfd` (CLOCK_REALTIME, absolute, TFD_TIMER_CANCEL_ON_SET),
/// watched by the GLib loop. It wakes exactly at the armed instant and also when the wall
/// clock is set or the machine resumes, so the scheduler can recompute. Nothing polls.
@GLibActor
final class WallClockTimer {
    private let descriptor: Int32
    private let onFire: @GLibActor () -> Void
    private let onClockChange: @GLibActor () -> Void
    private var source: UInt32 = 0

    /// A far instant to arm when nothing is due: the timer must stay armed for the kernel
    /// to report clock changes, and it never fires in practice (2100-01-01).
    private static let farFuture: Int = 4_102_444_800

    init(onFire: @escaping @GLibActor () -> Void, onClockChange: @escaping @GLibActor () -> Void) throws {
        // timerfd_create(2)
        descriptor = timerfd_create(CLOCK_REALTIME, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        self.onFire = onFire
        self.onClockChange = onClockChange
        source = MainLoopSources.onReadable(descriptor) { [weak self] in self?.readExpiry() }
    }

    /// A timer that goes (a runtime that ends before the process does, as in tests) leaves
    /// no source that would fire for it.
    isolated deinit {
        MainLoopSources.remove(source)
        close(descriptor)
    }

    /// Arms the timer for `date`, or for nothing but clock changes when `nil` (timerfd_settime(2)).
    func arm(at date: Date?) {
        var spec = itimerspec()
        if let date {
            let seconds = date.timeIntervalSince1970.rounded(.down)
            spec.it_value.tv_sec = max(1, Int(seconds))
            spec.it_value.tv_nsec = Int((date.timeIntervalSince1970 - seconds) * 1_000_000_000)
        } else {
            spec.it_value.tv_sec = Self.farFuture
        }
        if timerfd_settime(descriptor, Int32(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET), &spec, nil) != 0 {
            // The clock changed between our reading of it and this call: recompute.
            if errno == ECANCELED { onClockChange() }
        }
    }

    /// read(2) of the expiry count: ECANCELED means the clock jumped.
    private func readExpiry() {
        var expirations: UInt64 = 0
        let count = read(descriptor, &expirations, MemoryLayout<UInt64>.size)
        if count == MemoryLayout<UInt64>.size {
            onFire()
        } else if count < 0, errno == ECANCELED {
            onClockChange()
        }
    }
}
