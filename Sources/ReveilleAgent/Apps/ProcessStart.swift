import FoundationEssentials
import Glibc
import ReveilleCore
import ReveilleSystem

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
    /// The agent's own connection (`:1.N`): the bus names connections in the order they connect,
    /// so one named after it connected after the agent did, and so after nothing of `watchedSince`.
    var own = ""

    mutating func changed(_ name: String, appeared isNew: Bool, at time: UInt64) {
        appeared[name] = isNew ? time : nil
    }

    /// The latest instant at which `name` can have connected, which a call from it arriving at
    /// `arrived` shows it had. A connection not heard of that the bus named after the agent's came
    /// while the agent watched, and its appearance was not heard: the bus daemon drops signals
    /// to a connection whose queue is full (200 connections flooding the agent), so it is bound
    /// by its call, not taken for one older than the agent (which refused the user's `reveille
    /// stop`, its new process "started after it connected").
    func connected(_ name: String, arrived: UInt64) -> UInt64 {
        if let heard = appeared[name] { return heard }
        guard watchedSince != 0 else { return arrived }
        return Self.isNamed(name, after: own) ? arrived : watchedSince
    }

    /// Whether the bus named `name` after `earlier` (`:1.12` after `:1.9`): its unique names are
    /// `:MAJOR.MINOR`, the minor counting up; `false` when either is not such a name.
    static func isNamed(_ name: String, after earlier: String) -> Bool {
        func parts(_ text: String) -> (UInt64, UInt64)? {
            guard text.hasPrefix(":"), let dot = text.firstIndex(of: "."),
                  let major = UInt64(text[text.index(after: text.startIndex)..<dot]),
                  let minor = UInt64(text[text.index(after: dot)...]) else { return nil }
            return (major, minor)
        }
        guard let name = parts(name), let earlier = parts(earlier) else { return false }
        return name > earlier
    }
}
