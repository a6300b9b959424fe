import CGLib
import FoundationEssentials
import ReveilleCore
import ReveilleModel
import ReveilleRules

/// An alarm's settings as a SHA-256 of their canonical JSON: what the sync keeps to tell
/// whether a side changed them, in 64 bytes whatever the title and metadata (the settings
/// themselves, kept per alarm, made `sync.json` 19 MB for 1,800 alarms at their limits).
package struct AlarmDigest: Codable, Hashable, Sendable {
    package var hex: String

    package init(_ request: AlarmRequest) {
        let data = (try? JSONCoding.compactEncoder.encode(request)) ?? Data()
        hex = data.withUnsafeBytes { bytes in
            guard let checksum = g_compute_checksum_for_data(G_CHECKSUM_SHA256, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                                              gsize(bytes.count)) else { return "" }
            defer { g_free(checksum) }
            return String(cString: checksum)
        }
    }

    package init(from decoder: Decoder) throws { hex = try decoder.singleValueContainer().decode(String.self) }
    package func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}

/// What the sync remembers of an alarm it mirrors: where its event is, at which ETag, and the
/// alarm (as its digest) and its reminder as both sides last agreed on them. A side that
/// differs from this has changed since.
package struct SyncedAlarm: Codable, Hashable, Sendable {
    package var href: String
    package var etag: String?
    package var agreed: AlarmDigest
    package var disabled: Bool
    package var acknowledged: Date?
    package var snoozedUntil: Date?

    package init(href: String, etag: String?, agreed request: AlarmRequest, disabled: Bool, acknowledged: Date? = nil,
                 snoozedUntil: Date? = nil) {
        (self.href, self.etag, agreed, self.disabled) = (href, etag, AlarmDigest(request), disabled)
        (self.acknowledged, self.snoozedUntil) = (acknowledged, snoozedUntil)
    }

    private enum CodingKeys: String, CodingKey { case href, etag, agreed, agreedDigest, disabled, acknowledged, snoozedUntil }
    package init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        href = try container.decode(String.self, forKey: .href)
        etag = try container.decodeIfPresent(String.self, forKey: .etag)
        // A `sync.json` of an earlier version keeps the settings themselves.
        agreed = try container.decodeIfPresent(AlarmDigest.self, forKey: .agreedDigest)
            ?? AlarmDigest(try container.decode(AlarmRequest.self, forKey: .agreed))
        disabled = try container.decode(Bool.self, forKey: .disabled)
        acknowledged = try container.decodeIfPresent(Date.self, forKey: .acknowledged)
        snoozedUntil = try container.decodeIfPresent(Date.self, forKey: .snoozedUntil)
    }
    package func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(href, forKey: .href)
        try container.encodeIfPresent(etag, forKey: .etag)
        try container.encode(agreed, forKey: .agreedDigest)
        try container.encode(disabled, forKey: .disabled)
        try container.encodeIfPresent(acknowledged, forKey: .acknowledged)
        try container.encodeIfPresent(snoozedUntil, forKey: .snoozedUntil)
    }

    package var reminder: AlarmCalendar.Reminder { .init(acknowledged: acknowledged, snoozedUntil: snoozedUntil) }

    /// Whether `request` and `disabled` are what was agreed.
    package func agrees(_ request: AlarmRequest, disabled: Bool) -> Bool {
        agrees(AlarmDigest(request), disabled: disabled)
    }
    package func agrees(_ digest: AlarmDigest, disabled: Bool) -> Bool {
        disabled == self.disabled && digest == agreed
    }
}

/// One of the user's alarms here, as the plan sees it.
package struct LocalAlarm: Hashable, Sendable {
    package let request: AlarmRequest
    package var disabled: Bool
    /// When it last changed here (for a conflict: the later change is kept).
    package var changedAt: Date
    /// Ringing since then, if it rings.
    package var ringingSince: Date?
    /// When the occurrence it rings (or last rang) came due.
    package var occurrence: Date?
    /// Counting down (a snooze, or a pre-alert) since then, if it counts down.
    package var countingDownSince: Date?
    /// Stopped or snoozed here, to be told to the other machines.
    package var reminder: AlarmCalendar.Reminder
    /// The request's digest, made once as the alarm changes (not each round, for each alarm).
    package let digest: AlarmDigest

    package init(request: AlarmRequest, disabled: Bool, changedAt: Date, ringingSince: Date?, occurrence: Date? = nil,
                 countingDownSince: Date? = nil, reminder: AlarmCalendar.Reminder) {
        (self.request, self.disabled, self.changedAt, self.ringingSince) = (request, disabled, changedAt, ringingSince)
        (self.occurrence, self.countingDownSince, self.reminder) = (occurrence, countingDownSince, reminder)
        digest = AlarmDigest(request)
    }

    /// Its occurrence is being answered here (it rings, or a snooze of it counts down).
    var answering: Bool { ringingSince != nil || countingDownSince != nil }
}

