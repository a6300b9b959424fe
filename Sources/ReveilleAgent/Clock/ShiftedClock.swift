import FoundationEssentials
import Glibc
import ReveilleAgentRuntime
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleRules

/// The tests' clock: another clock (`LiveClock`) shifted by the seconds a file holds, re-read
/// on `signal` (SIGUSR1) and whenever the wall clock is set, as if the clock had been set.
/// Chosen at assembly (`--test-clock-offset-file`); the production clock knows nothing of it.
@GLibActor
final class ShiftedClock: AgentClock {
    private let base: any AgentClock
    private let offsetFile: String
    /// Seconds added to the base clock.
    private(set) var offset: TimeInterval = 0
    /// The wall-clock timers made, told when the file is re-read on the signal.
    private var wallTimers: [Weak] = []

    /// `signal`: the signal that makes it read its file again (`nil`: none, for tests in process).
    init(base: any AgentClock, offsetFile: String, signal: Int32? = SIGUSR1) {
        self.base = base
        self.offsetFile = offsetFile
        reloadOffset()
        if let signal {
            MainLoopSources.onSignal(signal) { [weak self] in self?.fileChanged() }
        }
    }

    var now: Date { base.now.addingTimeInterval(offset) }
    var timeZone: any TimeZoneRules { base.timeZone }
    var bootTime: TimeInterval { base.bootTime }

    @discardableResult
    func after(_ seconds: TimeInterval, _ handler: @escaping @GLibActor () -> Void) -> ClockTimer {
        base.after(seconds, handler)
    }

    func cancel(_ timer: ClockTimer) {
        base.cancel(timer)
    }

    func wallClockTimer(onFire: @escaping @GLibActor () -> Void,
                        onClockChange: @escaping @GLibActor () -> Void) throws -> any WallClockAlarm {
        let timer = ShiftedTimer(clock: self, onClockChange: onClockChange)
        timer.base = try base.wallClockTimer(onFire: onFire, onClockChange: { [weak timer] in timer?.clockChanged() })
        wallTimers.append(Weak(timer: timer))
        return timer
    }

    /// The file was written (the signal): each timer hears the clock was set.
    func fileChanged() {
        for timer in wallTimers.compactMap(\.timer) { timer.clockChanged() }
    }

    private func reloadOffset() {
        offset = (try? String(contentsOfFile: offsetFile, encoding: .utf8)).flatMap { Double($0.trimmed()) } ?? 0
    }

    /// A timer of the base clock armed at the instant the shifted clock names.
    @GLibActor
    private final class ShiftedTimer: WallClockAlarm {
        private unowned let clock: ShiftedClock
        private let onClockChange: @GLibActor () -> Void
        var base: (any WallClockAlarm)?

        init(clock: ShiftedClock, onClockChange: @escaping @GLibActor () -> Void) {
            self.clock = clock
            self.onClockChange = onClockChange
        }

        func arm(at instant: Date?) {
            base?.arm(at: instant?.addingTimeInterval(-clock.offset))
        }

        /// The shifted clock follows its file whenever the clock is looked at again.
        func clockChanged() {
            clock.reloadOffset()
            onClockChange()
        }
    }

    private struct Weak {
        weak var timer: ShiftedTimer?
    }
}
