import ReveilleCore
import ReveilleKit
import ReveilleRules
import ReveilleWords

/// What the settings page shows as the agent's answers come, whatever their order: reads of the
/// settings (when the page opens) and changes (one at a time, in the person's order). Pure, so
/// that the orders a loaded machine brings are tested in process.
struct SettingsSync {
    /// What the page does with an answer: the settings its controls show (`nil`: as they are),
    /// and its line (`nil`: as it is; empty: none).
    struct Update: Equatable {
        var show: AgentSettings?
        var say: String?
    }

    /// The agent's last answer.
    private(set) var confirmed: AgentSettings?
    /// What the agent will hold once the changes sent are answered (`confirmed` while none is
    /// on its way): a control's change is what differs from it.
    private(set) var expected: AgentSettings?
    /// The changes sent and not yet answered.
    private(set) var unanswered = 0
    /// Counts the reads and changes begun: a read's answer counts only if nothing began after
    /// it (a newer read; a change, whose answer, or refusal, is what the page must show).
    private var generation = 0

    /// Begins a read, `nil` while a change is on its way (its answer brings the settings);
    /// pass the token to `read(_:answered:)`.
    mutating func beginRead() -> Int? {
        guard unanswered == 0 else { return nil }
        generation += 1
        return generation
    }

    /// A read's answer; `nil` when something began since (it would show what is no longer so).
    mutating func read(_ token: Int, answered answer: Result<AgentSettings, AlarmError>) -> Update? {
        guard token == generation else { return nil }
        switch answer {
        case .success(let settings):
            (confirmed, expected) = (settings, settings)
            return Update(show: settings, say: "")
        case .failure(let error):
            // The agent not running is said by the window, in words; its reason names bus names.
            if case .agentUnavailable = error { return Update(show: nil, say: L("The settings show once the alarm service runs.")) }
            return Update(show: nil, say: L("Cannot read the settings: %@", error.reason))
        }
    }

    /// The change that `edit` makes to what the agent will hold, to be sent; `nil` before the
    /// first answer or when it changes nothing (a control set to the agent's own value).
    mutating func change(_ edit: (inout AgentSettings) -> Void) -> SettingsChange? {
        guard let expected else { return nil }
        var wanted = expected
        edit(&wanted)
        guard let change = expected.change(to: wanted) else { return nil }
        self.expected = wanted
        generation += 1
        unanswered += 1
        return change
    }

    /// The agent's answer to `change`. The controls show the agent's settings once the last
    /// change is answered (not while the person's next one waits, which would flip its control
    /// back meanwhile); a refused change is said naming its field, and nothing of it was made.
    mutating func changed(_ change: SettingsChange, answered answer: Result<AgentSettings, AlarmError>) -> Update {
        unanswered -= 1
        var update = Update()
        switch answer {
        case .success(let settings): confirmed = settings
        case .failure(let error): update.say = SettingsForm.refusal(error, of: change)
        }
        if unanswered == 0, let confirmed {
            expected = confirmed
            update.show = confirmed
        }
        return update
    }
}
