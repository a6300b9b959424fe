import FoundationEssentials
import Logging
import ReveilleAgentRuntime
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleModel
import ReveilleSystem
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

    /// How an instant is armed: given the seconds and the descriptor's own arming, which it
    /// calls (a test's fails first, to see a failure handled on the firing path).
    typealias Arming = (_ seconds: Double, _ arm: (Double) throws(Errno) -> Void) throws(Errno) -> Void
    private let arming: Arming

    init(onFire: @escaping @GLibActor () -> Void, onClockChange: @escaping @GLibActor () -> Void,
         arming: @escaping Arming = { seconds, arm throws(Errno) in try arm(seconds) }) throws {
        timer = try WallClockTimerDescriptor()
        self.onFire = onFire
        self.onClockChange = onClockChange
        self.arming = arming
        source = MainLoopSources.onReadable(timer.descriptor.rawValue) { [weak self] in self?.readExpiry() }
    }

    /// A timer that goes (a runtime that ends before the process does, as in tests) leaves
    /// no source that would fire for it.
    isolated deinit {
        MainLoopSources.remove(source)
    }

    /// The instant last asked for, and how many times in a row arming it failed.
    private var wanted: Date?
    private var failures = 0
    private let logger = Logger(label: "reveille-agent")

    /// Arms the timer for `date`, or for nothing but clock changes when `nil`.
    func arm(at date: Date?) {
        wanted = date
        // 0 would disarm it: an instant at or before the epoch fires at once all the same.
        let seconds = date.map { max(1, $0.timeIntervalSince1970) } ?? Self.farFuture
        do {
            try arming(seconds) { seconds throws(Errno) in try timer.arm(atEpochSeconds: seconds) }
            failures = 0
        } catch where error == .canceled {
            // The clock changed between our reading of it and this call: recompute.
            onClockChange()
        } catch {
            // Never left unarmed in silence: the alarm due would not ring. Said, and tried again
            // (0.5 s, doubling to a minute) until it holds or another instant is asked for.
            failures += 1
            let pause = min(60, 0.5 * Double(1 << min(failures - 1, 7)))
            logger.error("could not arm the wall-clock timer for \(date.map { "\($0)" } ?? "clock changes only") (\(error)); trying again in \(pause) s")
            MainLoopSources.after(milliseconds: UInt32(pause * 1000)) { [weak self] in
                guard let self, self.wanted == date else { return }
                self.arm(at: date)
            }
        }
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
