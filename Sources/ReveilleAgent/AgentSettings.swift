import FoundationEssentials
import Logging
import SystemPackage

/// The user's settings for the agent, from `$XDG_CONFIG_HOME/reveille/settings.json`.
/// Every key is optional; a file that cannot be read leaves the defaults and says why.
struct AgentSettings: Codable {
    /// Unmute or raise a muted or nearly silent default sink while an alarm rings (and restore it after).
    var unmuteMutedSink = true

    static func load(from directory: FilePath, logger: Logger) -> AgentSettings {
        let file = directory.appending("settings.json")
        guard let data = FileManager.default.contents(atPath: file.string) else { return AgentSettings() }
        do {
            return try JSONDecoder().decode(AgentSettings.self, from: data)
        } catch {
            logger.error("\(file) could not be read (\(error)); using the default settings")
            return AgentSettings()
        }
    }

    init() {}

    init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        unmuteMutedSink = try container.decodeIfPresent(Bool.self, forKey: .unmuteMutedSink) ?? true
    }
}
