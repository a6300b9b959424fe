import Logging
import ReveilleCore
import ReveilleRules
import SystemPackage

extension AgentSettings {
    /// The settings in `settings.json` of `directory`; a file that cannot be read leaves the
    /// defaults and says why.
    static func load(from directory: FilePath, logger: Logger) -> AgentSettings {
        let (settings, problem) = SettingsFile(directory: directory).load()
        if let problem { logger.error("\(problem)") }
        return settings
    }
}
