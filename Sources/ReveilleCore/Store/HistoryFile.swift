import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import Logging
import ReveilleRules
import ReveilleSystem
import SystemPackage

/// `history.jsonl` in the state folder: the agent's `AlarmHistory`, one JSON line per ended
/// occurrence, mode 0600. An entry is one appended line and one `fdatasync`; past a bound the
/// file is rewritten atomically (`AtomicFile`) with the newest entries. A history that cannot be
/// written is kept in memory and said in the log: it never stops an alarm.
package final class HistoryFile {
    package let file: FilePath
    private let logger: Logger
    package private(set) var history = AlarmHistory()

    package init(directory: FilePath, logger: Logger) {
        file = directory.appending("history.jsonl")
        self.logger = logger
    }

    /// The largest file read: what the agent writes stays within `AlarmHistory.maximumBytes`
    /// and one line, so a larger one was not written by it (and would only delay the start).
    package static let maximumFileBytes = 2 * AlarmHistory.maximumBytes

    /// Reads the file (a damaged line costs only itself); rewrites it when it held damaged
    /// lines, a torn last line, or more than the bounds. A file that cannot be read at all
    /// (too large, not a regular file) is kept aside, never written over, and the history
    /// starts anew.
    package func load() {
        var reader = AlarmHistory.Reader()
        do {
            try StoredFile.stream(file, maximumBytes: Self.maximumFileBytes) { chunk in
                reader.feed(chunk)
                return true
            }
        } catch {
            do {
                let aside = try StoredFile.moveAside(file)
                logger.error("the history \(file) cannot be read (\(error)); it is kept as \(aside), and the history starts anew")
            } catch let asideError {
                logger.error("the history \(file) cannot be read (\(error)) nor kept aside (\(asideError)); new entries are kept in memory")
            }
        }
        let decoded = reader.finish()
        history = decoded.history
        if !decoded.damagedLines.isEmpty {
            let lines = decoded.damagedLines.prefix(5).map(String.init).joined(separator: ", ")
            logger.error("\(decoded.damagedLines.count) line(s) of the history \(file) could not be read and were skipped (line \(lines)\(decoded.damagedLines.count > 5 ? ", ..." : ""))")
        }
        if decoded.needsRewrite { rewrite() }
    }

    /// Appends `entry` and syncs it; past a bound, rewrites the file with the newest entries.
    package func append(_ entry: AlarmHistory.Entry) {
        let line: Data
        do { line = try AlarmHistory.line(entry) } catch {
            return logger.error("history entry for \(entry.alarmID) not kept: \(error)")
        }
        if history.append(entry, lineBytes: line.count) {
            history.trim()
            return rewrite()
        }
        do { try appendLine(line) } catch {
            logger.error("could not add to the history \(file): \(error); the entry is kept until the agent stops")
        }
    }

    private func appendLine(_ line: Data) throws {
        try AtomicFile.makePrivateDirectory(file.removingLastComponent())
        // Non-blocking: a FIFO put in its place must fail the append, not hang the agent.
        let descriptor = try FileDescriptor.open(file, .writeOnly, options: [.create, .append, .noFollow, .closeOnExec, .nonBlocking],
                                                 permissions: [.ownerRead, .ownerWrite])
        defer { try? descriptor.close() }
        let end = try descriptor.seek(offset: 0, from: .end)
        do {
            _ = try descriptor.writeAll(line)
            try descriptor.syncData()
        } catch {
            // A line cut short would glue the next one to it: take it back whole.
            try? descriptor.resize(to: end)
            throw error
        }
    }

    private func rewrite() {
        do {
            try AtomicFile.makePrivateDirectory(file.removingLastComponent())
            try AtomicFile.write(try history.encoded(), to: file)
        } catch is AtomicFile.RenamedButNotSynced {
            // In place; only a power cut now could lose it.
        } catch {
            logger.error("could not rewrite the history \(file): \(error); it is kept in memory until the agent stops")
        }
    }
}
