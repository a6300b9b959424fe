import FoundationEssentials
import ReveilleModel
import ReveilleRules
extension AlarmError {
    /// A refusal of the rules in the user's words, as the case clients tell apart
    /// (`code` on D-Bus): the one place the rules' errors become sentences.
    package init(_ error: AlarmRuleError) {
        switch error {
        case .alarmKit(let error):
            self = error
        case .noInstantAfterNow:
            self = .invalidConfiguration(L("the schedule has no instant after now"))
        case .lengthOnlyForSnooze(let action):
            self = .invalidConfiguration("a length is given only to a snooze, not to \(action.words)")
        case .snoozeLength(let length):
            self = .invalidConfiguration(L("the snooze length is %@; accepted: %@ second to %@ hours (%@ seconds)", AlarmRequest.spoken(length),
                                           String(Int(WireLimits.minimumSnooze)), String(Int(WireLimits.maximumSnooze / 3600)),
                                           String(Int(WireLimits.maximumSnooze))))
        case .notAllowed(let action, let alarm):
            let allowed = Alarm.State.allCases.filter(action.allowedStates.contains).map(AlarmRecord.stateWords)
            self = .invalidState(L("%@ is %@: %@ works only while it is %@", AlarmRecord.describe(alarm), AlarmRecord.stateWords(alarm.state),
                                   action.words, allowed.joined(separator: L(" or "))))
        case .buttonNotShown(let role, let alarm):
            let shown = alarm.shownButtons.map(\.rawValue)
            self = .invalidState(shown.isEmpty
                ? L("%@ is %@ and shows no button now; pressed: %@", AlarmRecord.describe(alarm), AlarmRecord.stateWords(alarm.state), role.rawValue)
                : L("%@ is %@ and shows only %@ now; pressed: %@", AlarmRecord.describe(alarm), AlarmRecord.stateWords(alarm.state),
                    shown.joined(separator: ", "), role.rawValue))
        case .disabled(let alarm):
            self = .invalidState(L("%@ is disabled: enable it first (reveille enable)", AlarmRecord.describe(alarm)))
        case .noSnoozeLength(let id):
            self = .invalidState(
                "alarm \(id.uuidString.lowercased()) has no snooze or repeat length (countdownDuration.postAlert): it cannot snooze or repeat")
        case .cannotDisable(let alarm):
            self = .invalidState(L("%@ is %@; only an alarm waiting for its time can be disabled (stop or cancel this one)",
                                   AlarmRecord.describe(alarm), AlarmRecord.stateWords(alarm.state)))
        case .notDisabled(let alarm):
            self = .invalidState(L("%@ is not disabled", AlarmRecord.describe(alarm)))
        case .dueWhileDisabled(let alarm, let due):
            self = .invalidState(L("%@ was due %@ while it was disabled; give it a new time (reveille edit) or cancel it",
                                   AlarmRecord.describe(alarm), due))
        case .cannotSkip(let alarm):
            self = .invalidState(L("%@ is not waiting for its time; only an alarm waiting for its time can skip it (a timer, a ringing or a snoozed alarm cannot: stop it instead)",
                                   AlarmRecord.describe(alarm)))
        case .nothingSkipped(let alarm):
            self = .invalidState(L("%@ has no skipped occurrence ahead; `reveille skip` skips one", AlarmRecord.describe(alarm)))
        case .noIDGiven:
            self = .notFound(L("no alarm id given; `reveille list` shows them"))
        case .noIDMatches(let prefix):
            self = .notFound(L("no alarm has an id starting with '%@'; `reveille list` shows them", prefix))
        case .ambiguousID(let prefix, let starts):
            self = .ambiguousID(L("'%@' starts %@ alarm ids (%@); give more characters", prefix, String(starts.count),
                                  starts.joined(separator: ", ")))
        case .idInUse(let id):
            self = .invalidConfiguration(
                "id \(id.uuidString.lowercased()) cannot be scheduled: an id is used once; cancel your alarm with it first, or use a new id")
        }
    }

    /// `body`'s refusal, if any, in the user's words.
    package static func worded<Value>(_ body: () throws(AlarmRuleError) -> Value) throws(AlarmError) -> Value {
        do { return try body() } catch { throw AlarmError(error) }
    }
}

extension AlarmAction {
    /// The action in a person's words: "snooze" rather than "countdown".
    package var words: String {
        switch self {
        case .countdown: L("snooze (or repeat)")
        case .pause: L("pause")
        case .resume: L("resume")
        case .stop: L("stop")
        case .cancel: L("cancel")
        }
    }
}

extension AlarmRecord {
    /// `alarm 3f2a9c1e "Wake up"`, for messages.
    static func describe(_ record: AlarmRecord) -> String {
        let name = "\(record.id.uuidString.lowercased().prefix(8)) \(record.title.debugDescription)"
        return record.schedule == nil ? L("timer %@", name) : L("alarm %@", name)
    }

    /// A state in a person's words.
    static func stateWords(_ state: Alarm.State) -> String {
        switch state {
        case .scheduled: L("waiting for its time")
        case .countdown: L("counting down")
        case .paused: L("paused")
        case .alerting: L("ringing")
        }
    }
}
