import FoundationEssentials
import ReveilleModel

/// What became of each occurrence that ended: it rang and was answered (how, by whom), rang
/// unanswered to its ring limit, or was never rung (due while nothing could ring it). Oldest
/// first, bounded (`maximumEntries`, `maximumBytes`): the newest are kept.
///
/// Pure: the agent's `HistoryFile` reads and appends the lines; this value decides what is
/// kept (Core's extension: what a line holds and which lines are read).
package struct AlarmHistory: Sendable, Equatable {
    /// How an occurrence ended.
    package enum Outcome: String, Codable, Sendable, CaseIterable {
        /// Stop (the button, `reveille stop`, an app's `stop`).
        case stopped
        /// Snoozed or repeated: the secondary button with a countdown, `reveille snooze`, `countdown`.
        case snoozed
        /// Cancelled (removed) while it rang.
        case cancelled
        /// Given a new configuration (`Update`, `reveille edit`) while it rang.
        case changed
        /// Never rang: due longer ago than the late window (the machine was off or asleep).
        case missedLate
        /// Rang to its ring limit and nobody answered.
        case missedUnanswered
        /// Rang to its ring limit unanswered, and rings again after a rest (`repeatUnanswered`).
        case unansweredRingsAgain
        /// Skipped before it rang (`reveille skip`, the upcoming-alarm notice's Skip): it never rang.
        case skipped

        /// Whether the occurrence was missed rather than answered.
        package var isMissed: Bool { self == .missedLate || self == .missedUnanswered }
    }

    /// One ended occurrence.
    package struct Entry: Codable, Sendable, Hashable {
        package var alarmID: UUID
        package var title: String
        package var appID: String
        /// When it was due: its scheduled instant, or the end of its countdown.
        package var due: Date
        /// When it began to ring; absent when it never rang (`missedLate`).
        package var rang: Date?
        /// How long it rang, in seconds (0 when it never rang).
        package var seconds: Double
        /// When it ended.
        package var ended: Date
        package var outcome: Outcome
        /// Who ended it: an app's id, or `reveille` for the user's tools and the notification's
        /// buttons (as `app` names the user's own alarms); absent when the agent did (the ring
        /// limit, the late window).
        package var by: String?

        package init(alarmID: UUID, title: String, appID: String, due: Date, rang: Date?, seconds: Double,
                     ended: Date, outcome: Outcome, by: String?) {
            self.alarmID = alarmID
            self.title = title
            self.appID = appID
            self.due = due
            self.rang = rang
            self.seconds = seconds
            self.ended = ended
            self.outcome = outcome
            self.by = by
        }

        /// The occurrence `record` was ringing, ended at `now` with `outcome`.
        package init(ringing record: AlarmRecord, endedAt now: Date, outcome: Outcome, by: String?) {
            let since = record.alertingSince ?? now
            // The engine sets `lastOccurrence` to the instant that came due as the alarm begins
            // to ring (its schedule's, or its countdown's end).
            let due = record.lastOccurrence.flatMap { $0 <= since ? $0 : nil } ?? since
            self.init(alarmID: record.id, title: record.title, appID: record.appID, due: due, rang: since,
                      seconds: max(0, now.timeIntervalSince(since)), ended: now, outcome: outcome, by: by)
        }

        /// The occurrence of `record` due at `due`, skipped at `now` by `by` before it rang.
        package init(skipped record: AlarmRecord, due: Date, at now: Date, by: String) {
            self.init(alarmID: record.id, title: record.title, appID: record.appID, due: due, rang: nil,
                      seconds: 0, ended: now, outcome: .skipped, by: by)
        }

        /// The occurrence of `record` due at `due` that never rang.
        package init(missed record: AlarmRecord, due: Date, at now: Date) {
            self.init(alarmID: record.id, title: record.title, appID: record.appID, due: due, rang: nil,
                      seconds: 0, ended: now, outcome: .missedLate, by: nil)
        }

        private enum CodingKeys: String, CodingKey {
            case alarmID = "alarm", title, appID = "app", due, rang, seconds, ended, outcome, by
        }

        /// The alarm's id in lower case, as the CLI shows ids.
        package func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(alarmID.uuidString.lowercased(), forKey: .alarmID)
            try container.encode(title, forKey: .title)
            try container.encode(appID, forKey: .appID)
            try container.encode(due, forKey: .due)
            try container.encodeIfPresent(rang, forKey: .rang)
            try container.encode(seconds, forKey: .seconds)
            try container.encode(ended, forKey: .ended)
            try container.encode(outcome, forKey: .outcome)
            try container.encodeIfPresent(by, forKey: .by)
        }
    }

    /// The most entries kept.
    package static let maximumEntries = 1000
    /// The most bytes of lines kept (the file holds at most this plus one line).
    package static let maximumBytes = 1 << 20
    /// One line: far above what an entry within the wire's limits takes (a title is at most
    /// 2,000 bytes, 12,000 escaped); a longer line is skipped unread.
    package static let maximumLineBytes = 16 << 10
    /// Past a bound, only the newest entries within this share of each bound are kept, so the
    /// file is rewritten once per tenth of the bound, not on every append.
    static let keptShareAfterTrim = 0.9

    /// Oldest first.
    package private(set) var entries: [Entry] = []
    /// The bytes of their lines, newlines included.
    private var lineBytes: [Int] = []
    package private(set) var bytes = 0

    package init() {}

    /// Adds `entry`, whose line (newline included) takes `lineBytes`; returns whether the
    /// history is now past a bound (then `trim` it and rewrite the file).
    package mutating func append(_ entry: Entry, lineBytes: Int) -> Bool {
        entries.append(entry)
        self.lineBytes.append(lineBytes)
        bytes += lineBytes
        return isPastBounds
    }

    package var isPastBounds: Bool { entries.count > Self.maximumEntries || bytes > Self.maximumBytes }

    /// Keeps the newest entries within `keptShareAfterTrim` of each bound.
    package mutating func trim() {
        let keepEntries = Int(Double(Self.maximumEntries) * Self.keptShareAfterTrim)
        let keepBytes = Int(Double(Self.maximumBytes) * Self.keptShareAfterTrim)
        var kept = 0, keptBytes = 0
        for size in lineBytes.reversed() {
            guard kept < keepEntries, keptBytes + size <= keepBytes else { break }
            kept += 1
            keptBytes += size
        }
        entries.removeFirst(entries.count - kept)
        lineBytes.removeFirst(lineBytes.count - kept)
        bytes = keptBytes
    }

    /// Of `entries`, those due at or after `since` and, with `missedOnly`, missed.
    package static func filter(_ entries: [Entry], since: Date?, missedOnly: Bool) -> [Entry] {
        entries.filter { entry in
            (since.map { entry.due >= $0 } ?? true) && (!missedOnly || entry.outcome.isMissed)
        }
    }
}

extension AlarmAction {
    /// How an action ends a ringing occurrence; `nil` for those that cannot be taken then.
    package var historyOutcome: AlarmHistory.Outcome? {
        switch self {
        case .stop: .stopped
        case .countdown: .snoozed
        case .cancel: .cancelled
        case .pause, .resume: nil
        }
    }
}
