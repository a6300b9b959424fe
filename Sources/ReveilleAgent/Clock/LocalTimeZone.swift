import FoundationEssentials
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleRules
import ReveilleTimeZone

/// The time zone relative alarms follow: `TZ` when set, else the zone `/etc/localtime` holds,
/// a link into the tz database or a regular file (`GLibTimeZone.local(environment:localtime:)`,
/// as the CLI reads it). Watches that file and reports a new zone when it is replaced
/// (timedatectl renames a new link over it) or rewritten in place.
@GLibActor
final class LocalTimeZone {
    private(set) var current: any TimeZoneRules
    private var monitor: FileMonitor?
    /// Hears the new zone when the file changes.
    private let onChange: (@GLibActor (any TimeZoneRules) -> Void)?

    init(localtimePath: String, environment: [String: String], onChange: (@GLibActor (any TimeZoneRules) -> Void)? = nil) {
        self.onChange = onChange
        current = GLibTimeZone.local(environment: environment, localtime: localtimePath)
        if let tz = environment["TZ"], !tz.isEmpty { return }
        let zoneinfo = LocaltimeFile.zoneinfo(environment)
        monitor = FileMonitor(path: localtimePath) { [unowned self] in
            // A file being rewritten (truncated, half written) or gone holds no zone: the
            // current one stays until the file holds one again.
            guard let zone = LocaltimeFile.zone(at: localtimePath, zoneinfo: zoneinfo, hint: LocaltimeFile.etcTimezone),
                  zone.identifier != self.current.identifier else { return }
            self.current = zone
            self.onChange?(zone)
        }
    }
}
