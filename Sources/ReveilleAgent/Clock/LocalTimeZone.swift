import FoundationEssentials
import ReveilleBus
import ReveilleCore
import ReveilleTimeZone

/// The time zone relative alarms follow: `TZ` when set, else the zone `/etc/localtime`
/// links to. Watches that link and reports a new zone when it is replaced (timedatectl does so).
@GLibActor
final class LocalTimeZone {
    private(set) var current: any TimeZoneRules
    private let path: String
    private var monitor: FileMonitor?
    /// Hears the new zone when the link is replaced.
    var onChange: (@GLibActor (any TimeZoneRules) -> Void)?

    init(localtimePath: String, environment: [String: String]) {
        path = localtimePath
        if let tz = environment["TZ"], !tz.isEmpty {
            current = GLibTimeZone(identifier: tz.hasPrefix(":") ? String(tz.dropFirst()) : tz) ?? GLibTimeZone.local
            return
        }
        current = Self.read(localtimePath)
        monitor = FileMonitor(path: localtimePath) { [unowned self] in
            let zone = Self.read(self.path)
            guard zone.identifier != self.current.identifier else { return }
            self.current = zone
            self.onChange?(zone)
        }
    }

    /// The zone named by the link's target (`.../zoneinfo/Europe/Berlin`), else `/etc/timezone`'s text.
    private static func read(_ path: String) -> any TimeZoneRules {
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path),
           let range = target.firstRange(of: "zoneinfo/"),
           let zone = GLibTimeZone(identifier: String(target[range.upperBound...])) {
            return zone
        }
        if let text = try? String(contentsOfFile: "/etc/timezone", encoding: .utf8),
           let zone = GLibTimeZone(identifier: text.trimmed()) {
            return zone
        }
        return UTCTimeZone()
    }
}
