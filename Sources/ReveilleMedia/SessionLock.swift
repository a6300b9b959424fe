/// Whether the session is locked, from what its screen lockers say: the rules, with no bus in
/// sight. GNOME Shell answers as `org.gnome.ScreenSaver`, KDE's kscreenlocker, xfce's and
/// light-locker as `org.freedesktop.ScreenSaver`; each says `ActiveChanged` and answers `GetActive`.
/// The session is locked while any locker says so; a locker that leaves the bus no longer locks it.
package struct SessionLock: Equatable, Sendable {
    /// The well-known names of the lockers followed on the session bus.
    package static let lockerNames = ["org.gnome.ScreenSaver", "org.freedesktop.ScreenSaver"]
    /// logind, on the system bus: its `LockedHint` counts as one more locker's word, though it
    /// is no locker to name.
    package static let logind = "org.freedesktop.login1"

    /// A locker on the bus.
    package struct Locker: Equatable, Sendable {
        /// Its unique name: a signal or answer from a connection that no longer owns the name is not its.
        package var owner: String
        /// Whether it says the screen is locked (`nil`: not told yet).
        package var active: Bool?
        /// Its process's name (`/proc/PID/comm`), when read: `light-locker` takes the sound away.
        package var processName: String?
    }

    package private(set) var lockers: [String: Locker] = [:]

    /// Whether the session is locked now.
    package var isLocked: Bool { lockers.values.contains { $0.active == true } }

    /// What a change in the lock means.
    package enum Change: Equatable, Sendable {
        case none
        case locked
        /// The person unlocked the session: whatever rings is shown to them afresh.
        case unlocked
    }

    /// `name` is owned by `owner` now, or by nobody (`nil`).
    package mutating func owner(of name: String, is owner: String?) -> Change {
        change { lockers in
            if let owner { lockers[name] = lockers[name]?.owner == owner ? lockers[name] : Locker(owner: owner) } else { lockers[name] = nil }
        }
    }

    /// The locker `name` said (from `sender`, its unique name) whether it is active. A locker that
    /// goes away while locked ends the lock silently: the person did not unlock in front of the alert.
    package mutating func locker(_ name: String, from sender: String, says active: Bool) -> Change {
        guard lockers[name]?.owner == sender else { return .none }
        return change { $0[name]?.active = active }
    }

    package mutating func locker(_ name: String, owner: String, isProcess processName: String) {
        guard lockers[name]?.owner == owner else { return }
        lockers[name]?.processName = processName
    }

    /// A locker that switches to another virtual terminal when it locks, so the session loses its
    /// sound device (and an alarm rings silently) while locked; `nil` when none runs.
    package var silencingLocker: String? {
        lockers.values.compactMap(\.processName).sorted().first { Self.switchesTerminal($0) }
    }

    /// The lockers that run, by process name where known, else by bus name.
    package var lockerDescriptions: [String] {
        lockers.filter { $0.key != Self.logind }.sorted { $0.key < $1.key }.map { $0.value.processName ?? $0.key }
    }

    package static func switchesTerminal(_ processName: String) -> Bool { processName == "light-locker" }

    private mutating func change(_ body: (inout [String: Locker]) -> Void) -> Change {
        let was = isLocked
        let lockersBefore = lockers
        body(&lockers)
        switch (was, isLocked) {
        case (false, true): return .locked
        case (true, false):
            // Unlocked is a locker saying so; a locker gone from the bus is no person in front of the screen.
            let saidSo = lockers.contains { name, locker in lockersBefore[name]?.active == true && locker.active == false }
            return saidSo ? .unlocked : .none
        default: return .none
        }
    }
}

/// Which lock and unlock lines are logged: whoever owns a screen saver's name can toggle it as
/// fast as the bus carries signals (207 MB of log in 20 s once). The first `perBurst` changes
/// of a burst are logged one by one; the rest are counted and said in one line when the burst
/// ends (`burst` seconds after it began). Pure: the watch gives it the time.
package struct LockChangeLog: Sendable, Equatable {
    package static let perBurst = 4
    package static let burst: Double = 10
    private var began: Double?
    private var logged = 0
    /// Changes of this burst not logged.
    package private(set) var quieted = 0

    package init() {}

    /// Whether the change heard at `now` is logged; a burst that ended first is closed, and
    /// what it quieted returned to be said.
    package mutating func note(at now: Double) -> (log: Bool, endedQuieted: Int) {
        var ended = 0
        if let began, now - began >= Self.burst { ended = close() }
        if began == nil { began = now }
        logged += 1
        if logged <= Self.perBurst { return (true, ended) }
        quieted += 1
        return (false, ended)
    }

    /// Ends the burst: the changes it did not log.
    package mutating func close() -> Int {
        defer { self = LockChangeLog() }
        return quieted
    }
}

