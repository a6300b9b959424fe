import CLinux
import FoundationEssentials
import Glibc
import ReveilleBus

/// A kernel alarm timer: a `timerfd` on `CLOCK_REALTIME_ALARM` that, armed, wakes the machine
/// from suspend at its instant. It needs `CAP_WAKE_ALARM`, which systemd 254 and later give
/// local user sessions; with it, no privileged helper and no RTC slot of its own are needed.
@GLibActor
final class KernelWakeAlarm {
    private let descriptor: Int32
    private var source: UInt32 = 0
    /// The instant armed now, if any.
    private(set) var armed: Date?

    /// Why the kernel refused the alarm timer: `EPERM` (no `CAP_WAKE_ALARM`), `EINVAL` (no
    /// alarm-timer support).
    struct Refused: Error {
        var code: Int32
        var description: String { String(cString: strerror(code)) }
    }

    /// Opens the alarm timer; `onExpiry` runs when an armed instant passes (the caller re-arms).
    init(onExpiry: @escaping @GLibActor () -> Void) throws(Refused) {
        descriptor = timerfd_create(CLOCK_REALTIME_ALARM, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard descriptor >= 0 else { throw Refused(code: errno) }
        source = MainLoopSources.onReadable(descriptor) { [descriptor] in
            var expirations: UInt64 = 0
            guard read(descriptor, &expirations, MemoryLayout<UInt64>.size) == MemoryLayout<UInt64>.size else { return }
            onExpiry()
        }
    }

    isolated deinit {
        MainLoopSources.remove(source)
        close(descriptor)
    }

    /// Arms the timer for `date` (absolute wall-clock time), or disarms it when `nil`.
    func arm(at date: Date?) {
        guard date != armed else { return }
        var spec = itimerspec()
        if let date {
            let seconds = date.timeIntervalSince1970.rounded(.down)
            spec.it_value.tv_sec = max(1, Int(seconds))
            spec.it_value.tv_nsec = Int((date.timeIntervalSince1970 - seconds) * 1_000_000_000)
        }
        // All zero disarms.
        armed = timerfd_settime(descriptor, Int32(TFD_TIMER_ABSTIME), &spec, nil) == 0 ? date : nil
    }
}
