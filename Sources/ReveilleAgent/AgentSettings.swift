import FoundationEssentials
import Logging
import ReveilleAgentRuntime
import SystemPackage

/// The user's settings for the agent, from `$XDG_CONFIG_HOME/reveille/settings.json`.
/// Every key is optional; a file that cannot be read leaves the defaults and says why.
struct AgentSettings: Codable {
    /// Unmute or raise a muted or nearly silent default sink while an alarm rings (and restore it after).
    var unmuteMutedSink = true
    /// Wake the machine from suspend for alarms (through the wake helper, when installed).
    var wakeFromSuspend = true
    /// Seconds before an alarm that the machine wakes (0 to 3600).
    var wakeLead: Double = 60
    /// Show running alarms in the panel (a StatusNotifierItem) while they ring, count down or are paused.
    var panelItem = true
    /// When the alert window opens: `auto` while a ringing alarm's notification cannot be seen
    /// and answered, `always` while any alarm rings, `never`.
    var alertWindow = AlertWindowSetting.auto
    /// Where alarms ring: `default`, `all` (every output), or an output's name (`RingOn`).
    var ringOn = RingOn.defaultOutput
    /// Pause the other media players that play while an alarm rings, and play them again after.
    var pauseMediaPlayers = true

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
        wakeFromSuspend = try container.decodeIfPresent(Bool.self, forKey: .wakeFromSuspend) ?? true
        wakeLead = try container.decodeIfPresent(Double.self, forKey: .wakeLead) ?? 60
        panelItem = try container.decodeIfPresent(Bool.self, forKey: .panelItem) ?? true
        pauseMediaPlayers = try container.decodeIfPresent(Bool.self, forKey: .pauseMediaPlayers) ?? true
        let window = try container.decodeIfPresent(String.self, forKey: .alertWindow) ?? AlertWindowSetting.auto.rawValue
        guard let alertWindow = AlertWindowSetting(rawValue: window) else {
            throw DecodingError.dataCorruptedError(forKey: .alertWindow, in: container, debugDescription:
                "alertWindow is \"\(window)\"; accepted: " + AlertWindowSetting.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))
        }
        self.alertWindow = alertWindow
        ringOn = try container.decodeIfPresent(RingOn.self, forKey: .ringOn) ?? .defaultOutput
        guard wakeLead.isFinite, (0...3600).contains(wakeLead) else {
            throw DecodingError.dataCorruptedError(forKey: .wakeLead, in: container,
                                                   debugDescription: "wakeLead is \(wakeLead); accepted: 0 to 3600 seconds")
        }
    }
}
