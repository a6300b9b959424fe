import CLinux
import FoundationEssentials
import Glibc
import ReveilleBus
import ReveilleCore

/// The terminal for `reveille watch`: raw key input and whole-screen redraws, restored on exit.
final class Terminal: @unchecked Sendable {
    private var original = termios()
    private var raw = false

    /// Whether both ends are a terminal (otherwise watch prints plain lines).
    static var isInteractive: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 }

    /// Asks `question` on the terminal; yes only for an answer starting with y.
    static func confirm(_ question: String) -> Bool {
        Output.write(question + " [y/N] ")
        guard let answer = readLine(strippingNewline: true) else { return false }
        return answer.trimmed().lowercased().hasPrefix("y")
    }

    /// Switches off line buffering and echo (tcsetattr) and hides the cursor.
    func enterRawMode() {
        guard tcgetattr(STDIN_FILENO, &original) == 0 else { return }
        var settings = original
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &settings.c_cc) { bytes in
            bytes[Int(VMIN)] = 1
            bytes[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
        raw = true
        Output.write([.control(.hideCursor)])
    }

    /// Puts the terminal back as it was.
    func restore() {
        guard raw else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &original)
        raw = false
        Output.write([.control(.showCursor), .control(.newline)])
    }

    /// Restores the terminal and exits on SIGINT, SIGTERM and SIGHUP (with 128 + the signal,
    /// as a shell reports it); `onResize` hears SIGWINCH. Handled on the GLib loop, not in a
    /// signal handler, so restoring is safe.
    @GLibActor
    func handleSignals(onResize: @escaping @GLibActor () -> Void) {
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            MainLoopSources.onSignal(signal) { [self] in
                restore()
                exit(128 + signal)
            }
        }
        MainLoopSources.onSignal(SIGWINCH, handler: onResize)
    }

    /// The terminal's width in columns (80 when it cannot say).
    var columns: Int {
        let columns = Int(reveille_terminal_columns(STDOUT_FILENO))
        return columns > 0 ? columns : 80
    }

    /// Replaces the screen's content with `lines`, without clearing it first (no flicker):
    /// each line overwrites the old one and clears what is left of it, then the rest of the
    /// screen is cleared. Lines longer than the terminal are cut, as shown (escaped).
    func draw(_ lines: [String]) {
        let width = columns
        let fitted = lines.map(TerminalText.escaped).map { $0.count > width ? String($0.prefix(max(0, width - 1))) + "…" : $0 }
        var pieces: [TerminalPiece] = [.control(.home)]
        for (index, line) in fitted.enumerated() {
            if index > 0 { pieces.append(.control(.newline)) }
            pieces += [.text(line), .control(.clearToEndOfLine)]
        }
        Output.write(pieces + [.control(.newline), .control(.clearToEndOfScreen)])
    }

    /// Key presses as they come: arrows as "up"/"down", others as their character.
    func keys() -> AsyncStream<String> {
        AsyncStream { continuation in
            _ = PosixThread {
                var buffer = [UInt8](repeating: 0, count: 8)
                while true {
                    let count = read(STDIN_FILENO, &buffer, buffer.count)
                    guard count > 0 else { break }
                    let bytes = Array(buffer.prefix(count))
                    switch bytes {
                    case [0x1B, 0x5B, 0x41]: continuation.yield("up")
                    case [0x1B, 0x5B, 0x42]: continuation.yield("down")
                    default: for byte in bytes { continuation.yield(String(UnicodeScalar(byte))) }
                    }
                }
                continuation.finish()
            }
        }
    }
}
