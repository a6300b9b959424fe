import FoundationEssentials
import ReveilleCalendar
import ReveilleCore

/// What the sync remembers of an alarm it mirrors: where its event is, at which ETag, and the
/// alarm and its reminder as both sides last agreed on them. A side that differs from this
/// has changed since.
struct SyncedAlarm: Codable, Hashable, Sendable {
    var href: String
    var etag: String?
    var agreed: AlarmRequest
    var disabled: Bool
    var acknowledged: Date?
    var snoozedUntil: Date?

    var reminder: AlarmCalendar.Reminder { .init(acknowledged: acknowledged, snoozedUntil: snoozedUntil) }
}

/// One of the user's alarms here, as the plan sees it.
struct LocalAlarm: Hashable, Sendable {
    var request: AlarmRequest
    var disabled: Bool
    /// When it last changed here (for a conflict: the later change is kept).
    var changedAt: Date
    /// Ringing since then, if it rings.
    var ringingSince: Date?
    /// When the occurrence it rings (or last rang) came due.
    var occurrence: Date? = nil
    /// Counting down (a snooze, or a pre-alert) since then, if it counts down.
    var countingDownSince: Date? = nil
    /// Stopped or snoozed here, to be told to the other machines.
    var reminder: AlarmCalendar.Reminder
}

/// One event in the collection, as fetched.
struct RemoteAlarm: Hashable, Sendable {
    var href: String
    var etag: String?
    /// The alarm it maps to; `nil` when it maps to none now (a one-time reminder acknowledged
    /// or past): its reminder still counts.
    var alarm: CalendarAlarm?
    var reminder: AlarmCalendar.Reminder
    /// Its LAST-MODIFIED or DTSTAMP.
    var changedAt: Date?
}

/// A step of a sync round, performed by the follower in this order.
enum SyncAction: Hashable, Sendable {
    /// Write the alarm's event: over `ifMatch`, or as a new one when `nil`.
    case upload(UUID, ifMatch: String?)
    /// Add an alarm made on another machine.
    case createLocal(UUID, AlarmRequest, disabled: Bool)
    /// Take another machine's change of an alarm.
    case updateLocal(UUID, AlarmRequest, disabled: Bool)
    /// Cancel an alarm another machine cancelled.
    case cancelLocal(UUID)
    /// Silence the occurrence ringing here: it was stopped elsewhere at that instant.
    case stopLocal(UUID, acknowledged: Date)
    /// Snooze the occurrence ringing here until then, as another machine did.
    case snoozeLocal(UUID, until: Date)
    /// Remove the event of an alarm that ended here.
    case deleteRemote(UUID, href: String, ifMatch: String?)
    /// Both sides changed one alarm: the later change was kept; tell the user once.
    case conflictSettled(UUID, keptHere: Bool)
}

