import Dispatch
import Foundation
import Glibc
import ReveilleTestSupport

/// Every process the demo started, or had started for it, known by PID, so that every way out
/// (the end, an error, Ctrl-C, the deadline) stops them all and can say so.
final class StartedProcesses: @unchecked Sendable {
    struct Entry: Equatable {
        var name: String
        var pid: pid_t
    }

    private let lock = NSLock()
    private var entries: [Entry] = []
    private var folder: String?

    /// The private session's folder, removed by every way out.
    var sessionFolder: String? {
        get { lock.withLock { folder } }
        set { lock.withLock { folder = newValue } }
    }

    var all: [Entry] { lock.withLock { entries } }

    /// Notes `pid` as `name`, once.
    func add(_ name: String, _ pid: pid_t) {
        lock.withLock {
            if !entries.contains(where: { $0.pid == pid }) { entries.append(Entry(name: name, pid: pid)) }
        }
    }

    /// Notes the demo's own children (Xvfb, PulseAudio, the recorders: what the session and the
    /// recorders started), named by their command.
    func addChildren() {
        for pid in Self.children(of: getpid()) { add(Self.command(of: pid) ?? "?", pid) }
    }

    /// Those that still run.
    var running: [Entry] { all.filter { Self.isRunning($0.pid) } }

    /// SIGTERM to each, the last started first, then SIGKILL to any still there after a second.
    func stopAll() {
        addChildren()
        for entry in all.reversed() { Subprocess.Child(pid: entry.pid).terminate() }
    }

    /// Stops everything started, removes the session's folder, and ends the demo with `status`.
    func abandon(_ why: String, status: Int32) -> Never {
        try? FileHandle.standardError.write(contentsOf: Data("reveille-demo: \(why); stopping what it started\n".utf8))
        stopAll()
        if let folder = sessionFolder { try? FileManager.default.removeItem(atPath: folder) }
        exit(status)
    }

    /// Ctrl-C reaches the demo's own children from the terminal, but not the bus, dunst or the
    /// agent (each in a session of its own): on SIGINT, SIGTERM or SIGHUP, and after `deadline`
    /// seconds, the demo stops them. Keep the sources while the demo runs. SIGPIPE is ignored:
    /// when whoever read its output goes away (`make run | head`), the demo runs on to its end
    /// and stops what it started there.
    func abandonOnSignalsAndAfter(_ deadline: TimeInterval) -> [DispatchSourceSignal] {
        DispatchQueue.global().asyncAfter(deadline: .now() + deadline) { [self] in
            abandon("the demo did not finish within \(Int(deadline)) s", status: 1)
        }
        signal(SIGPIPE, SIG_IGN)
        return [SIGINT, SIGTERM, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in abandon("interrupted (signal \(number))", status: 128 + number) }
            source.resume()
            return source
        }
    }

    /// Whether `pid` runs (a process that exited but is not reaped yet does not).
    static func isRunning(_ pid: pid_t) -> Bool {
        guard kill(pid, 0) == 0, let state = stat(of: pid)?.state else { return false }
        return state != "Z" && state != "X"
    }

    /// The fields of /proc/PID/stat that matter here: the state letter and the parent.
    private static func stat(of pid: pid_t) -> (state: Character, parent: pid_t)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        // After the command in parentheses (which may hold spaces): state, then the parent's PID.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 1, let state = fields[0].first, let parent = pid_t(fields[1]) else { return nil }
        return (state, parent)
    }

    /// The program and its arguments, as /proc says.
    static func commandLine(of pid: pid_t) -> String {
        fields(of: "/proc/\(pid)/cmdline").joined(separator: " ")
    }

    /// The KEY=VALUE entries of its environment.
    static func environment(of pid: pid_t) -> [String] { fields(of: "/proc/\(pid)/environ") }

    private static func fields(of file: String) -> [String] {
        (FileManager.default.contents(atPath: file) ?? Data()).split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }

    static func command(of pid: pid_t) -> String? {
        (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func children(of parent: pid_t) -> [pid_t] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { pid_t($0) }.filter { stat(of: $0)?.parent == parent && isRunning($0) }.sorted()
    }
}
