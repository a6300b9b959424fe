import FoundationEssentials
import Glibc
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleRules
import ReveilleSystem
import Synchronization
import SystemPackage

/// The terminal for `reveille watch`: raw key input and whole-screen redraws, restored on exit.
/// The live view and the signal handlers (on the GLib loop) both restore it: what it keeps
/// is behind a lock.
final class Terminal: Sendable {
    /// The settings to put back, while they are changed.
    private let original = Mutex<TerminalSettings?>(nil)
    private static let input = FileDescriptor.standardInput
    private static let output = FileDescriptor.standardOutput

    /// Whether both ends are a terminal (otherwise watch prints plain lines).
    static var isInteractive: Bool { input.isTerminal && output.isTerminal }

    /// Asks `question` on the terminal; yes only for an answer starting with y.
    static func confirm(_ question: String) -> Bool {
        Output.write(question + " [y/N] ")
        guard let answer = readLine(strippingNewline: true) else { return false }
        return answer.trimmed().lowercased().hasPrefix("y")
    }

    /// Switches off line buffering and echo and hides the cursor.
    func enterRawMode() {
        guard let settings = try? Self.input.terminalSettings(), (try? Self.input.setTerminalSettings(settings.keyByKey)) != nil else {
            return
        }
        original.withLock { $0 = settings }
        Output.write([.control(.hideCursor)])
    }

    /// Puts the terminal back as it was.
    func restore() {
        guard let settings = original.withLock({ saved in defer { saved = nil }; return saved }) else { return }
        try? Self.input.setTerminalSettings(settings)
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
        Self.output.terminalColumns ?? 80
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
                    guard let count = Self.input.readSome(into: &buffer), count > 0 else { break }
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
