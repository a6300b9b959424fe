import FoundationEssentials
import ReveilleBus
import ReveilleCore
import ReveilleGtk
import ReveilleKit
import ReveilleLoop
import ReveilleRules

/// The Settings page: the agent's settings (`Settings`), each control showing the agent's value,
/// and a change sent at once (`SetSettings`), off the loop; the page then shows the agent's
/// answer. A refusal, the field's own (a wake lead out of range) or the agent's, is said at the
/// top of the page naming the field, and the control returns to the agent's value. The app
/// never writes settings.json: the agent does.
@GLibActor
final class SettingsPage {
    /// The toggle buttons of the settings that are one of a few choices, and the value each
    /// chooses: the alert window, how unanswered alarms ring again, the upcoming-alarm notice.
    /// A value set elsewhere (`reveille settings repeatUnanswered=4x2m`) shows no toggle on.
    private static let choices: [(id: String, choose: @Sendable (inout AgentSettings) -> Void, isChosen: @Sendable (AgentSettings) -> Bool)] =
        choice(\.alertWindow, [("alert_auto", .auto), ("alert_always", .always), ("alert_never", .never)])
        + choice(\.repeatUnanswered, [("repeat_once", .once), ("repeat_3x5m", UnansweredRepeat(rings: 3, rest: 300)),
                                      ("repeat_3x10m", UnansweredRepeat(rings: 3, rest: 600))])
        + choice(\.upcomingNotice, [("upcoming_wake_up", .wakeUp), ("upcoming_all", .all), ("upcoming_off", .off)])
        + choice(\.upcomingLead, [("upcoming_15m", 900), ("upcoming_30m", 1800), ("upcoming_1h", 3600)])
        + choice(\.snooze, [("snooze_5m", 300), ("snooze_9m", 540), ("snooze_10m", 600), ("snooze_15m", 900)])
        + choice(\.ringLimit, [("ring_1m", 60), ("ring_5m", 300), ("ring_10m", 600), ("ring_30m", 1800)])

    private static func choice<Value: Equatable & Sendable>(_ path: WritableKeyPath<AgentSettings, Value> & Sendable, _ values: [(String, Value)])
        -> [(id: String, choose: @Sendable (inout AgentSettings) -> Void, isChosen: @Sendable (AgentSettings) -> Bool)] {
        values.map { id, value in (id, { $0[keyPath: path] = value }, { $0[keyPath: path] == value }) }
    }
    /// The switches and the setting each turns on and off.
    private static let switches: [(id: String, setting: WritableKeyPath<AgentSettings, Bool>)] = [
        ("panel_item", \.panelItem), ("wake_from_suspend", \.wakeFromSuspend),
        ("pause_media_players", \.pauseMediaPlayers), ("unmute_muted_sink", \.unmuteMutedSink),
    ]

    private let ui: UIFile
    private let client: AgentClient
    /// What the page shows as the agent answers (the order of reads, changes and answers).
    private var sync = SettingsSync()
    private var outputs: [OutputEntry] = []
    private var ringOnChoices: [SettingsForm.RingOnChoice] = []
    /// The agent's sounds, and the rows of the new alarms' sound list (a name; `nil`, Reveille's own).
    private var sounds: [SoundEntry] = []
    private var soundRows: [String?] = []

    /// What the person's new alarms are given, as the agent last said (the built-in defaults
    /// before it answered): the alarm dialog shows them in a new alarm's fields.
    var newAlarmDefaults: NewAlarmDefaults { (sync.expected ?? AgentSettings()).newAlarmDefaults }
    /// The last change sent: each waits for the one before, so that the agent takes them in
    /// the person's order.
    private var lastChange: Task<Void, Never>?
    /// While the controls are set to the agent's values, their signals are not the person's.
    private var filling = false
    /// Whether the person has typed in the wake lead since it was last taken (Enter, or the
    /// focus gone): an answer meanwhile does not replace what is typed.
    private var wakeLeadTyped = false

    init(_ ui: UIFile, client: AgentClient) {
        self.ui = ui
        self.client = client
        for (id, choose, _) in Self.choices {
            ui.widget(id).onToggled { [weak self] on in
                if on { self?.change(choose) }
            }
        }
        for (id, setting) in Self.switches {
            ui.widget(id).onToggled { [weak self] on in self?.change { $0[keyPath: setting] = on } }
        }
        ui.widget("ring_on").makeChoiceList { [weak self] row in self?.chooseRingOn(row) }
        ui.widget("new_sound").makeChoiceList { [weak self] row in self?.chooseSound(row) }
        let wakeLead = ui.widget("wake_lead")
        wakeLead.onEdited { [weak self] in if self?.filling == false { self?.wakeLeadTyped = true } }
        wakeLead.onActivate { [weak self] in self?.setWakeLead() }
        wakeLead.onFocusLeave { [weak self] in self?.setWakeLead() }
    }

