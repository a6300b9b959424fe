import ArgumentParser
import FoundationEssentials
import ReveilleCore
import ReveilleKit
import ReveilleRules
import ReveilleWords

/// `reveille settings`: the agent's settings, shown, or changed through the agent.
struct Settings: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "settings",
        abstract: L("Show the agent's settings, or change some."),
        discussion: L("With no argument, every setting and its value. With key=value words (wakeLead=90, panelItem=off, ringOn=all), the agent changes those settings, writes them to settings.json in the config folder and applies them at once; nothing is changed unless every word is right. The settings: %@.",
                      AgentSettings.keys.map { "\($0.name) (\($0.accepted))" }.joined(separator: "; ")))

    @Argument(help: ArgumentHelp(L("Settings to change, as key=value.")))
    var changes: [String] = []

    @Flag(help: ArgumentHelp(L("Print the settings as one JSON object.")))
    var json = false

    func run() async throws {
        let settings: AgentSettings
        if changes.isEmpty {
            settings = try await AgentConnection.perform { client async throws(AlarmError) in try await client.settings() }
        } else {
            let text = try AgentSettings.changes(typed: changes)
            settings = try await AgentConnection.perform { client async throws(AlarmError) in try await client.setSettings(text) }
        }
        if json { return Output.line(settings.json) }
        Table.lines([[L("SETTING"), L("VALUE")]] + AgentSettings.keys.map { key in
            // As they are typed here: auto, not "auto".
            let value = key.value(settings)
            return if case .string(let text) = value { [key.name, text] } else { [key.name, value.text] }
        }).forEach(Output.line)
    }
}
