import FoundationEssentials
import ReveilleCore
import ReveilleModel
import ReveilleRules

/// What each view of the alarms learns from a change: the user's tools see every alarm, an
/// app only its own (and nothing of other apps' changes, not even that they happened).
/// Pure: changes in, one update per view out, so `AlarmsUpdated` costs what changed, not
/// what is stored, however many subscribers listen.
struct AlarmViewUpdates {
    /// Whose view an update is for.
    enum View: Hashable {
        case user
        case app(String)

        init(_ identity: ClientIdentity) {
            self = identity.isUser ? .user : .app(identity.appID)
        }
    }

    /// One view's part of a change: alarms new or changed, ids that ended, and alarms that
    /// began to alert with this change.
    struct Update: Equatable {
        var changed: [AlarmRecord] = []
        var removed: [UUID] = []
        var startedAlerting: [UUID] = []
    }

    /// Each alarm's app, so that an alarm's end reaches its app's view (the end carries no record).
    private var owners: [UUID: String] = [:]
    /// Each alarm's last state, so that the change into `alerting` is told once.
    private var states: [UUID: Alarm.State] = [:]

    /// Splits `changes` by view (the last change of an alarm wins); views not in `views` are
    /// only remembered. An app's update is present even when empty only if it is asked for.
    mutating func split(_ changes: [AlarmChange], for views: Set<View>) -> [View: Update] {
        var last: [UUID: AlarmRecord?] = [:]
        var order: [UUID] = []
        for change in changes {
            if last.updateValue(change.record, forKey: change.id) == nil { order.append(change.id) }
        }
        var updates: [View: Update] = [:]
        for id in order {
            let record = last[id]!
            guard let appID = record?.appID ?? owners[id] else { continue }
            owners[id] = record == nil ? nil : appID
            let wasAlerting = states[id] == .alerting
            states[id] = record?.state
            let startsAlerting = record?.state == .alerting && !wasAlerting
            for view in [View.user, .app(appID)] where views.contains(view) {
                if let record {
                    updates[view, default: Update()].changed.append(record)
                    if startsAlerting { updates[view, default: Update()].startedAlerting.append(id) }
                } else {
                    updates[view, default: Update()].removed.append(id)
                }
            }
        }
        return updates
    }
}
