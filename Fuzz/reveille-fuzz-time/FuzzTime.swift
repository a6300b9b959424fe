import FoundationEssentials
import ReveilleCore
import ReveilleFuzzSupport
import ReveilleRules
import ReveilleTimeZone

/// What a person types for a time (`InputParser`: a time of day, a length, weekdays, a
/// schedule, an instant, a `run:` command line, ISO 8601): parsed or refused with an
/// `InputError`, never a trap. The first byte chooses the parser, the rest is the text; times
/// are read in Europe/Berlin, whose overlaps and gaps the schedule math must handle.
@main enum FuzzTime {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let zone = GLibTimeZone(identifier: "Europe/Berlin")!

    /// Runs one parser: what it throws must be an `InputError`.
    static func parse<Value>(_ body: () throws -> Value) -> Value? {
        do { return try body() } catch {
            precondition(error is InputError, "the parser threw \(error), not an InputError")
            return nil
        }
    }

    static func main() {
        FuzzTarget.main { bytes in
            guard let first = bytes.first else { return }
            let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
            switch first % 7 {
            case 0: _ = parse { try InputParser.timeOfDay(text) }
            case 1:
                if let seconds = parse({ try InputParser.duration(text) }) {
                    precondition(seconds.isFinite && seconds > 0 && seconds <= 36_600 * 86_400, "\(text) -> \(seconds)")
                }
            case 2: _ = parse { try InputParser.weekdays(text) }
            case 3: _ = parse { try InputParser.schedule(text, days: text, now: now, timeZone: zone) }
                    _ = parse { try InputParser.schedule(text, now: now, timeZone: zone) }
            case 4: _ = parse { try InputParser.instant(text, now: now, timeZone: zone) }
            case 5: _ = ISO8601Local.parse(text, defaultTimeZone: zone)
            default: _ = parse { try InputParser.arguments(text) }
            }
        }
    }
}
