import ReveilleCore
import FoundationEssentials
import Glibc

/// When processes started, in the kernel's clock ticks since boot (`CLOCK_BOOTTIME`, as
/// `/proc/PID/stat` gives them): a process id names one process only between its start and
/// its exit, and comparing start times tells a reused id from the process that connected.
enum ProcessStart {
    /// Process `pid`'s start (field 22 of `/proc/PID/stat`), or `nil` when it is gone.
    static func of(pid: Int32) -> UInt64? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        // After the command name (which may hold spaces and parentheses): state is field 3.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        return fields.count > 19 ? UInt64(fields[19]) : nil
    }

    /// Now, in the same ticks.
    static func now() -> UInt64 {
        let time = SystemClock.bootTimeParts
        return ticks(seconds: time.seconds, nanoseconds: time.nanoseconds, hertz: SystemClock.ticksPerSecond)
    }

    /// An instant in ticks, rounded down as the kernel rounds a start: every process that
    /// started before the instant has a start at most this. (Rounded up, a process that
    /// started in the next tick, after the instant, counted as started before it.)
    static func ticks(seconds: UInt64, nanoseconds: UInt64, hertz: UInt64) -> UInt64 {
        seconds * hertz + nanoseconds * hertz / 1_000_000_000
    }
}

/// When each connection on the bus appeared (`NameOwnerChanged`), so that the process behind
/// it can be checked to have started before it. Connections that appeared before the agent
/// watched are known only to predate `watchedSince`: for them, a process id reused before the
/// agent started cannot be told apart. Nor can an id reused within the clock tick (10 ms) in
/// which the agent heard the connection appear: the time heard, not the time it connected, is
/// what is known (README, "Security").
struct ConnectionTimes {
    private var appeared: [String: UInt64] = [:]
    /// From when connections are heard of as they appear.
    var watchedSince: UInt64 = 0

    mutating func changed(_ name: String, appeared isNew: Bool, at time: UInt64) {
        appeared[name] = isNew ? time : nil
    }

    /// The latest instant at which `name` can have connected.
    func connected(_ name: String) -> UInt64 {
        appeared[name] ?? (watchedSince == 0 ? .max : watchedSince)
    }
}
