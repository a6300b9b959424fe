import Foundation
import ReveilleAgentTesting
@testable import ReveilleCore
@testable import ReveilleRules
import Testing

/// The parser's entry points (what the CLI and the fuzz target call) answer any text with a
/// value or an `InputError`: no trap on digits of other scripts, huge numbers, empty or long text.
@Suite("Input parsing: any text")
struct InputParserRobustnessTests {
    static let hostile: [String] = [
        "", " ", "\u{0}", "\u{1B}[2J", "99:99", "at 99:99", "24:60", "99999999999999999999h", "99999999999999999999:00",
        "in 99999999999999999999h", "+99999999999999999999d", "in " + String(repeating: "9", count: 400) + "d",
        String(repeating: "9", count: 400) + "s", "1.5e400h", "in 36601d", "36601d",
        // Digits of other scripts: \d in a Regex takes them, Int() does not.
        "٠٧٣٠", "٠٧:٣٠", "１２:３０", "0٧30", "1٢:30", "٣:00", "1:٣٠", "1:30:٠٠", "٣m", "in ٣m",
        "19:٣٠:١٥", "tomorrow 19:٣٠:١٥", "٢٠٢٦-١٢-٢٤ 18:00", "٢٠٢٦-1-1 9:00", "١٢/٢٤ 18:00", "12/٢٤", "٢٤.١٢.", "24.12.٢٠٢٦",
        "dec ٢٤", "dec 24 ٢٠٢٦", "dec 9223372036854775807", "dec 24 99999999999999999", "24 dec 9223372036854775807", "dec 9223372036854775808", "mon-٣", "٣-mon", "𝟘𝟟:𝟛𝟘", "Ⅻ:00", "½h", "1:½0",
        String(repeating: "1h", count: 5_000), String(repeating: "é", count: 20_000), String(repeating: " ", count: 10_000),
        "\u{FEFF}7:30", "7:30\u{202E}", "\u{D7FF}", "next", "next next mon", "in", "+", "in -5m", "+-5m", "2026-13-45 25:61",
        "9999-12-31 23:59", "0000-01-01 00:00", "2026-12-24T18:00+99:99", "'", "\"", "\\",
    ]

    @Test func everyEntryPointAnswersHostileTextWithAValueOrAnInputError() {
        for text in Self.hostile { Self.parseEverything(text) }
    }

    /// Many texts built from the pieces the forms are made of, in a fixed pseudo-random order.
    @Test func manyGeneratedTextsNeverTrap() {
        let pieces = ["0", "7", "9", "12", "24", "99", "9999999999", "٣", "１", ":", ".", "/", "-", "+", " ", "in ", "next ",
                      "h", "m", "d", "s", "pm", "a.m.", "mon", "dec", "tomorrow", "T", "Z", "+01:00", ",", "'", "\"", "\\", "é", "\u{0}"]
        var generator = SplitMix(seed: 42)
        for _ in 0..<500 {
            let text = (0..<Int(generator.next() % 7)).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
            Self.parseEverything(text)
        }
    }

    @Test func hugeDurationsAreRefusedNamingTheLimit() {
        for text in ["99999999999999999999h", "36601d", "99999999999999999999:00"] {
            #expect {
                try InputParser.duration(text)
            } throws: { error in
                "\(error)".contains("'\(text)'") && "\(error)".contains("at most 36600 days")
            }
        }
        #expect(throws: InputError.self) { try InputParser.instant("in 99999999999999999999h", now: Date(), timeZone: UTCTimeZone()) }
        #expect(throws: InputError.self) { try InputParser.schedule("+99999999999999999999d", now: Date(), timeZone: UTCTimeZone()) }
    }

    @Test func digitsOfOtherScriptsAreRefusedAsUnreadable() {
        for text in ["٠٧:٣٠", "١٢/٢٤ 18:00", "٣m", "1:٣٠"] {
            #expect(throws: InputError.self, "\(text)") { try InputParser.schedule(text, now: Date(), timeZone: UTCTimeZone()) }
        }
    }

    /// Every entry point on `text`: only `InputError` may leave them.
    static func parseEverything(_ text: String) {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let berlin = zone("Europe/Berlin")
        func accepts(_ parse: () throws -> Void) {
            do { try parse() } catch is InputError {} catch { Issue.record("'\(text.prefix(80))' threw \(error)") }
        }
        accepts { _ = try InputParser.timeOfDay(text) }
        accepts { _ = try InputParser.duration(text) }
        accepts { _ = try InputParser.weekdays(text) }
        accepts { _ = try InputParser.instant(text, now: now, timeZone: berlin) }
        accepts { _ = try InputParser.schedule(text, now: now, timeZone: berlin) }
        accepts { _ = try InputParser.schedule(text, days: text, now: now, timeZone: berlin) }
        accepts { _ = try InputParser.arguments(text) }
        _ = ISO8601Local.parse(text, defaultTimeZone: berlin)
    }
}

/// A small deterministic generator (SplitMix64), so a failure names a reproducible text.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1330_11EB
        return z ^ (z >> 31)
    }
}
