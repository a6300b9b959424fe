import FoundationEssentials
import ReveilleCore
import ReveilleFuzzSupport

/// What a person types for a time (`InputParser`: a time of day, a length, weekdays, a
/// schedule, an instant, a `run:` command line): parsed or refused, never a trap. The first
/// byte chooses the parser, the rest is the text.
@main enum FuzzTime {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func main() {
        FuzzTarget.main { bytes in
            guard let first = bytes.first else { return }
            let text = String(decoding: bytes.dropFirst(), as: UTF8.self)
            let zone = UTCTimeZone()
            switch first % 6 {
            case 0: _ = try? InputParser.timeOfDay(text)
            case 1:
                if let seconds = try? InputParser.duration(text) { precondition(seconds.isFinite && seconds >= 0, "\(text) -> \(seconds)") }
            case 2: _ = try? InputParser.weekdays(text)
            case 3:
                let parts = text.split(separator: "|", maxSplits: 1).map(String.init)
                _ = try? InputParser.schedule(parts.first ?? "", days: parts.count > 1 ? parts[1] : nil, now: now, timeZone: zone)
            case 4: _ = try? InputParser.instant(text, now: now, timeZone: zone)
            default: _ = try? InputParser.arguments(text)
            }
        }
    }
}
