import FoundationEssentials
import ReveilleBus
import ReveilleCore
import ReveilleTimeZone

/// The time zone relative alarms follow: `TZ` when set, else the zone `/etc/localtime` holds,
/// a link into the tz database or a regular file (`LocaltimeFile`). Watches that file and
/// reports a new zone when it is replaced (timedatectl renames a new link over it) or
/// rewritten in place.
@GLibActor
final class LocalTimeZone {
    private(set) var current: any TimeZoneRules
    private let path: String
    private let zoneinfo: String
    private var monitor: FileMonitor?
    /// Hears the new zone when the file changes.
    var onChange: (@GLibActor (any TimeZoneRules) -> Void)?

    init(localtimePath: String, environment: [String: String]) {
        path = localtimePath
        zoneinfo = environment["TZDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/share/zoneinfo"
        if let tz = environment["TZ"], !tz.isEmpty {
            current = GLibTimeZone(identifier: tz.hasPrefix(":") ? String(tz.dropFirst()) : tz) ?? GLibTimeZone.local
            return
        }
        current = Self.read(localtimePath, zoneinfo: zoneinfo) ?? Self.etcTimezone.flatMap(GLibTimeZone.init(identifier:)) ?? UTCTimeZone()
        monitor = FileMonitor(path: localtimePath) { [unowned self] in
            // A file being rewritten (truncated, half written) or gone holds no zone: the
            // current one stays until the file holds one again.
            guard let zone = Self.read(self.path, zoneinfo: self.zoneinfo), zone.identifier != self.current.identifier else { return }
            self.current = zone
            self.onChange?(zone)
        }
    }

    private static func read(_ path: String, zoneinfo: String) -> GLibTimeZone? {
        LocaltimeFile.zone(at: path, zoneinfo: zoneinfo, hint: etcTimezone)
    }

    /// The zone name Debian keeps in /etc/timezone: a hint for a regular-file localtime, and
    /// the zone when there is no localtime.
    private static var etcTimezone: String? {
        (try? String(contentsOfFile: "/etc/timezone", encoding: .utf8)).map { $0.trimmed() }.flatMap { $0.isEmpty ? nil : $0 }
    }
}
