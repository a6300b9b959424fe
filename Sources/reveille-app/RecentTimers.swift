import FoundationEssentials
import ReveilleCore
import ReveilleKit
import SystemPackage

/// The lengths of the timers the person started last (in the app, the CLI, anywhere), newest
/// first, each once, beside the fixed presets: one click starts such a timer again. The agent's
/// history keeps no timer's length, so the app keeps them in a small file of its own.
struct RecentTimers: Equatable {
    /// The fixed presets, in minutes: a recent length equal to one is not repeated.
    static let presetMinutes = [1, 3, 5, 10, 15, 30]
    /// How many recent lengths are offered.
    static let kept = 4
    /// The file is this small; a longer one is not the app's and is not read.
    static let maximumFileBytes = 1024

    /// Newest first, distinct, none a preset, each a length a timer may have.
    private(set) var lengths: [TimeInterval] = []
    /// The timers already counted, so that a timer seen again (each update lists it) is not.
    private var seen: Set<UUID> = []
    /// Whether the first list has come: the timers running then were started before.
    private var following = false

    /// `lengths`, newest first, judged as `remember` judges each.
    init(lengths: [TimeInterval] = []) {
        for length in lengths.reversed() { remember(length) }
    }

    /// Takes the person's timers in `records` that are new since the last list; returns whether
    /// the lengths changed. The first list is only looked at: what ran then was started before.
    mutating func follow(_ records: [AlarmRecord]) -> Bool {
        let timers = records.filter { $0.appID == ClientIdentity.userAppID && $0.schedule == nil }
        let before = lengths
        for timer in timers where following && !seen.contains(timer.id) {
            if case .countdown(_, let length, _) = timer.phase { remember(length) }
        }
        seen = Set(timers.map(\.id))
        following = true
        return lengths != before
    }

    /// `length` as the newest; a preset or a length no timer may have is not kept.
    mutating func remember(_ length: TimeInterval) {
        guard length.isFinite, length >= 1, length <= DurationRange.countdown.longest,
              !Self.presetMinutes.contains(where: { TimeInterval($0 * 60) == length }) else { return }
        lengths.removeAll { $0 == length }
        lengths.insert(length, at: 0)
        lengths = Array(lengths.prefix(Self.kept))
    }

    // MARK: The file

    /// `$XDG_STATE_HOME/reveille/app-recent-timers.json`: the app's own; the agent never reads it.
    static func path(_ paths: ReveillePaths = ReveillePaths()) -> FilePath {
        paths.stateDirectory.appending("app-recent-timers.json")
    }

    /// The lengths in `path`, judged as any outside data: a missing, oversized or unreadable
    /// file is none, and a length no timer may have is dropped.
    static func read(_ path: FilePath) -> RecentTimers {
        // Read a byte past the bound, to know a longer file as one.
        var bytes = [UInt8](repeating: 0, count: maximumFileBytes + 1)
        guard let file = try? FileDescriptor.open(path, .readOnly, options: [.noFollow, .closeOnExec]) else { return RecentTimers() }
        defer { try? file.close() }
        guard let count = try? bytes.withUnsafeMutableBytes({ try file.read(into: $0) }), count <= maximumFileBytes,
              let lengths = try? JSONDecoder().decode([TimeInterval].self, from: Data(bytes.prefix(count))) else { return RecentTimers() }
        return RecentTimers(lengths: lengths)
    }

    /// Writes the lengths to `path` (mode 0600, in a private folder), replacing what was there.
    func write(_ path: FilePath) throws {
        try AtomicFile.makePrivateDirectory(path.removingLastComponent())
        try AtomicFile.write(try JSONEncoder().encode(lengths), to: path)
    }
}