/// One event in the collection, as fetched.
package struct RemoteAlarm: Hashable, Sendable {
    package var href: String
    package var etag: String?
    /// The alarm it maps to; `nil` when it maps to none now (a one-time reminder acknowledged
    /// or past): its reminder still counts.
    package var alarm: CalendarAlarm?
    package var reminder: AlarmCalendar.Reminder
    /// Its LAST-MODIFIED or DTSTAMP.
    package var changedAt: Date?

    package init(href: String, etag: String?, alarm: CalendarAlarm?, reminder: AlarmCalendar.Reminder, changedAt: Date?) {
        (self.href, self.etag, self.alarm, self.reminder, self.changedAt) = (href, etag, alarm, reminder, changedAt)
    }
}

/// A step of a sync round, performed by the follower in this order.
package enum SyncAction: Hashable, Sendable {
    /// Write the alarm's event: over `ifMatch`, or as a new one when `nil`.
    case upload(UUID, ifMatch: String?)
    /// Add an alarm made on another machine.
    case createLocal(UUID, AlarmRequest, disabled: Bool)
    /// Take another machine's change of an alarm.
    case updateLocal(UUID, AlarmRequest, disabled: Bool)
    /// Another machine's change of an alarm whose occurrence is being answered here: taken
    /// once it is answered (an edit would end the ringing); its event is read again until then.
    case takeLater(UUID, href: String)
    /// Cancel an alarm another machine cancelled.
    case cancelLocal(UUID)
    /// Another machine cancelled an alarm whose occurrence is being answered here: cancelled
    /// once it is answered (as an edit waits), the removal kept until then.
    case cancelLater(UUID)
    /// Silence the occurrence ringing here: it was stopped elsewhere at that instant.
    case stopLocal(UUID, acknowledged: Date)
    /// Snooze the occurrence ringing here until then, as another machine did.
    case snoozeLocal(UUID, until: Date)
    /// Remove the event of an alarm that ended here.
    case deleteRemote(UUID, href: String, ifMatch: String?)
    /// Write the acknowledged event of a one-time alarm stopped here (its record is gone): the
    /// other machines hear a Stop, not a removal.
    case acknowledgeEnded(UUID, ifMatch: String?)
    /// Both sides changed one alarm: the later change was kept; tell the user once.
    case conflictSettled(UUID, keptHere: Bool)

    /// The alarm a step is about.
    package var id: UUID {
        switch self {
        case .upload(let id, _), .createLocal(let id, _, _), .updateLocal(let id, _, _), .takeLater(let id, _), .cancelLocal(let id), .cancelLater(let id),
             .stopLocal(let id, _), .snoozeLocal(let id, _), .deleteRemote(let id, _, _), .conflictSettled(let id, _),
             .acknowledgeEnded(let id, _): id
        }
    }
}

/// A one-time alarm whose last occurrence was stopped, here or on another machine: its event
/// keeps the acknowledgement for `SyncPlan.acknowledgementKept` before it is removed, so every
/// machine that rings it hears a Stop (and its history says "stopped"), not a removal.
package struct EndedAlarm: Codable, Hashable, Sendable {
    /// When it was stopped.
    package var acknowledged: Date
    /// The acknowledged event to write, while it is not written yet (stopped here).
    package var event: String?

    package init(acknowledged: Date, event: String?) { (self.acknowledged, self.event) = (acknowledged, event) }
}

/// A change in the collection as a sync report lists it.
package enum ListedChange: Hashable, Sendable {
    case present(href: String, etag: String)
    case removed(href: String)
}

