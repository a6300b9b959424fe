import FoundationEssentials

/// Where sync stands, as `SyncStatus` answers it (JSON on the wire): the account, whether the
/// last round worked and what failed, and how many alarms travel.
package struct SyncStatus: Codable, Hashable, Sendable {
    package var configured: Bool
    package var url: String?
    package var user: String?
    /// Rounds done since the agent started, and when the last one ended.
    package var rounds: Int
    package var lastRound: Date?
    /// What failed last (the server, the network, the Secret Service); `nil` when all worked.
    package var problem: String?
    package var alarms: Int
    /// Seconds between rounds.
    package var interval: Double
    /// Alarms removed here in the last day (`SyncPlan.removalsCounted`) because they were
    /// removed on the server or another machine.
    package var removalsInLastDay: Int?
    /// When a damaged sync state (`sync.json`) was last kept aside, and as what file.
    package var stateKeptAside: Date?
    package var stateKeptAsideAs: String?

    package init(configured: Bool, url: String? = nil, user: String? = nil, rounds: Int = 0, lastRound: Date? = nil,
                 problem: String? = nil, alarms: Int = 0, interval: Double = 30, removalsInLastDay: Int? = nil,
                 stateKeptAside: Date? = nil, stateKeptAsideAs: String? = nil) {
        (self.configured, self.url, self.user, self.rounds, self.lastRound) = (configured, url, user, rounds, lastRound)
        (self.problem, self.alarms, self.interval) = (problem, alarms, interval)
        (self.removalsInLastDay, self.stateKeptAside, self.stateKeptAsideAs) = (removalsInLastDay, stateKeptAside, stateKeptAsideAs)
    }
}
