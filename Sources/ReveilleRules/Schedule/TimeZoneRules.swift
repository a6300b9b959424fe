import FoundationEssentials

/// A time zone's offsets from UTC: all that Reveille's schedule math asks of a zone.
/// The product's zones come from GLib's tz database reader (`ReveilleTimeZone`); Core
/// itself stays free of C libraries and of ICU.
package protocol TimeZoneRules: Sendable {
    /// The zone's name, such as `Europe/Berlin` or `UTC`.
    var identifier: String { get }
    /// The offset from UTC, in seconds, in force at `date`.
    func secondsFromGMT(for date: Date) -> Int
}

/// Coordinated Universal Time: the zone of stored and wire instants.
package struct UTCTimeZone: TimeZoneRules {
    package init() {}
    package var identifier: String { "UTC" }
    package func secondsFromGMT(for date: Date) -> Int { 0 }
}
