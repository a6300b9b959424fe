import CGLib
import FoundationEssentials
import Glibc
import ReveilleRules
import ReveilleSystem

/// A zone of the system's tz database (`/usr/share/zoneinfo`), read by GLib's `GTimeZone`.
///
/// Reveille uses GLib's reader rather than Foundation's `TimeZone` because the latter
/// needs ICU, whose code and data would make up most of each binary's size and memory.
package final class GLibTimeZone: TimeZoneRules, @unchecked Sendable {
    // A GTimeZone is immutable once made and reference-counted atomically.
    private let zone: OpaquePointer
    package let identifier: String

    /// The zone named `identifier` (`Europe/Berlin`, `UTC`, or a POSIX `TZ` rule such as
    /// `CET-1CEST,M3.5.0,M10.5.0/3`), or `nil` when GLib knows no such zone
    /// (`g_time_zone_new_identifier`).
    package init?(identifier: String) {
        guard !identifier.isEmpty, let zone = g_time_zone_new_identifier(identifier) else { return nil }
        self.zone = zone
        self.identifier = String(cString: g_time_zone_get_identifier(zone))
    }

    /// This process's zone, `local(environment:)` of its environment, read once (as GLib's
    /// `g_time_zone_new_local` is). Only the two variables it reads are fetched: the whole
    /// environment as a dictionary cost a command about 0.3 ms.
    package static let local = local(environment: ["TZ", "TZDIR"].reduce(into: [:]) { variables, name in
        variables[name] = EnvironmentVariable.value(name)
    })

    /// The zone `TZ` names (a zone, a path or a POSIX rule, with or without a leading colon;
    /// UTC when GLib reads none), else the one `localtime` holds, a link or a regular file
    /// (`LocaltimeFile`; GLib 2.74's `g_time_zone_new_local` takes a regular file for UTC
    /// unless /etc/timezone names the zone), else the zone /etc/timezone names, else UTC.
    package static func local(environment: [String: String], localtime: String = "/etc/localtime") -> GLibTimeZone {
        if let tz = environment["TZ"], !tz.isEmpty {
            return GLibTimeZone(identifier: tz.hasPrefix(":") ? String(tz.dropFirst()) : tz) ?? utc
        }
        return LocaltimeFile.zone(at: localtime, zoneinfo: LocaltimeFile.zoneinfo(environment), hint: LocaltimeFile.etcTimezone)
            ?? LocaltimeFile.etcTimezone.flatMap(GLibTimeZone.init(identifier:)) ?? utc
    }

    private static var utc: GLibTimeZone { GLibTimeZone(zone: g_time_zone_new_utc()) }

    private init(zone: OpaquePointer) {
        self.zone = zone
        identifier = String(cString: g_time_zone_get_identifier(zone))
    }

    deinit { g_time_zone_unref(zone) }

    /// The UTC offset in force at `date` (`g_time_zone_find_interval`, `g_time_zone_get_offset`).
    package func secondsFromGMT(for date: Date) -> Int {
        let seconds = gint64(date.timeIntervalSince1970.rounded(.down))
        let interval = g_time_zone_find_interval(zone, G_TIME_TYPE_UNIVERSAL, seconds)
        return interval < 0 ? 0 : Int(g_time_zone_get_offset(zone, interval))
    }
}
