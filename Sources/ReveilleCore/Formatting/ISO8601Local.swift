import Foundation

/// ISO 8601 text for instants, in a given time zone with its offset.
public enum ISO8601Local {
    /// `2027-03-28T03:30:00+02:00`: the wall-clock time in `timeZone` and its UTC offset.
    public static func string(from date: Date, in timeZone: TimeZone) -> String {
        let offset = timeZone.secondsFromGMT(for: date)
        let sign = offset < 0 ? "-" : "+"
        let magnitude = abs(offset) / 60
        return wallClock(date, offset: offset) + sign + pad(magnitude / 60) + ":" + pad(magnitude % 60)
    }

    /// `2026-12-24T17:00:00.000Z`: UTC with milliseconds, for files and the wire.
    public static func utcString(from date: Date) -> String {
        let millis = Int((date.timeIntervalSince1970 * 1000).rounded(.down))
        let fraction = ((millis % 1000) + 1000) % 1000
        let whole = Date(timeIntervalSince1970: Double((millis - fraction) / 1000))
        return wallClock(whole, offset: 0) + "." + pad(fraction, width: 3) + "Z"
    }

    /// `20261121T201500Z`, for file names.
    public static func compactStamp(_ date: Date) -> String {
        wallClock(date, offset: 0).filter { $0 != "-" && $0 != ":" } + "Z"
    }

    /// Reads `YYYY-MM-DD[T| ]HH:MM[:SS[.fff]][Z|±HH:MM|±HHMM|±HH]`. Without an offset the
    /// text is a wall-clock time in `defaultTimeZone`, resolved by `WallClock`'s DST rules.
    public static func parse(_ text: String, defaultTimeZone: TimeZone) -> Date? {
        let pattern = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/
        guard let match = text.wholeMatch(of: pattern),
              let year = Int(match.1), let month = Int(match.2), let day = Int(match.3),
              let hour = Int(match.4), let minute = Int(match.5) else { return nil }
        let second = match.6.flatMap { Int($0) } ?? 0
        let fraction = match.7.flatMap { Double("0." + $0) } ?? 0
        let date = CivilDate(year: year, month: month, day: day)
        guard date.isValid, (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else {
            return nil
        }
        guard let zone = match.8 else {
            return WallClock.instant(on: date, hour: hour, minute: minute, second: Double(second) + fraction,
                                     in: defaultTimeZone)
        }
        var offset = 0
        if zone != "Z" && zone != "z" {
            let digits = zone.dropFirst().filter(\.isNumber)
            let hours = Int(digits.prefix(2)) ?? 0
            let minutes = digits.count > 2 ? Int(digits.dropFirst(2)) ?? 0 : 0
            guard hours <= 23, minutes <= 59 else { return nil }
            offset = (hours * 3600 + minutes * 60) * (zone.hasPrefix("-") ? -1 : 1)
        }
        let asIfUTC = Double(date.daysSinceEpoch) * 86_400 + Double(hour * 3600 + minute * 60 + second) + fraction
        return Date(timeIntervalSince1970: asIfUTC - Double(offset))
    }

    private static func wallClock(_ date: Date, offset: Int) -> String {
        let local = Int((date.timeIntervalSince1970 + Double(offset)).rounded(.down))
        let days = Int((Double(local) / 86_400).rounded(.down))
        let seconds = local - days * 86_400
        let civil = CivilDate(daysSinceEpoch: days)
        return "\(pad(civil.year, width: 4))-\(pad(civil.month))-\(pad(civil.day))T"
            + "\(pad(seconds / 3600)):\(pad(seconds / 60 % 60)):\(pad(seconds % 60))"
    }

    private static func pad(_ value: Int, width: Int = 2) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
