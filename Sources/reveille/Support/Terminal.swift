import FoundationEssentials
import Glibc
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
        write("\u{1B}[?25l")
    }

    /// Puts the terminal back as it was.
    func restore() {
        guard raw else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &original)
        raw = false
        write("\u{1B}[?25h\n")
    }

    /// Replaces the screen's content with `lines`.
    func draw(_ lines: [String]) {
        write("\u{1B}[H\u{1B}[2J" + lines.joined(separator: "\r\n") + "\r\n")
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

    private func write(_ text: String) {
        Output.write(text)
    }
}
