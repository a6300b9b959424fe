import FoundationEssentials
@testable import reveille_app
import ReveilleCore
import ReveilleKit
import ReveilleModel
import ReveilleRules
import Testing

/// What the settings page shows as the agent's answers come, in the orders a loaded machine
/// brings them (C locale).
@Suite("App settings page's answers")
struct SettingsSyncTests {
    let agent = AgentSettings()
    var panelOff: AgentSettings {
        var settings = agent
        settings.panelItem = false
        return settings
    }

    /// `value`, which must be there (`#require` cannot take a mutating call).
    func required<Value>(_ value: Value?) throws -> Value { try #require(value) }

    /// A page that has read the agent's settings.
    func loaded() throws -> SettingsSync {
        var sync = SettingsSync()
        let token = try required(sync.beginRead())
        #expect(sync.read(token, answered: .success(agent)) == .init(show: agent, say: ""))
        return sync
    }

    @Test func nothingIsChangedBeforeTheAgentHasAnswered() {
        var sync = SettingsSync()
        #expect(sync.change { $0.panelItem = false } == nil, "the controls' defaults are not the agent's")
        #expect(sync.unanswered == 0)
    }

    @Test func aControlSetToTheAgentsValueSendsNothing() throws {
        var sync = try loaded()
        #expect(sync.change { $0.panelItem = true } == nil)
        #expect(sync.change { $0.wakeLead = 60 } == nil)
    }

    @Test func aChangeIsShownAsTheAgentAnswersIt() throws {
        var sync = try loaded()
        let change = try required(sync.change { $0.panelItem = false })
        #expect(change == SettingsChange(keys: ["panelItem"], json: #"{"panelItem":false}"#))
        #expect(sync.changed(change, answered: .success(panelOff)) == .init(show: panelOff, say: nil))
        #expect(sync.confirmed == panelOff && sync.expected == panelOff)
    }

    @Test func aReadAnsweredAfterAChangeBeganIsNotShown() throws {
        var sync = try loaded()
        // The page opened again (a read), then the person flipped a switch before the read's answer came.
        let token = try required(sync.beginRead())
        let change = try required(sync.change { $0.panelItem = false })
        #expect(sync.beginRead() == nil, "no read while a change is on its way")
        #expect(sync.changed(change, answered: .success(panelOff)).show == panelOff)
        // The read's answer, from before the change, comes last: the switch stays as the agent has it.
        #expect(sync.read(token, answered: .success(agent)) == nil)
        #expect(sync.confirmed == panelOff)
    }

    @Test func aReadsFailureAfterARefusalLeavesTheRefusalSaid() throws {
        var sync = try loaded()
        let token = try required(sync.beginRead())
        let change = try required(sync.change { $0.panelItem = false })
        let refused = AlarmError.invalidConfiguration("/home/me/.config/reveille/settings.json could not be read, so it was not changed")
        #expect(sync.changed(change, answered: .failure(refused))
            == .init(show: agent, say: "Panel item: /home/me/.config/reveille/settings.json could not be read, so it was not changed"),
                "said naming the field; the switch back at the agent's value")
        #expect(sync.read(token, answered: .failure(refused)) == nil)
    }

    @Test func aNewerReadSupersedesAnOlderOne() throws {
        var sync = try loaded()
        let older = try required(sync.beginRead())
        let newer = try required(sync.beginRead())
        #expect(sync.read(newer, answered: .success(panelOff))?.show == panelOff)
        #expect(sync.read(older, answered: .success(agent)) == nil)
    }

    @Test func changesMadeBeforeTheFirstIsAnsweredAreShownWhenTheLastIs() throws {
        var sync = try loaded()
        let off = try required(sync.change { $0.panelItem = false })
        // Flipped back on before the agent answered: a change of its own, not nothing.
        let on = try required(sync.change { $0.panelItem = true })
        #expect(on.json == #"{"panelItem":true}"#)
        let always = try required(sync.change { $0.alertWindow = .always })
        #expect(always.keys == ["alertWindow"])
        #expect(sync.changed(off, answered: .success(panelOff)).show == nil, "the switch not flipped back while the next change waits")
        var both = agent
        both.alertWindow = .always
        #expect(sync.changed(on, answered: .success(agent)).show == nil)
        #expect(sync.changed(always, answered: .success(both)) == .init(show: both, say: nil))
    }

    @Test func aRefusedChangeAmongOthersLeavesWhatTheAgentAnsweredLast() throws {
        var sync = try loaded()
        let off = try required(sync.change { $0.panelItem = false })
        let lead = try required(sync.change { $0.wakeLead = 120 })
        #expect(sync.changed(off, answered: .success(panelOff)).show == nil)
        let update = sync.changed(lead, answered: .failure(.invalidConfiguration("settings: wakeLead is 120; accepted: seconds, 0 to 3600")))
        #expect(update == .init(show: panelOff, say: "Wake lead: settings: wakeLead is 120; accepted: seconds, 0 to 3600"))
        #expect(sync.expected == panelOff)
    }
}
