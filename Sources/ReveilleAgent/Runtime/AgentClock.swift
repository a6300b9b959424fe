import FoundationEssentials
import Glibc
import ReveilleBus
import ReveilleCore

/// What the agent's parts read of time and wait on: the wall clock, the local time zone,
/// one-shot timers on the loop and the wall-clock timer. One value handed to each part in place
/// of a closure per reading; in tests a virtual clock, on which an hour passes in a call.
@GLibActor
protocol AgentClock: AnyObject {
    /// The wall clock (shifted by the test clock's offset, when there is one).
    var now: Date { get }
    /// The local time zone, as it is now.
    var timeZone: any TimeZoneRules { get }
    /// Seconds since boot, counting suspend (`CLOCK_BOOTTIME`): a jump of the wall clock is
    /// measured against it, so a resume is no jump.
    var bootTime: TimeInterval { get }
    /// Calls `handler` once, `seconds` from now, on the loop. Timers run on a clock that stops
    /// in suspend: after a resume one may come late.
    @discardableResult
    func after(_ seconds: TimeInterval, _ handler: @escaping @GLibActor () -> Void) -> ClockTimer
    /// Drops a timer that has not run yet.
    func cancel(_ timer: ClockTimer)
    /// A timer at wall-clock instants, which also hears when the wall clock is set.
    func wallClockTimer(onFire: @escaping @GLibActor () -> Void,
                        onClockChange: @escaping @GLibActor () -> Void) throws -> any WallClockAlarm
}

/// A timer `AgentClock.after` started, to cancel it.
struct ClockTimer: Hashable, Sendable {
    let id: UInt32
}

/// A timer armed at a wall-clock instant (`nil`: none, only the clock's changes are heard).
@GLibActor
protocol WallClockAlarm: AnyObject {
    func arm(at instant: Date?)
}

/// The machine's clocks: the wall clock (shifted by the seconds in a file for tests), the zone
/// `LocalTimeZone` follows, the GLib loop's timeouts and a `timerfd`.
@GLibActor
final class LiveClock: AgentClock {
    private let zone: LocalTimeZone
    private let offsetFile: String?
    /// Seconds the test clock adds to the real one.
    private var offset: TimeInterval = 0
    /// The wall-clock timers made, told when the test clock's file is re-read (SIGUSR1).
    private var wallTimers: [Weak] = []

    /// `offsetFile`: for tests, a file holding seconds to add to the wall clock, re-read on
    /// SIGUSR1 and whenever the kernel says the clock was set, as if the clock had been set.
    init(zone: LocalTimeZone, offsetFile: String?) {
        self.zone = zone
        self.offsetFile = offsetFile
        reloadOffset()
        if offsetFile != nil {
            MainLoopSources.onSignal(SIGUSR1) { [weak self] in
                guard let self else { return }
                for timer in self.wallTimers.compactMap(\.timer) { timer.clockChanged() }
            }
        }
    }

    /// The longest wait `after` keeps, in seconds.
    static let longestWait = TimeInterval(UInt32.max / 1000)

    var now: Date { Date().addingTimeInterval(offset) }
    var timeZone: any TimeZoneRules { zone.current }
    var bootTime: TimeInterval { SystemClock.bootTime }

    @discardableResult
    func after(_ seconds: TimeInterval, _ handler: @escaping @GLibActor () -> Void) -> ClockTimer {
        // GLib counts milliseconds in 32 bits: a longer wait (over 49 days) would not fit.
        ClockTimer(id: MainLoopSources.after(milliseconds: UInt32(min(max(0, seconds), Self.longestWait) * 1000), handler: handler))
    }

    func cancel(_ timer: ClockTimer) {
        MainLoopSources.remove(timer.id)
    }

    func wallClockTimer(onFire: @escaping @GLibActor () -> Void,
                        onClockChange: @escaping @GLibActor () -> Void) throws -> any WallClockAlarm {
        let timer = try ShiftedTimer(clock: self, onFire: onFire, onClockChange: onClockChange)
        wallTimers.append(Weak(timer: timer))
        return timer
    }

    private func reloadOffset() {
        guard let offsetFile else { return }
        offset = (try? String(contentsOfFile: offsetFile, encoding: .utf8)).flatMap { Double($0.trimmed()) } ?? 0
    }

    /// A `WallClockTimer` armed on the real clock at the instant the shifted one names.
    @GLibActor
    private final class ShiftedTimer: WallClockAlarm {
        private unowned let clock: LiveClock
        private let onClockChange: @GLibActor () -> Void
        private var timer: WallClockTimer?

        init(clock: LiveClock, onFire: @escaping @GLibActor () -> Void,
             onClockChange: @escaping @GLibActor () -> Void) throws {
            self.clock = clock
            self.onClockChange = onClockChange
            timer = try WallClockTimer(onFire: onFire, onClockChange: { [weak self] in self?.clockChanged() })
        }

        func arm(at instant: Date?) {
            timer?.arm(at: instant?.addingTimeInterval(-clock.offset))
        }

        /// The test clock follows its file whenever the clock is looked at again.
        func clockChanged() {
            clock.reloadOffset()
            onClockChange()
        }
    }

    private struct Weak {
        weak var timer: ShiftedTimer?
    }
}
