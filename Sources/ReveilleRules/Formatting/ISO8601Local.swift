import FoundationEssentials

/// ISO 8601 text for instants, in a given time zone with its offset.
///
/// Kept rather than GLib's `GDateTime`: every stored date passes through `parse` (a byte
/// scanner, several times faster on a 10,000-alarm store), and wall-clock times without an
/// offset resolve by `WallClock`'s DST rules (a gap takes the offset before it, as mktime
/// does), which the schedule math relies on and tests in six zones.
package enum ISO8601Local {
    /// `2027-03-28T03:30:00+02:00`: the wall-clock time in `timeZone` and its UTC offset.
    package static func string(from date: Date, in timeZone: any TimeZoneRules) -> String {
        let offset = timeZone.secondsFromGMT(for: date)
        let sign = offset < 0 ? "-" : "+"
        let magnitude = abs(offset) / 60
        return wallClock(date, offset: offset) + sign + (magnitude / 60).zeroPadded() + ":" + (magnitude % 60).zeroPadded()
    }

    /// `2027-03-28T03:30:00.250+02:00`: as `string(from:in:)`, with milliseconds (the CLI's
    /// JSON keeps what the agent's does).
    package static func millisecondString(from date: Date, in timeZone: any TimeZoneRules) -> String {
        let millis = Int((date.timeIntervalSince1970 * 1000).rounded(.down))
        let fraction = ((millis % 1000) + 1000) % 1000
        let whole = string(from: Date(timeIntervalSince1970: Double((millis - fraction) / 1000)), in: timeZone)
        return whole.prefix(19) + "." + fraction.zeroPadded(3) + whole.dropFirst(19)
    }

    /// `2026-12-24T17:00:00.000Z`: UTC with milliseconds, for files and the wire.
    package static func utcString(from date: Date) -> String {
        let millis = Int((date.timeIntervalSince1970 * 1000).rounded(.down))
        let fraction = ((millis % 1000) + 1000) % 1000
        let whole = Date(timeIntervalSince1970: Double((millis - fraction) / 1000))
        return wallClock(whole, offset: 0) + "." + fraction.zeroPadded(3) + "Z"
    }

    /// `20261121T201500Z`, for file names.
    package static func compactStamp(_ date: Date) -> String {
        wallClock(date, offset: 0).filter { $0 != "-" && $0 != ":" } + "Z"
    }

    /// Reads `YYYY-MM-DD[T| ]HH:MM[:SS[.fff]][Z|±HH:MM|±HHMM|±HH]`. Without an offset the
    /// text is a wall-clock time in `defaultTimeZone`, resolved by `WallClock`'s DST rules.
    /// A byte scanner, not a Regex: every stored date passes through here.
    package static func parse(_ text: String, defaultTimeZone: any TimeZoneRules) -> Date? {
        var scanner = ByteScanner(text)
        guard let year = scanner.digits(4), scanner.skip("-"), let month = scanner.digits(2), scanner.skip("-"),
              let day = scanner.digits(2), scanner.skip("T") || scanner.skip("t") || scanner.skip(" "),
              let hour = scanner.digits(2) ?? scanner.digits(1), scanner.skip(":"), let minute = scanner.digits(2) else { return nil }
        var second = 0
        var fraction = 0.0
        if scanner.skip(":") {
            guard let value = scanner.digits(2) else { return nil }
            second = value
            if scanner.skip(".") || scanner.skip(",") {
                guard let digits = scanner.digitRun(max: 9) else { return nil }
                fraction = Double(digits.value) / (0..<digits.count).reduce(1.0) { scale, _ in scale * 10 }
            }
        }
        let date = CivilDate(year: year, month: month, day: day)
        guard date.isValid, (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second) else {
            return nil
        }
        let asIfUTC = Double(date.daysSinceEpoch) * 86_400 + Double(hour * 3600 + minute * 60 + second) + fraction
        if scanner.atEnd {
            return WallClock.instant(on: date, hour: hour, minute: minute, second: Double(second) + fraction,
                                     in: defaultTimeZone)
        }
        var offset = 0
        if !(scanner.skip("Z") || scanner.skip("z")) {
            let sign = scanner.skip("+") ? 1 : scanner.skip("-") ? -1 : 0
            guard sign != 0, let hours = scanner.digits(2), hours <= 23 else { return nil }
            var minutes = 0
            if !scanner.atEnd {
                _ = scanner.skip(":")
                guard let value = scanner.digits(2), value <= 59 else { return nil }
                minutes = value
            }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard scanner.atEnd else { return nil }
        return Date(timeIntervalSince1970: asIfUTC - Double(offset))
    }

    private static func wallClock(_ date: Date, offset: Int) -> String {
        let local = Int((date.timeIntervalSince1970 + Double(offset)).rounded(.down))
        let days = Int((Double(local) / 86_400).rounded(.down))
        let seconds = local - days * 86_400
        let civil = CivilDate(daysSinceEpoch: days)
        return "\(civil.year.zeroPadded(4))-\(civil.month.zeroPadded())-\(civil.day.zeroPadded())T"
            + "\((seconds / 3600).zeroPadded()):\((seconds / 60 % 60).zeroPadded()):\((seconds % 60).zeroPadded())"
    }

}

/// Reads ASCII digits and separators from UTF-8 bytes.
private struct ByteScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    var atEnd: Bool { index == bytes.count }

    /// Consumes `character` if it is next.
    mutating func skip(_ character: Character) -> Bool {
        guard index < bytes.count, let ascii = character.asciiValue, bytes[index] == ascii else { return false }
        index += 1
        return true
    }

    /// Exactly `count` digits as a number; consumes nothing when they are not there.
    mutating func digits(_ count: Int) -> Int? {
        guard index + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[index..<(index + count)] {
            guard (48...57).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        // A one-digit field must not be followed by another digit.
        if index + count < bytes.count, (48...57).contains(bytes[index + count]) { return nil }
        index += count
        return value
    }

    /// One to `max` digits, with how many there were.
    mutating func digitRun(max: Int) -> (value: Int, count: Int)? {
        var value = 0, count = 0
        while index < bytes.count, count < max, (48...57).contains(bytes[index]) {
            value = value * 10 + Int(bytes[index] - 48)
            index += 1
            count += 1
        }
        return count > 0 ? (value, count) : nil
    }
}
