import FoundationEssentials
import ReveilleCalendar
import ReveilleCore
import ReveilleFuzzSupport
import ReveilleModel
import ReveilleRules

/// iCalendar text as `reveille import` and sync read it: the bounds, libical's parser (through
/// ICalParser), the mapping to alarms; then the tree written back must parse again. A hostile
/// calendar is refused or read, and never traps or leaks a C object.
@main enum FuzzICal {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func main() {
        FuzzTarget.main { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            guard let document = try? ICalParser.parse(text, limits: .resource) else { return }
            let zone = UTCTimeZone()
            let reading = AlarmCalendar.alarms(in: document.components, now: now, timeZone: zone,
                                               zones: { $0 == "UTC" ? zone : nil }, defaultTitle: "Alarm")
            for alarm in reading.alarms {
                precondition(alarm.request.schedule.map { $0.nextFireDate(after: now, in: zone) != nil } ?? true,
                             "an alarm read from a calendar never rings")
            }
            for component in document.components {
                do {
                    _ = try ICalParser.parse(component.text, limits: .file)
                } catch {
                    preconditionFailure("a calendar written from a parsed one does not parse: \(error)")
                }
            }
        }
    }
}