/// The sync's policy, pure: from the user's alarms here, the collection's events and what was
/// last agreed, the steps that make both sides agree. Nothing here is lost: a change on one
/// side only is taken by the other; a change on both keeps the later (ETag, then LAST-MODIFIED
/// against the local change time); an edit beats a removal.
enum SyncPlan {
    static func actions(local: [UUID: LocalAlarm], remote: [UUID: RemoteAlarm], removed: Set<String>,
                        synced: [UUID: SyncedAlarm], now: Date) -> [SyncAction] {
        var actions: [SyncAction] = []
        let ids = Set(local.keys).union(remote.keys).union(synced.keys).sorted { $0.uuidString < $1.uuidString }
        for id in ids {
            let here = local[id], there = remote[id], agreed = synced[id]
            let goneThere = agreed.map { removed.contains($0.href) } ?? false
            switch (here, agreed) {
            case (_?, nil):
                // New here (or met on both sides before any agreement: written over the server's
                // copy at the ETag seen, so a change made meanwhile is not overwritten unseen).
                actions.append(.upload(id, ifMatch: there?.etag))
            case (nil, nil):
                if let alarm = there?.alarm { actions.append(.createLocal(id, alarm.request, disabled: alarm.disabled)) }
            case (nil, let agreed?):
                // Ended here (cancelled, or rang its last time).
                if goneThere { continue }
                if let there, there.etag != agreed.etag, let alarm = there.alarm, changed(alarm, from: agreed) {
                    // Edited there meanwhile: the edit is kept rather than lost.
                    actions.append(.createLocal(id, alarm.request, disabled: alarm.disabled))
                    actions.append(.conflictSettled(id, keptHere: false))
                } else {
                    actions.append(.deleteRemote(id, href: agreed.href, ifMatch: there?.etag ?? agreed.etag))
                }
            case (let here?, let agreed?):
                let changedHere = here.request != agreed.agreed || here.disabled != agreed.disabled
                let remindedHere = here.reminder != agreed.reminder
                if goneThere {
                    if changedHere {
                        actions.append(.upload(id, ifMatch: nil))
                        actions.append(.conflictSettled(id, keptHere: true))
                    } else {
                        actions.append(.cancelLocal(id))
                    }
                    continue
                }
                // A Stop or a snooze elsewhere first.
                if let answer = answeredElsewhere(id, here, reminder: there?.reminder ?? agreed.reminder, agreed: agreed, now: now) {
                    actions.append(answer)
                }
                guard let there, there.etag != agreed.etag else {
                    if changedHere || remindedHere { actions.append(.upload(id, ifMatch: agreed.etag)) }
                    continue
                }
                let changedThere = there.alarm.map { changed($0, from: agreed) } ?? false
                switch (changedHere, changedThere) {
                case (false, true): actions.append(.updateLocal(id, there.alarm!.request, disabled: there.alarm!.disabled))
                case (true, false): actions.append(.upload(id, ifMatch: there.etag))
                case (true, true):
                    let keepHere = (there.changedAt ?? .distantPast) < here.changedAt
                    actions.append(keepHere ? .upload(id, ifMatch: there.etag)
                                            : .updateLocal(id, there.alarm!.request, disabled: there.alarm!.disabled))
                    actions.append(.conflictSettled(id, keptHere: keepHere))
                case (false, false):
                    if remindedHere { actions.append(.upload(id, ifMatch: there.etag)) }
                }
            }
        }
        return actions
    }

    /// What to do with the occurrence ringing here, given the latest reminder the server
    /// holds: silence it when it was stopped elsewhere at or after it came due (also when
    /// that Stop was heard before it began to ring here: clocks and timers differ by a moment
    /// between machines), snooze it when it was newly snoozed elsewhere.
    /// A countdown here (a snooze) ends when a Stop newly heard was made after it began: the
    /// occurrence was answered elsewhere later than it was snoozed here.
    private static func answeredElsewhere(_ id: UUID, _ here: LocalAlarm, reminder: AlarmCalendar.Reminder, agreed: SyncedAlarm,
                                          now: Date) -> SyncAction? {
        if let countingDown = here.countingDownSince {
            guard let acknowledged = reminder.acknowledged, acknowledged != agreed.acknowledged,
                  acknowledged >= Date(timeIntervalSince1970: countingDown.timeIntervalSince1970.rounded(.down)) else { return nil }
            return .stopLocal(id, acknowledged: acknowledged)
        }
        guard let ringing = here.ringingSince else { return nil }
        // iCalendar keeps whole seconds: a Stop in the second this occurrence came due is
        // written as that second, and still stops it.
        let cameDue = Date(timeIntervalSince1970: min(here.occurrence ?? ringing, ringing).timeIntervalSince1970.rounded(.down))
        if let acknowledged = reminder.acknowledged, acknowledged >= cameDue {
            return .stopLocal(id, acknowledged: acknowledged)
        }
        if let until = reminder.snoozedUntil, until != agreed.snoozedUntil, until > now {
            return .snoozeLocal(id, until: until)
        }
        return nil
    }

    private static func changed(_ alarm: CalendarAlarm, from agreed: SyncedAlarm) -> Bool {
        alarm.request != agreed.agreed || alarm.disabled != agreed.disabled
    }
}