    /// Reads the agent's settings, outputs and sounds and shows them (the page opened); not
    /// while a change is on its way, whose answer will show them.
    func load() {
        guard let token = sync.beginRead() else { return }
        Task { @GLibActor [weak self, client] in
            let answer: Result<(settings: AgentSettings, outputs: [OutputEntry], sounds: [SoundEntry]), AlarmError>
            do throws(AlarmError) {
                answer = .success(try await client.run { client async throws(AlarmError) in
                    // Without a sound server's list, the default and every output are still offered.
                    (try await client.settings(), (try? await client.outputs()) ?? [], (try? await client.sounds()) ?? [])
                })
            } catch {
                answer = .failure(error)
            }
            guard let self, let update = self.sync.read(token, answered: answer.map(\.settings)) else { return }
            if case .success(let read) = answer { (self.outputs, self.sounds) = (read.outputs, read.sounds) }
            self.apply(update)
        }
    }

    // MARK: Showing

    /// Sets each control that does not show `settings` already; one that does is left alone, so
    /// that an answer does not end a switch's flip under way, take the focus from the list's
    /// row, or undo what the person is typing in the wake lead.
    private func show(_ settings: AgentSettings) {
        filling = true
        defer { filling = false }
        for (id, _, isChosen) in Self.choices where ui.widget(id).isOn != isChosen(settings) {
            ui.widget(id).isOn = isChosen(settings)
        }
        for (id, setting) in Self.switches where ui.widget(id).isOn != settings[keyPath: setting] {
            ui.widget(id).isOn = settings[keyPath: setting]
        }
        let choices = SettingsForm.ringOnChoices(outputs: outputs, chosen: settings.ringOn)
        let list = ui.widget("ring_on")
        if choices != ringOnChoices {
            ringOnChoices = choices
            list.removeAll()
            for choice in choices { list.appendChoice(choice.label) }
        }
        let chosen = choices.firstIndex { $0.ringOn == settings.ringOn } ?? 0
        if list.chosenRow != chosen { list.chooseRow(chosen) }
        let soundRows = SettingsForm.soundRows(sounds.map(\.name), chosen: settings.sound)
        let soundList = ui.widget("new_sound")
        if soundRows != self.soundRows {
            self.soundRows = soundRows
            soundList.removeAll()
            for row in soundRows { soundList.appendChoice(row.map(SoundNames.readable) ?? SoundNames.readable(SoundNames.reveillesOwn)) }
        }
        let chosenSound = soundRows.firstIndex(of: settings.sound) ?? 0
        if soundList.chosenRow != chosenSound { soundList.chooseRow(chosenSound) }
        let wakeLead = ui.widget("wake_lead")
        if !wakeLeadTyped, (try? SettingsForm.wakeLead(wakeLead.editableText)) != settings.wakeLead {
            wakeLead.text = SettingsForm.typed(wakeLead: settings.wakeLead)
        }
        // The lead is how long before an alarm the computer wakes: nothing, while it does not.
        wakeLead.isSensitive = settings.wakeFromSuspend
        let page = ui.widget("settings")
        if !page.isSensitive {
            page.isSensitive = true
            // Shown before the agent's first answer, the page could not take the focus then.
            page.takeFocusIfLost()
        }
    }

    private func say(_ text: String) {
        let problem = ui.widget("settings_problem")
        problem.text = text
        problem.isVisible = !text.isEmpty
    }

    // MARK: Changing

    /// The person chose the row at `row` (Enter, Space, a click; the focus passing chooses nothing).
    private func chooseRingOn(_ row: Int) {
        guard !filling, ringOnChoices.indices.contains(row) else { return }
        let ringOn = ringOnChoices[row].ringOn
        change { $0.ringOn = ringOn }
    }

    /// The person chose the new alarms' sound at `row`.
    private func chooseSound(_ row: Int) {
        guard !filling, soundRows.indices.contains(row) else { return }
        let sound = soundRows[row]
        change { $0.sound = sound }
    }

    /// Reads the wake lead typed (Enter, or the focus gone elsewhere); one it refuses is said and
    /// the field shows the agent's value again.
    private func setWakeLead() {
        guard !filling, let expected = sync.expected else { return }
        let field = ui.widget("wake_lead")
        do {
            let seconds = try SettingsForm.wakeLead(field.editableText)
            change { $0.wakeLead = seconds }
        } catch {
            say(error.description)
            field.text = SettingsForm.typed(wakeLead: expected.wakeLead)
        }
        // Taken (sent, or refused and shown as the agent has it): answers may show theirs again.
        wakeLeadTyped = false
    }

    /// Sends what `edit` changes in the settings the agent will hold; nothing when it changes
    /// nothing (a control set to the agent's value).
    private func change(_ edit: (inout AgentSettings) -> Void) {
        guard !filling, let change = sync.change(edit) else { return }
        // What was refused before is no longer what the page shows.
        say("")
        let previous = lastChange
        lastChange = Task { @GLibActor [weak self, client] in
            await previous?.value
            let answer: Result<AgentSettings, AlarmError>
            do throws(AlarmError) {
                answer = .success(try await client.run { client async throws(AlarmError) in try await client.setSettings(change.json) })
            } catch {
                answer = .failure(error)
            }
            guard let self else { return }
            self.apply(self.sync.changed(change, answered: answer))
        }
    }

    private func apply(_ update: SettingsSync.Update) {
        if let settings = update.show { show(settings) }
        if let text = update.say { say(text) }
    }
}
