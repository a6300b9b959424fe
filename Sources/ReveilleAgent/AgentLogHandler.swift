import FoundationEssentials
import Logging
import ReveilleRules
import ReveilleSystem
import Synchronization
import SystemPackage

/// The agent's log lines on stderr, one line per entry whatever its message holds: messages carry
/// what clients sent (a button's name, an id, a title), and a newline or a terminal's escape in
/// them would forge a line of the agent's own or rewrite the terminal, so every control character
/// is written escaped. Under a service manager whose stderr is systemd's journal (`JOURNAL_STREAM`
/// is set), each line starts with its syslog priority (`<3>` error ... `<7>` debug), which
/// journald reads as the entry's priority; elsewhere with the time, the level and the label.
package struct AgentLogHandler: LogHandler {
    package var logLevel: Logger.Level
    package var metadata: Logger.Metadata = [:]
    private let label: String
    private let journal: Bool

    package init(label: String, level: Logger.Level, journal: Bool) {
        (self.label, logLevel, self.journal) = (label, level, journal)
    }

    /// Whether stderr goes to the journal (systemd sets `JOURNAL_STREAM` for such services).
    package static func isJournalStream(_ environment: [String: String]) -> Bool {
        !(environment["JOURNAL_STREAM"] ?? "").isEmpty
    }

    /// The syslog priority journald reads from a `<N>` prefix.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// The line written for one entry, its newline included.
    package static func line(_ message: String, level: Logger.Level, label: String, journal: Bool, at time: Date) -> String {
        // The journal stamps each entry with its time and the unit; a level word would repeat the priority.
        journal ? "<\(priority(level))>\(escaped(message))\n"
            : "\(ISO8601Local.utcString(from: time)) \(level) \(label): \(escaped(message))\n"
    }

    /// `text` with its control characters (C0, DEL, C1, the line and paragraph separators) written
    /// as escapes: `\n`, `\r`, `\t`, else `\u{…}`.
    package static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where isControl(scalar): result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String,
                    file: String, function: String, line: UInt) {
        let now = Date()
        // The whole log's budget, whoever makes the agent speak: a client that makes it log (a
        // screen saver's name toggled: 207 MB in 20 s) fills at most this much of the journal,
        // and the loop does not spend itself writing.
        let admitted = Self.budget.withLock { $0.admit(at: SystemClock.bootTime) }
        guard admitted.write else { return }
        if admitted.heldBack > 0 {
            let said = Self.line("\(admitted.heldBack) log line(s) left out: more than \(Int(Self.burst)) at once, then \(Int(Self.perSecond)) a second",
                                 level: .warning, label: label, journal: journal, at: now)
            _ = try? FileDescriptor.standardError.writeAll(said.utf8)
        }
        var text = "\(message)"
        if text.utf8.count > Self.maximumMessageBytes {
            text = String(decoding: text.utf8.prefix(Self.maximumMessageBytes), as: UTF8.self) + "… (cut at \(Self.maximumMessageBytes) bytes)"
        }
        _ = try? FileDescriptor.standardError.writeAll(Self.line(text, level: level, label: label, journal: journal, at: now).utf8)
    }

    /// The whole log: 200 lines at once, then 20 a second.
    static let burst = 200.0, perSecond = 20.0
    /// A message longer than this is cut (a title or an error quoting what a client sent).
    static let maximumMessageBytes = 4096

    /// One budget for the whole log, whichever thread writes (the loop, libnotify's thread).
    static let budget = Mutex(LogBudget(burst: burst, perSecond: perSecond))
}
