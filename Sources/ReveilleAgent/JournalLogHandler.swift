import Logging
import SystemPackage

/// Log lines for systemd's journal: under a service manager whose stderr is the journal
/// (`JOURNAL_STREAM` is set), each line starts with its syslog priority (`<3>` error ...
/// `<7>` debug), which journald reads as the entry's priority instead of logging all alike.
package struct JournalLogHandler: LogHandler {
    package var logLevel: Logger.Level
    package var metadata: Logger.Metadata = [:]
    private let label: String

    package init(label: String, level: Logger.Level) {
        self.label = label
        logLevel = level
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

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String,
                    file: String, function: String, line: UInt) {
        // The journal stamps each entry with its time and the unit; a level word would repeat the priority.
        let text = "<\(Self.priority(level))>\(message)".replacing("\n", with: " ") + "\n"
        _ = try? FileDescriptor.standardError.writeAll(text.utf8)
    }
}
