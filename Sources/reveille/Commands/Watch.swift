import ArgumentParser
import Foundation
import ReveilleKit

/// `reveille watch`: a line per change, until interrupted.
struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a line (or JSON object) for every change to an alarm, until interrupted.")

    @OptionGroup var output: OutputOptions

    /// One change: `added`, `changed` or `ended`, and the alarm.
    struct Change: Codable {
        var change: String
        var alarm: AlarmSummary
    }

    func run() async throws {
        // Fail fast (and start the agent) before waiting on the stream.
        _ = try await AgentConnection.perform { client throws(AlarmError) in try await client.list() }
        var previous: [String: AlarmSummary]?
        for await records in AgentClient(appID: AgentConnection.appID).updates() {
            let current = Dictionary(records.map { AlarmSummary($0) }.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            var changes: [Change] = []
            for (id, summary) in current.sorted(by: { $0.key < $1.key }) {
                guard let old = previous?[id] else {
                    changes.append(Change(change: previous == nil ? "present" : "added", alarm: summary))
                    continue
                }
                if old.state != summary.state || old.fireDate != summary.fireDate {
                    changes.append(Change(change: "changed", alarm: summary))
                }
            }
            for (id, summary) in (previous ?? [:]).sorted(by: { $0.key < $1.key }) where current[id] == nil {
                changes.append(Change(change: "ended", alarm: summary))
            }
            previous = current
            for change in changes {
                if output.json {
                    try Output.json(change)
                } else {
                    let state = change.change == "ended" ? "ended" : change.alarm.state
                    Output.line("\(ISO8601Local.string(from: Date(), in: .current).prefix(19))  \(change.alarm.shortID)  "
                                + "\(state.padding(toLength: 9, withPad: " ", startingAt: 0))  \(change.alarm.title)")
                }
            }
        }
        throw AlarmError.agentUnavailable("lost the session bus")
    }
}
