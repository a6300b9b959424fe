import FoundationEssentials
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleModel
import ReveilleSystem
import SystemPackage

/// A kernel alarm timer: a `timerfd` on `CLOCK_REALTIME_ALARM` that, armed, wakes the machine
/// from suspend at its instant. It needs `CAP_WAKE_ALARM`, which systemd 254 and later give
/// local user sessions; with it, no privileged helper and no RTC slot of its own are needed.
@GLibActor
package final class KernelWakeAlarm {
    private let timer: WallClockTimerDescriptor
    private var source: UInt32 = 0
    /// The instant armed now, if any.
    package private(set) var armed: Date?

    /// Why the kernel refused the alarm timer: `EPERM` (no `CAP_WAKE_ALARM`), `EINVAL` (no
    /// alarm-timer support).
    package struct Refused: Error {
        package var code: Errno
        package var description: String { code.description }
    }

    /// Opens the alarm timer; `onExpiry` runs when an armed instant passes (the caller re-arms).
    package init(onExpiry: @escaping @GLibActor () -> Void) throws(Refused) {
        do { timer = try WallClockTimerDescriptor(.wakingAlarm) } catch { throw Refused(code: error) }
        source = MainLoopSources.onReadable(timer.descriptor.rawValue) { [weak self] in
            guard let self, self.timer.read() == .fired else { return }
            onExpiry()
        }
    }

    isolated deinit {
        MainLoopSources.remove(source)
    }

    /// Arms the timer for `date` (absolute wall-clock time), or disarms it when `nil`.
    package func arm(at date: Date?) {
        guard date != armed else { return }
        // 0 disarms; an instant at or before the epoch fires at once all the same.
        let seconds = date.map { max(1, $0.timeIntervalSince1970) } ?? 0
        armed = (try? timer.arm(atEpochSeconds: seconds)) != nil ? date : nil
    }
}
