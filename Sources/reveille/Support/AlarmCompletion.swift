import ArgumentParser
import FoundationEssentials
import ReveilleCore
import ReveilleKit

/// Shell completions that ask the agent: alarm IDs (with their titles where the shell shows
/// descriptions) and sound names. They use the blocking calls, and offer nothing when no
/// agent answers: completing never starts one.
enum AlarmCompletion {
    static func ids(_ prefix: String) -> [String] {
        guard let records = try? AgentClient(appID: AgentConnection.appID).listIfRunning() else { return [] }
        return records.map { record in
            let id = String(record.id.uuidString.lowercased().prefix(8))
            return described(id, record.title)
        }.filter { $0.hasPrefix(prefix.lowercased()) }
    }

    static func sounds(_ prefix: String) -> [String] {
        guard let sounds = try? AgentClient(appID: AgentConnection.appID).soundsIfRunning() else { return [] }
        return (["default"] + sounds.map { TerminalText.escaped($0.name) }).filter { $0.hasPrefix(prefix) }
    }

    static let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun", "weekdays", "weekends", "daily"]

    /// `value` with its description where the shell shows one (fish: a tab; zsh: a colon),
    /// escaped as the CLI prints it (`TerminalText`): the shell shows it as it comes.
    private static func described(_ value: String, _ description: String) -> String {
        let short = String(TerminalText.escaped(description).prefix(40))
        switch CompletionShell.requesting {
        case .fish?: return "\(value)\t\(short)"
        case .zsh?: return "\(value):\(short.replacing(":", with: "\\:"))"
        default: return value
        }
    }
}
