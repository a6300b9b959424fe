import Foundation
import ReveilleBus

/// The time zone relative alarms follow: `TZ` when set, else the zone `/etc/localtime`
/// links to. Watches that link and reports a new zone when it is replaced (timedatectl does so).
@GLibActor
final class LocalTimeZone {
    private(set) var current: TimeZone
    private let path: String
    private var monitor: FileMonitor?
    /// Hears the new zone when the link is replaced.
    var onChange: (@GLibActor (TimeZone) -> Void)?

    init(localtimePath: String, environment: [String: String]) {
        path = localtimePath
        if let tz = environment["TZ"], !tz.isEmpty {
            current = TimeZone(identifier: tz.hasPrefix(":") ? String(tz.dropFirst()) : tz) ?? .current
            return
        }
        current = Self.read(localtimePath)
        monitor = FileMonitor(path: localtimePath) { [unowned self] in
            let zone = Self.read(self.path)
            guard zone != self.current else { return }
            self.current = zone
            self.onChange?(zone)
        }
    }

    /// The zone named by the link's target (`.../zoneinfo/Europe/Berlin`), else `/etc/timezone`'s text.
    private static func read(_ path: String) -> TimeZone {
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path),
           let range = target.range(of: "zoneinfo/"),
           let zone = TimeZone(identifier: String(target[range.upperBound...])) {
            return zone
        }
        if let text = try? String(contentsOfFile: "/etc/timezone", encoding: .utf8),
           let zone = TimeZone(identifier: text.trimmingCharacters(in: .whitespacesAndNewlines)) {
            return zone
        }
        return TimeZone(identifier: "UTC")!
    }
}
