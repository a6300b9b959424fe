import FoundationEssentials
import ReveilleCore
import ReveilleKit
import ReveilleModel
import ReveilleRules
import ReveilleWords

/// The settings page's rules, apart from its widgets: the name the page gives each of the
/// agent's settings, how a typed wake lead is read, the choices of where alarms ring, and the
/// change a control's new value asks of the agent (only the keys that differ, so that a control
/// set to the agent's own value sends nothing).
enum SettingsForm {
    /// Each setting's name on the page, by its key: refusals name the field as the page labels it.
    /// Every key the agent has is here (a test holds it so), so that none is left off the page.
    static var fields: [String: String] {
        ["alertWindow": L("Alert window"), "panelItem": L("Panel item"), "ringOn": L("Ring on"),
         "wakeFromSuspend": L("Wake from suspend"), "wakeLead": L("Wake lead"),
         "pauseMediaPlayers": L("Pause media players"), "unmuteMutedSink": L("Unmute a muted output"),
         "repeatUnanswered": L("Unanswered alarms"), "upcomingNotice": L("Upcoming alarm notice"), "upcomingLead": L("Notice ahead by"),
         "sound": L("New alarms' sound"), "snooze": L("New alarms' snooze"), "ringLimit": L("New alarms ring for")]
    }

    /// The wake leads accepted, as a duration field checks them.
    static let wakeLeadRange = DurationRange(shortest: AgentSettings.wakeLeadRange.lowerBound, longest: AgentSettings.wakeLeadRange.upperBound)

    /// A wake lead as typed: a length (`90s`, `2m`, `1m30s`), a bare number of seconds (`90`, as
    /// `reveille settings wakeLead=90` takes it), or zero (wake at the alarm's instant). Refused
    /// naming the field and what is accepted, before anything is sent.
    static func wakeLead(_ text: String) throws(FieldRefusal) -> TimeInterval {
        let field = fields["wakeLead"]!, trimmed = text.trimmed()
        let seconds: TimeInterval
        // No duration is zero (the parser refuses it), but a wake lead may be.
        if trimmed.wholeMatch(of: /0+(\.0+)?\s*[smh]?/) != nil {
            seconds = 0
        } else {
            do { seconds = try InputParser.timerLength(trimmed) } catch { throw FieldRefusal("\(field): \(error)", field: field) }
        }
        try wakeLeadRange.check(seconds, text: trimmed, field: field)
        return seconds
    }

    /// A wake lead as the field shows it (`1m`, `90s`), read back as the same seconds.
    static func typed(wakeLead seconds: TimeInterval) -> String { DurationRange.typed(seconds) }

    /// One choice of where alarms ring: what the list shows, and the setting it makes.
    struct RingOnChoice: Equatable {
        var label: String
        var ringOn: RingOn
    }

    /// The choices of where alarms ring: the default output, every output, then each output the
    /// agent lists, by its description (with its name where two read alike or it has none), and
    /// the chosen output last when it is not connected now, so that the list always shows it.
    static func ringOnChoices(outputs: [OutputEntry], chosen: RingOn) -> [RingOnChoice] {
        var choices = [RingOnChoice(label: L("The default output"), ringOn: .defaultOutput),
                       RingOnChoice(label: L("Every output"), ringOn: .all)]
        for output in outputs {
            let description = output.description.trimmed()
            let alike = outputs.filter { $0.description.trimmed() == description }.count > 1
            let label = description.isEmpty ? output.name : alike ? "\(description) (\(output.name))" : description
            choices.append(RingOnChoice(label: label, ringOn: .output(output.name)))
        }
        if case .output(let name) = chosen, !outputs.contains(where: { $0.name == name }) {
            choices.append(RingOnChoice(label: L("%@ (not connected)", name), ringOn: chosen))
        }
        return choices
    }

    /// The rows of the new alarms' sound list: Reveille's own (`nil`), then the agent's other
    /// sounds in its order (alarm-like ones first), and the chosen one last when the agent does
    /// not list it (a file's path set with `reveille settings`), so that the list shows it.
    static func soundRows(_ names: [String], chosen: String?) -> [String?] {
        let others = names.filter { $0 != SoundNames.reveillesOwn }
        return [nil] + others + (chosen.map { others.contains($0) || $0 == SoundNames.reveillesOwn ? [] : [$0] } ?? [])
    }

    /// What a refusal of `change` says: the field's name on the page, then the agent's words.
    static func refusal(_ error: AlarmError, of change: SettingsChange) -> String {
        guard let field = change.keys.first.flatMap({ fields[$0] }) else { return error.reason }
        return "\(field): \(error.reason)"
    }
}

/// A change of some settings, as `SetSettings` takes it: the keys changed, and their new values
/// as one JSON object.
struct SettingsChange: Equatable {
    var keys: [String]
    var json: String
}

extension AgentSettings {
    /// The change that turns these settings into `wanted`: the keys whose value differs, or
    /// `nil` when none does.
    func change(to wanted: AgentSettings) -> SettingsChange? {
        // Every setting as `Settings` answers it (`json`, which always reads), less those unchanged.
        guard case .object(let every)? = try? StrictJSON.parse(wanted.json) else { return nil }
        let changed = every.filter { member in Self.key(member.key).map { $0.value(self) != member.value } ?? true }
        return changed.isEmpty ? nil : SettingsChange(keys: changed.map(\.key), json: JSONValue.object(changed).text)
    }
}
