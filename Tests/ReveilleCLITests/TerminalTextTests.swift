import Foundation
@testable import reveille
import Testing

/// What the CLI prints of text from outside: every character a terminal acts on or hides is
/// shown as an escape; letters, emoji and scripts pass as they are.
@Suite("Terminal-safe text")
struct TerminalTextTests {
    static let c0 = (0x00...0x1F).map { Unicode.Scalar(UInt8($0)) }
    static let c1 = (0x80...0x9F).map { Unicode.Scalar(UInt8($0)) }
    static let bidi: [Unicode.Scalar] = ["\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}",
                                         "\u{2066}", "\u{2067}", "\u{2068}", "\u{2069}", "\u{200E}", "\u{200F}", "\u{061C}"]
    static let invisible: [Unicode.Scalar] = ["\u{200B}", "\u{2060}", "\u{FEFF}", "\u{00AD}", "\u{2028}", "\u{2029}",
                                              "\u{E0041}", "\u{E007F}", "\u{FFF9}", "\u{180E}", "\u{206A}"]

    @Test(arguments: [("C0", c0), ("DEL", ["\u{7F}"]), ("C1", c1), ("bidi", bidi), ("invisible", invisible)])
    func everyHiddenCharacterIsShownAsAnEscape(_ kind: String, _ scalars: [Unicode.Scalar]) {
        for scalar in scalars {
            let shown = TerminalText.escaped("a" + String(Character(scalar)) + "b")
            #expect(!shown.unicodeScalars.contains(scalar), "\(kind) U+\(String(scalar.value, radix: 16)): \(shown.debugDescription)")
            #expect(shown.unicodeScalars.allSatisfy { !TerminalText.isHidden($0) })
            #expect(shown.hasPrefix("a\\") && shown.hasSuffix("b"), "\(shown)")
        }
    }

    @Test func escapesNameTheCharacter() {
        #expect(TerminalText.escaped("\u{1B}]52;c;aGk=\u{07}") == #"\u{1B}]52;c;aGk=\u{07}"#)
        #expect(TerminalText.escaped("\u{1B}[2J\u{9B}31m") == #"\u{1B}[2J\u{9B}31m"#)
        #expect(TerminalText.escaped("Wake\nup\tnow\r") == #"Wake\nup\tnow\r"#)
        #expect(TerminalText.escaped("abc\u{202E}fdp.exe") == #"abc\u{202E}fdp.exe"#)
    }

    @Test func lettersEmojiAndScriptsPassAsTheyAre() {
        for text in ["Grüße", "日本語のアラーム", "e\u{301}", "👩‍💻 deploy", "🇩🇪", "می‌خواهم", "मनुष्य", "Zoë's tea ☕️", "", "plain ASCII ~!@#$%^&*()"] {
            #expect(TerminalText.escaped(text) == text, "\(text.debugDescription)")
        }
    }

    @Test func escapingTwiceChangesNothing() {
        let once = TerminalText.escaped("\u{1B}]52;c;x\u{07}\u{202E}\n")
        #expect(TerminalText.escaped(once) == once)
    }

    @Test func tablesMeasureCellsAsTheyAreShown() {
        let lines = Table.lines(header: ["ID", "TITLE"], rows: [["a\u{1B}[2Jb", "x"], ["c", "y"]])
        // The escaped cell is 11 characters wide: the others are padded to it.
        let gap = { (used: Int) in String(repeating: " ", count: 11 - used + 2) }
        #expect(lines == ["ID" + gap(2) + "TITLE", #"a\u{1B}[2Jb"# + gap(11) + "x", "c" + gap(1) + "y"])
    }
}

/// Lengths the agent sends (a hand-edited store may hold anything) are shown, never trapped on.
@Suite("Lengths from the agent")
struct LengthTextTests {
    @Test func anyNumberIsShown() {
        #expect(AlarmSummary.length(90) == "1m 30s")
        for seconds in [Double.nan, .infinity, -.infinity, 1e300, -1e300] {
            #expect(!AlarmSummary.length(seconds).isEmpty)
        }
    }
}
