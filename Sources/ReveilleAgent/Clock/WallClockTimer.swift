import FoundationEssentials
import ReveilleAgentRuntime
import ReveilleBus
import ReveilleCore
import SystemPackage

/// One wall-clock timer on `timerfd` (CLOCK_REALTIME, absolute, TFD_TIMER_CANCEL_ON_SET),
/// watched by the GLib loop. It wakes exactly at the armed instant and also when the wall
/// clock is set or the machine resumes, so the scheduler can recompute. Nothing polls.
@GLibActor
final class WallClockTimer: WallClockAlarm {
    private let timer: WallClockTimerDescriptor
    private let onFire: @GLibActor () -> Void
    private let onClockChange: @GLibActor () -> Void
    private var source: UInt32 = 0

    /// A far instant to arm when nothing is due: the timer must stay armed for the kernel
    /// to report clock changes, and it never fires in practice (2100-01-01).
    private static let farFuture: Double = 4_102_444_800

    init(onFire: @escaping @GLibActor () -> Void, onClockChange: @escaping @GLibActor () -> Void) throws {
        timer = try WallClockTimerDescriptor()
        self.onFire = onFire
        self.onClockChange = onClockChange
        source = MainLoopSources.onReadable(timer.descriptor.rawValue) { [weak self] in self?.readExpiry() }
    }

    /// A timer that goes (a runtime that ends before the process does, as in tests) leaves
    /// no source that would fire for it.
    isolated deinit {
        MainLoopSources.remove(source)
    }

    /// Arms the timer for `date`, or for nothing but clock changes when `nil`.
    func arm(at date: Date?) {
        // 0 would disarm it: an instant at or before the epoch fires at once all the same.
        let seconds = date.map { max(1, $0.timeIntervalSince1970) } ?? Self.farFuture
        do { try timer.arm(atEpochSeconds: seconds) } catch where error == .canceled {
            // The clock changed between our reading of it and this call: recompute.
            onClockChange()
        } catch {}
    }

    /// The expiry count's read: ECANCELED means the clock jumped.
    private func readExpiry() {
        switch timer.read() {
        case .fired: onFire()
        case .clockSet: onClockChange()
        case .nothing: break
        }
    }
}