/// A sync report judged: the events to read, the events gone, and the token to ask with next.
package struct SyncListing: Hashable, Sendable {
    package var present: [String]
    package var removed: Set<String>
    package var token: String

    package init(present: [String], removed: Set<String>, token: String) {
        (self.present, self.removed, self.token) = (present, removed, token)
    }
}

/// The sync's policy, pure: from the user's alarms here, the collection's events and what was
/// last agreed, the steps that make both sides agree. Nothing here is lost: a change on one
/// side only is taken by the other; a change on both keeps the later (ETag, then LAST-MODIFIED
/// against the local change time); an edit beats a removal. The server is believed within
/// bounds only: an instant from it past `skew` ahead of now is not applied, an answer without
/// a sync token is no listing, and a round that would remove many alarms waits for a second.
package enum SyncPlan {
    /// How far ahead of this machine's clock another machine's Stop or change may be stamped
    /// and still be believed (clocks differ by a moment; a peer set days ahead must not
    /// silence the occurrences to come).
    package static let skew: TimeInterval = 60
    /// Removals from one round taken at once; more (or most of the synced alarms) wait for
    /// the next round to confirm them.
    package static let fewRemovals = 3
    /// Seconds between rounds while an occurrence rings or is snoozed here: a Stop or snooze
    /// made on another machine is heard within this (and the round's own time).
    package static let answeringInterval: TimeInterval = 2
    /// How long the acknowledged event of a one-time alarm is kept before it is removed: a
    /// machine that was asleep or offline meanwhile still hears the Stop.
    package static let acknowledgementKept: TimeInterval = 86_400

    /// Seconds until the next round: `answeringInterval` while an occurrence rings here or a
    /// snooze of it counts down (the cheap sync-token query then lists nothing most rounds),
    /// `normal` otherwise.
    package static func interval(normal: TimeInterval, local: some Sequence<LocalAlarm>, now: Date) -> TimeInterval {
        let answering = local.contains { $0.ringingSince != nil || ($0.countingDownSince != nil && ($0.reminder.snoozedUntil ?? .distantPast) > now) }
        return answering ? min(normal, answeringInterval) : normal
    }

    /// The report as a listing: one without a sync token is refused (RFC 6578 makes it
    /// mandatory; taken as a full listing, an empty one removed every alarm). A full listing
    /// (`asked == nil`) names no removals: what was agreed and is not listed is gone.
    package static func listing(_ changes: [ListedChange], token: String?, asked: String?,
                                synced: [UUID: SyncedAlarm]) -> Result<SyncListing, HTTPFailure> {
        guard let token, !token.isEmpty else {
            return .failure(HTTPFailure(description: "the server's sync report has no DAV:sync-token; nothing of it was taken"))
        }
        var listing = SyncListing(present: [], removed: [], token: token)
        for change in changes {
            switch change {
            case .removed(let href): listing.removed.insert(href)
            case .present(let href, _): listing.present.append(href)
            }
        }
        if asked == nil {
            let listed = Set(listing.present.map(eventName))
            listing.removed = Set(synced.values.map(\.href).filter { !listed.contains(eventName($0)) })
        }
        return .success(listing)
    }

    /// The event's name: the last component of its href.
    package static func eventName(_ href: String) -> String {
        String(href.split(separator: "/").last ?? "")
    }

    /// The event as far as it is believed: a Stop or a change stamped more than `skew` ahead
    /// of now is not (it would act ahead of time), nor a snooze ending later than a snooze
    /// made now could (`WireLimits.maximumSnooze`, as a local one).
    package static func admitted(_ remote: RemoteAlarm, now: Date) -> RemoteAlarm {
        var remote = remote
        let ahead = now.addingTimeInterval(skew)
        if let acknowledged = remote.reminder.acknowledged, acknowledged > ahead { remote.reminder.acknowledged = nil }
        if let until = remote.reminder.snoozedUntil, until > ahead.addingTimeInterval(WireLimits.maximumSnooze) {
            remote.reminder.snoozedUntil = nil
        }
        if let changedAt = remote.changedAt, changedAt > ahead { remote.changedAt = nil }
        return remote
    }

    /// How long removals taken are counted toward `fewRemovals`: a peer removing three a round
    /// could otherwise empty the alarms here over a few rounds without a word.
    package static let removalsCounted: TimeInterval = 86_400

    /// The removals of a round to perform now, and those held for the next round to confirm:
    /// more than `fewRemovals` with the `recent` ones taken within `removalsCounted`, or more
    /// than half the synced alarms (two or more), wait; a removal held before and listed again
    /// is confirmed.
    package static func holdingRemovals(_ actions: [SyncAction], synced: Int, heldBefore: Set<UUID>,
                                        recent: Int = 0) -> (actions: [SyncAction], held: Set<UUID>) {
        let removals = Set(actions.compactMap { if case .cancelLocal(let id) = $0 { id } else { nil } })
        let many = (!removals.isEmpty && removals.count + recent > fewRemovals) || (removals.count >= 2 && removals.count * 2 > synced)
        guard many else { return (actions, []) }
        let held = removals.subtracting(heldBefore)
        return (actions.filter { if case .cancelLocal(let id) = $0 { !held.contains(id) } else { true } }, held)
    }

    package static func actions(local: [UUID: LocalAlarm], remote: [UUID: RemoteAlarm], removed: Set<String>,
                                synced: [UUID: SyncedAlarm], ended: [UUID: EndedAlarm] = [:], now: Date) -> [SyncAction] {
        var actions: [SyncAction] = []
        let ids = Set(local.keys).union(remote.keys).union(synced.keys).sorted { $0.uuidString < $1.uuidString }
        for id in ids {
            let here = local[id], there = remote[id].map { admitted($0, now: now) }, agreed = synced[id]
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
                } else if let ending = ended[id] {
                    // Stopped: the acknowledgement is written, kept a while, then the event removed.
                    if ending.event != nil {
                        actions.append(.acknowledgeEnded(id, ifMatch: there?.etag ?? agreed.etag))
                    } else if now.timeIntervalSince(ending.acknowledged) >= acknowledgementKept {
                        actions.append(.deleteRemote(id, href: agreed.href, ifMatch: there?.etag ?? agreed.etag))
                    }
                } else {
                    actions.append(.deleteRemote(id, href: agreed.href, ifMatch: there?.etag ?? agreed.etag))
                }
            case (let here?, let agreed?):
                let changedHere = !agreed.agrees(here.digest, disabled: here.disabled)
                let remindedHere = here.reminder != agreed.reminder
                if goneThere {
                    if changedHere {
                        actions.append(.upload(id, ifMatch: nil))
                        actions.append(.conflictSettled(id, keptHere: true))
                    } else if here.answering {
                        // A ringing alarm removed elsewhere rings on until it is answered here.
                        actions.append(.cancelLater(id))
                    } else {
                        actions.append(.cancelLocal(id))
                    }
                    continue
                }
                // A Stop or a snooze elsewhere first.
                if let answer = answeredElsewhere(id, here, reminder: there?.reminder ?? admittedReminder(agreed.reminder, now: now),
                                                  agreed: agreed, now: now) {
                    actions.append(answer)
                }
                guard let there, there.etag != agreed.etag else {
                    if changedHere || remindedHere { actions.append(.upload(id, ifMatch: agreed.etag)) }
                    continue
                }
                let changedThere = there.alarm.map { changed($0, from: agreed) } ?? false
                let keepHere = changedHere && (!changedThere || (there.changedAt ?? .distantPast) < here.changedAt)
                if changedThere, !keepHere, here.answering {
                    // Taken once the occurrence is answered here, with whatever else then differs.
                    actions.append(.takeLater(id, href: there.href))
                    continue
                }
                switch (changedHere, changedThere) {
                case (false, true):
                    actions.append(.updateLocal(id, there.alarm!.request, disabled: there.alarm!.disabled))
                    // A Stop or snooze here not yet told goes with the change taken.
                    if remindedHere { actions.append(.upload(id, ifMatch: there.etag)) }
                case (true, false): actions.append(.upload(id, ifMatch: there.etag))
                case (true, true):
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

    /// A reminder agreed before, as far as it is believed now.
    private static func admittedReminder(_ reminder: AlarmCalendar.Reminder, now: Date) -> AlarmCalendar.Reminder {
        admitted(RemoteAlarm(href: "", etag: nil, alarm: nil, reminder: reminder, changedAt: nil), now: now).reminder
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
        !agreed.agrees(alarm.request, disabled: alarm.disabled)
    }
}
