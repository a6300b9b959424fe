import Glibc
import ReveilleRules

/// Whether times are shown with a 12-hour clock (7:30 PM) or a 24-hour one (19:30), as the
/// user's `LC_TIME` says (its `T_FMT`); ISO 8601 output (`--json`, `next`) is never affected.
package struct ClockStyle: Equatable, Sendable {
    package var twelveHour: Bool
    package var am: String
    package var pm: String

    package static let twentyFourHour = ClockStyle(twelveHour: false, am: "AM", pm: "PM")

    package init(twelveHour: Bool, am: String, pm: String) {
        self.twelveHour = twelveHour
        self.am = am
        self.pm = pm
    }

    /// The style of the process's `LC_TIME` (`setlocale(LC_TIME, "")`, then `nl_langinfo`).
    package static func fromEnvironment() -> ClockStyle {
        guard setlocale(LC_TIME, "") != nil, let format = nl_langinfo(nl_item(T_FMT)).map({ String(cString: $0) }) else {
            return .twentyFourHour
        }
        let twelve = format.contains("%I") || format.contains("%l") || format.contains("%r")
        let am = nl_langinfo(nl_item(AM_STR)).map { String(cString: $0) } ?? ""
        let pm = nl_langinfo(nl_item(PM_STR)).map { String(cString: $0) } ?? ""
        return ClockStyle(twelveHour: twelve && !am.isEmpty, am: am.isEmpty ? "AM" : am, pm: pm.isEmpty ? "PM" : pm)
    }

    /// `19:30` or `7:30 PM`.
    package func format(hour: Int, minute: Int) -> String {
        let minutes = minute.zeroPadded()
        guard twelveHour else { return "\(hour.zeroPadded()):\(minutes)" }
        return "\(hour % 12 == 0 ? 12 : hour % 12):\(minutes) \(hour < 12 ? am : pm)"
    }
}
