import FoundationEssentials
import ReveilleCore
import ReveilleModel
import ReveilleRules
import ReveilleWords

/// Whether the agent keeps the time zone this terminal does (N13). The agent rings a time of day
/// on its own wall clock; in another zone `add 7:00` rang at 16:00 here without a word. The
/// alarm it returns shows it: its next instant is not its time of day on this terminal's clock.
enum AgentZone {
    /// A warning when `record`, a time of day waiting for its time, next rings at another time of
    /// day on `timeZone`'s clock than its own; `nil` when the clocks agree (a time that a
    /// daylight-saving gap moves here agrees: the agent moves it alike).
    static func warning(for record: AlarmRecord, in timeZone: any TimeZoneRules) -> String? {
        warning(for: record.alarm, firing: record.fireDate, in: timeZone)
    }

    /// The same for a listing (`status` names the next alarm from the list).
    static func warning(for listing: AlarmListing, in timeZone: any TimeZoneRules) -> String? {
        warning(for: listing.alarm, firing: listing.fireDate, in: timeZone)
    }

    private static func warning(for alarm: Alarm, firing fireDate: Date?, in timeZone: any TimeZoneRules) -> String? {
        guard alarm.state == .scheduled, case .relative(let relative)? = alarm.schedule, let fireDate else { return nil }
        let day = CivilDate(containing: fireDate, in: timeZone)
        let here = WallClock.occurrences(on: day, hour: relative.time.hour, minute: relative.time.minute, in: timeZone)
        guard !here.contains(fireDate) else { return nil }
        let time = "\(relative.time.hour.zeroPadded()):\(relative.time.minute.zeroPadded())"
        // The ISO 8601 text's HH:MM, after the 'T'.
        let shown = String(ISO8601Local.string(from: fireDate, in: timeZone).dropFirst(11).prefix(5))
        return L("The agent keeps another time zone than this terminal (%@): it rings this alarm at %@ on its clock, which is %@ here.",
                 timeZone.identifier, time, shown)
    }
}
