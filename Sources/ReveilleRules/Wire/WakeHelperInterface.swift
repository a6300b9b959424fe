/// The wake helper's D-Bus interface on the *system* bus: the one privileged part of
/// Reveille, which sets the machine's RTC wake alarm for a user's agent.
package enum WakeHelperInterface {
    package static let busName = "io.github.reveille.WakeHelper"
    package static let objectPath = "/io/github/reveille/WakeHelper"
    package static let interface = "io.github.reveille.WakeHelper1"
    package static let errorPrefix = "io.github.reveille.WakeHelper.Error."
    /// The polkit action a caller must be authorized for to set or clear the wake alarm.
    package static let polkitAction = "io.github.reveille.set-wake-alarm"
    /// How far ahead a wake-up may be set: a year and a day.
    package static let maximumLead: Int64 = 366 * 86_400
    /// How many of one Unix user's calls may wait for polkit at a time; past it a call fails
    /// at once with `errorPrefix + "TooManyPendingChecks"`.
    package static let pendingChecksPerUser = 4

    /// The introspection XML, written from `WakeHelperMethod`.
    package static let introspectionXML = BusInterfaceDescription.node([
        BusInterfaceDescription(name: interface, methods: WakeHelperMethod.methods),
    ]) + "\n"
}

/// The wake helper's methods, one case each: the helper answers each case, the agent calls them by it.
package enum WakeHelperMethod: BusMethodSet {
    case setWakeAlarm, clearWakeAlarm, getWakeAlarm

    package var method: BusMethod {
        switch self {
        case .setWakeAlarm:
            BusMethod("SetWakeAlarm", in: [.init("instant", "t")], comment: """
                Wakes the machine at `instant` (seconds since 1970, UTC) by setting the RTC wake
                alarm; replaces any wake-up set before. The instant must be in the future and at
                most 366 days ahead, also when polkit answers. Needs polkit's
                io.github.reveille.set-wake-alarm; at most \(WakeHelperInterface.pendingChecksPerUser) calls of one user wait for
                polkit at a time (past them: Error.TooManyPendingChecks).
                """)
        case .clearWakeAlarm:
            BusMethod("ClearWakeAlarm", comment: "Clears the RTC wake alarm. Needs the same authorization.")
        case .getWakeAlarm:
            BusMethod("GetWakeAlarm", out: [.init("instant", "t")], comment: "The wake-up set now (seconds since 1970, UTC), 0 for none.")
        }
    }
}
