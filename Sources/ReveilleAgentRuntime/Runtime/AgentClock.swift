import FoundationEssentials
import ReveilleLoop
import ReveilleRules

/// What the agent's parts read of time and wait on: the wall clock, the local time zone,
/// one-shot timers on the loop and the wall-clock timer. One value handed to each part in place
/// of a closure per reading; in tests a virtual clock, on which an hour passes in a call.
@GLibActor
package protocol AgentClock: AnyObject {
    /// The wall clock.
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
package struct ClockTimer: Hashable, Sendable {
    package let id: UInt32

    package init(id: UInt32) { self.id = id }
}

/// A timer armed at a wall-clock instant (`nil`: none, only the clock's changes are heard).
@GLibActor
package protocol WallClockAlarm: AnyObject {
    func arm(at instant: Date?)
}
