import FoundationEssentials
@testable import reveille_app
import ReveilleCore
import ReveilleKit
import ReveilleModel
import ReveilleRules
import Testing

/// The settings page's rules (C locale): every setting has its field, a typed wake lead is read
/// and bounded as the agent bounds it, where alarms ring is offered by the outputs' descriptions,
/// and a control's change asks the agent for the keys that differ, nothing else.
@Suite("App settings page")
struct SettingsFormTests {
    @Test func everySettingTheAgentHasHasAField() {
        #expect(Set(SettingsForm.fields.keys) == Set(AgentSettings.keys.map(\.name)))
    }

    @Test func aWakeLeadIsALengthABareNumberOfSecondsOrZero() throws {
        #expect(try SettingsForm.wakeLead("90") == 90)
        #expect(try SettingsForm.wakeLead(" 2m ") == 120)
        #expect(try SettingsForm.wakeLead("1m30s") == 90)
        #expect(try SettingsForm.wakeLead("1h") == 3600)
        for zero in ["0", "0s", "0m", "00", "0.0"] { #expect(try SettingsForm.wakeLead(zero) == 0, "\(zero)") }
        // Shown as typed, read back as the same seconds.
        for seconds: TimeInterval in [0, 45, 60, 90, 600, 3600] {
            #expect(try SettingsForm.wakeLead(SettingsForm.typed(wakeLead: seconds)) == seconds)
        }
    }

    @Test func aWakeLeadOutOfRangeOrUnreadableIsRefusedNamingTheField() {
        #expect(throws: FieldRefusal("Wake lead: '3601' is longer than 1h; accepted: 0s to 1h", field: "Wake lead")) {
            try SettingsForm.wakeLead("3601")
        }
        #expect(throws: FieldRefusal("Wake lead: '2h' is longer than 1h; accepted: 0s to 1h", field: "Wake lead")) {
            try SettingsForm.wakeLead("2h")
        }
        for text in ["-5m", "soon", "", "1e3"] {
            do {
                _ = try SettingsForm.wakeLead(text)
                Issue.record("'\(text)' was read")
            } catch {
                #expect(error.field == "Wake lead" && error.description.hasPrefix("Wake lead: "), "\(error)")
            }
        }
    }

    /// Outputs as `ListOutputs` answers them.
    func outputs(_ pairs: KeyValuePairs<String, String>) throws -> [OutputEntry] {
        let json = "[" + pairs.map { #"{"name": "\#($0.key)", "description": "\#($0.value)"}"# }.joined(separator: ", ") + "]"
        return try JSONDecoder().decode([OutputEntry].self, from: Data(json.utf8))
    }

    @Test func whereAlarmsRingIsOfferedByTheOutputsDescriptions() throws {
        let outputs = try outputs(["alsa_output.pci.analog-stereo": "Speakers", "bluez_sink.headset": "Headphones",
                                   "hdmi.1": "HDMI", "hdmi.2": "HDMI", "null": " "])
        let choices = SettingsForm.ringOnChoices(outputs: outputs, chosen: .defaultOutput)
        #expect(choices.map(\.label) == ["The default output", "Every output", "Speakers", "Headphones", "HDMI (hdmi.1)", "HDMI (hdmi.2)", "null"])
        #expect(choices.map(\.ringOn) == [.defaultOutput, .all] + outputs.map { .output($0.name) })
    }

    @Test func aChosenOutputThatIsNotConnectedIsStillOffered() throws {
        let outputs = try outputs(["speakers": "Speakers"])
        let choices = SettingsForm.ringOnChoices(outputs: outputs, chosen: .output("headset"))
        #expect(choices.last == .init(label: "headset (not connected)", ringOn: .output("headset")))
        #expect(SettingsForm.ringOnChoices(outputs: outputs, chosen: .output("speakers")).count == 3, "a connected one is offered once")
        #expect(SettingsForm.ringOnChoices(outputs: [], chosen: .all).map(\.ringOn) == [.defaultOutput, .all])
    }

    @Test func aChangeNamesOnlyTheKeysThatDiffer() throws {
        let agent = try AgentSettings().changed(by: #"{"wakeLead": 90, "ringOn": "hdmi.1"}"#)
        #expect(agent.change(to: agent) == nil, "a control set to the agent's value sends nothing")
        var wanted = agent
        wanted.panelItem = false
        #expect(agent.change(to: wanted) == SettingsChange(keys: ["panelItem"], json: #"{"panelItem":false}"#))
        wanted.alertWindow = .always
        wanted.wakeLead = 0
        let change = try #require(agent.change(to: wanted))
        #expect(change.keys == ["wakeLead", "panelItem", "alertWindow"])
        // What the agent reads it as: the settings wanted.
        #expect(try agent.changed(by: change.json) == wanted)
    }

    @Test func anAgentsRefusalNamesTheFieldAsThePageLabelsIt() {
        let refusal = AlarmError.invalidConfiguration("settings: wakeLead is 7200; accepted: seconds, 0 to 3600")
        #expect(SettingsForm.refusal(refusal, of: SettingsChange(keys: ["wakeLead"], json: #"{"wakeLead":7200}"#))
            == "Wake lead: settings: wakeLead is 7200; accepted: seconds, 0 to 3600")
        #expect(SettingsForm.refusal(.agentUnavailable("gone"), of: SettingsChange(keys: ["newKey"], json: "{}")) == "gone")
    }

    /// The new alarms' sound list: Reveille's own first, the agent's others in its order, and a
    /// file's path set with `reveille settings` shown last so that the list shows what is chosen.
    @Test func newAlarmsSoundRows() {
        #expect(SettingsForm.soundRows(["alarm", "chime", "bell"], chosen: nil) == [nil, "chime", "bell"])
        #expect(SettingsForm.soundRows(["alarm", "chime"], chosen: "chime") == [nil, "chime"])
        #expect(SettingsForm.soundRows(["alarm", "chime"], chosen: "/home/me/cock.ogg") == [nil, "chime", "/home/me/cock.ogg"])
        #expect(SettingsForm.soundRows([], chosen: "alarm") == [nil], "Reveille's own by name is the first row")
    }
}
