import ReveilleRules

/// Whether times are shown with a 12-hour clock (7:30 PM) or a 24-hour one (19:30), as the
/// user's `LC_TIME` says (ReveilleCore reads it: `ClockStyle.fromEnvironment()`); ISO 8601
/// output (`--json`, `next`) is never affected.
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

    /// `19:30` or `7:30 PM`.
    package func format(hour: Int, minute: Int) -> String {
        let minutes = minute.zeroPadded()
        guard twelveHour else { return "\(hour.zeroPadded()):\(minutes)" }
        return "\(hour % 12 == 0 ? 12 : hour % 12):\(minutes) \(hour < 12 ? am : pm)"
    }
}
