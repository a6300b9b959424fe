import FoundationEssentials
import ReveilleAgentRuntime
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleRules
import ReveilleSystem

/// The machine's clocks: the wall clock, the zone `LocalTimeZone` follows, the GLib loop's
/// timeouts and a `timerfd`. Nothing of the tests' shifted clock: that is `ShiftedClock`,
/// wrapped around this one at assembly when a test asks for it.
@GLibActor
final class LiveClock: AgentClock {
    private let zone: LocalTimeZone

    init(zone: LocalTimeZone) {
        self.zone = zone
    }

    /// The longest wait `after` keeps, in seconds.
    static let longestWait = TimeInterval(UInt32.max / 1000)

    var now: Date { Date() }
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
        try WallClockTimer(onFire: onFire, onClockChange: onClockChange)
    }
}
