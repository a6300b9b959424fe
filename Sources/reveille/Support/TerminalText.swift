/// Text made safe for a terminal: what apps, files and the agent supply (titles, button texts,
/// app ids, usage descriptions, sound names and paths, error messages quoting them) cannot move
/// the cursor, clear the screen, set the clipboard (OSC 52), retitle the window or reorder what
/// is shown. Every character a terminal would act on or hide is shown as a visible escape.
///
/// `Output` passes everything it prints through `escaped`, so no text reaches the terminal
/// another way; the CLI's own control sequences go out as `TerminalControl` values only.
enum TerminalText {
    /// `text` with every character `isHidden` names shown as an escape: `\n`, `\t`, `\r`, or
    /// `\u{1B}`, `\u{07}`. Escaping twice changes nothing (an escape is printable ASCII).
    static func escaped(_ text: String) -> String {
        // The common case: printable ASCII, as it came.
        guard text.utf8.contains(where: { $0 < 0x20 || $0 >= 0x7F }) else { return text }
        var shown = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isHidden(scalar) else {
                shown.append(scalar)
                continue
            }
            let hex = String(scalar.value, radix: 16, uppercase: true)
            let escape = switch scalar {
            case "\n": #"\n"#
            case "\t": #"\t"#
            case "\r": #"\r"#
            // At least two digits, as Swift's debugDescription (which quotes titles) writes them.
            default: #"\u{"# + (hex.count < 2 ? "0" + hex : hex) + "}"
            }
            shown.append(contentsOf: escape.unicodeScalars)
        }
        return String(shown)
    }

    /// Whether a terminal would act on `scalar` or show nothing for it:
    /// - controls (C0 with tab and newline, DEL, C1 such as 0x9B, a one-byte CSI): they start
    ///   escape sequences or move the cursor;
    /// - line and paragraph separators (U+2028, U+2029): some terminals break the line;
    /// - format characters: the bidi embeddings, overrides and isolates (U+202A–U+202E,
    ///   U+2066–U+2069) and marks (U+200E, U+200F, U+061C) reorder what follows ("Trojan
    ///   Source"); zero-width spaces, word joiners, the BOM, the soft hyphen and the tag
    ///   characters (U+E0000 block, invisible text) hide characters, so that two different
    ///   app ids look alike. Kept: the zero-width joiner and non-joiner (U+200D, U+200C),
    ///   which emoji and several scripts need.
    static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: true
        case .format: scalar != "\u{200C}" && scalar != "\u{200D}"
        default: false
        }
    }
}

/// The control sequences the CLI itself sends (the `watch` screen): the only bytes that reach
/// the terminal unescaped.
enum TerminalControl: String {
    /// Cursor to the top left.
    case home = "\u{1B}[H"
    /// Clears from the cursor to the end of the line.
    case clearToEndOfLine = "\u{1B}[K"
    /// Clears from the cursor to the end of the screen.
    case clearToEndOfScreen = "\u{1B}[J"
    case hideCursor = "\u{1B}[?25l"
    case showCursor = "\u{1B}[?25h"
    /// A new line in raw mode.
    case newline = "\r\n"
}

/// A piece of what `watch` draws: text (escaped when written) or one of the CLI's own controls.
enum TerminalPiece {
    case text(String)
    case control(TerminalControl)
}
