import FoundationEssentials
import ReveilleCalendar
import ReveilleCore
import ReveilleFuzzSupport
import ReveilleModel
import ReveilleRules

/// A CalDAV server's answers over many rounds, as the sync's pure policy takes them
/// (`SyncPlan`: the listing judged, the events believed within the skew window, the plan, the
/// removals held), with a small model of the follower carrying the token, what was agreed and
/// the held removals from round to round. The server is anything the input says: reports with
/// or without a token, events appearing, edited, removed, stamped days ahead or behind; this
/// machine's alarms ring meanwhile. Invariants: nothing is removed here but by a report with a
/// token, and more than a few (or most) only when the round before listed them too; no Stop or
/// snooze is applied from beyond the skew window; an alarm ringing here is not edited; no trap.
@main enum FuzzSync {
    /// The input as a stream of bytes; zeros once it ends.
    struct Bytes {
        var bytes: [UInt8]
        var index = 0
        mutating func next() -> UInt8 {
            defer { index += 1 }
            return index < bytes.count ? bytes[index] : 0
        }
        var ended: Bool { index >= bytes.count }
    }

    static let ids = (0..<6).map { UUID(uuidString: "00000000-0000-4000-8000-00000000000\($0)")! }
    static let start = Date(timeIntervalSince1970: 1_900_000_000)

    static func request(_ title: Int) -> AlarmRequest {
        AlarmRequest(schedule: .relative(.init(time: .init(hour: 7, minute: 0), repeats: .weekly([.monday]))), countdownDuration: nil,
                     presentation: .userAlarm(title: "Alarm \(title % 3)", secondaryButton: .snoozeButton, behavior: .countdown))
    }
    static func href(_ id: UUID) -> String { "/alice/reveille/\(id.uuidString.lowercased()).ics" }
    /// An instant around `now`: from days behind to days ahead, or none.
    static func instant(_ byte: UInt8, around now: Date) -> Date? {
        byte == 0 ? nil : now.addingTimeInterval(Double(Int8(bitPattern: byte)) * 1_800 + Double(byte % 7) * 7)
    }

    static func main() {
        FuzzTarget.main { buffer in
            var input = Bytes(bytes: Array(buffer.prefix(4096)))
            var now = start
            var local: [UUID: LocalAlarm] = [:]
            for id in ids.prefix(4) {
                local[id] = LocalAlarm(request: request(0), disabled: false, changedAt: now, ringingSince: nil, reminder: .init())
            }
            var synced: [UUID: SyncedAlarm] = [:]
            var token: String?
            var held: Set<UUID> = []
            var serverToken = 0
            var rounds = 0
            while !input.ended, rounds < 64 {
                rounds += 1
                let flags = input.next()
                now = now.addingTimeInterval(Double(input.next()) * 37)
                // This machine: an alarm begins to ring, or is stopped here.
                let ring = Int(input.next())
                if ring % 8 < ids.count, var alarm = local[ids[ring % 8]] {
                    if ring & 0x80 == 0 {
                        alarm.ringingSince = now.addingTimeInterval(-5)
                        alarm.occurrence = alarm.ringingSince
                    } else if alarm.ringingSince != nil {
                        alarm.ringingSince = nil
                        alarm.reminder.acknowledged = now
                    }
                    local[ids[ring % 8]] = alarm
                }
                // The server's report and its events.
                var changes: [ListedChange] = []
                var events: [UUID: RemoteAlarm] = [:]
                for _ in 0..<(input.next() % 8) {
                    let kind = input.next(), id = ids[Int(kind % 8) % ids.count]
                    if kind & 0x80 != 0 {
                        changes.append(.removed(href: href(id)))
                        continue
                    }
                    let etag = "\"\(input.next())\""
                    changes.append(.present(href: href(id), etag: etag))
                    let title = Int(input.next())
                    let alarm = title & 0x80 != 0 ? nil : CalendarAlarm(id: id, request: request(title), disabled: title & 0x40 != 0, source: "")
                    events[id] = RemoteAlarm(href: href(id), etag: etag, alarm: alarm,
                                             reminder: .init(acknowledged: instant(input.next(), around: now), snoozedUntil: instant(input.next(), around: now)),
                                             changedAt: instant(input.next(), around: now))
                }
                serverToken += 1
                let answered = flags & 1 != 0 ? nil : flags & 2 != 0 ? "" : "token-\(serverToken)"
                let asked = flags & 4 != 0 ? nil : token
                let listing: SyncListing
                switch SyncPlan.listing(changes, token: answered, asked: asked, synced: synced) {
                case .failure: continue
                case .success(let read): listing = read
                }
                precondition(answered.map { !$0.isEmpty } == true, "a report without a token was taken")
                var remote: [UUID: RemoteAlarm] = [:]
                for href in listing.present {
                    if let event = events.values.first(where: { $0.href == href }), let id = event.alarm?.id ?? ids.first(where: { Self.href($0) == href }) {
                        remote[id] = SyncPlan.admitted(event, now: now)
                    }
                }
                // Ringing or snoozed here as the round was planned.
                let answering = Set(local.filter { $0.value.ringingSince != nil || $0.value.countingDownSince != nil }.keys)
                let planned = SyncPlan.actions(local: local, remote: remote, removed: listing.removed, synced: synced, now: now)
                let (actions, nowHeld) = SyncPlan.holdingRemovals(planned, synced: synced.count, heldBefore: held)
                let removals = planned.filter { if case .cancelLocal = $0 { true } else { false } }.count, syncedBefore = synced.count
                for action in actions {
                    switch action {
                    case .cancelLocal(let id):
                        precondition(removals <= SyncPlan.fewRemovals && (removals < 2 || removals * 2 <= syncedBefore) || held.contains(id),
                                     "\(removals) of \(syncedBefore) removed in one round, unconfirmed")
                        precondition(!answering.contains(id), "an alarm ringing here was cancelled from elsewhere")
                        precondition(listing.removed.contains(synced[id]?.href ?? ""), "a removal the report did not name")
                        local[id] = nil
                        synced[id] = nil
                    case .cancelLater(let id):
                        precondition(answering.contains(id), "a removal held for an alarm not answered here")
                    case .stopLocal(let id, let acknowledged):
                        precondition(acknowledged <= now.addingTimeInterval(SyncPlan.skew), "a Stop from beyond the skew window applied")
                        local[id]?.ringingSince = nil
                        local[id]?.reminder.acknowledged = acknowledged
                    case .snoozeLocal(let id, let until):
                        precondition(until <= now.addingTimeInterval(SyncPlan.skew + WireLimits.maximumSnooze), "a snooze past a day applied")
                        precondition(until > now, "a snooze that ended applied")
                        local[id]?.ringingSince = nil
                        local[id]?.countingDownSince = now
                    case .createLocal(let id, let request, let disabled), .updateLocal(let id, let request, let disabled):
                        if case .updateLocal = action { precondition(!answering.contains(id), "an alarm ringing here was edited") }
                        local[id] = LocalAlarm(request: request, disabled: disabled, changedAt: now, ringingSince: local[id]?.ringingSince,
                                               reminder: local[id]?.reminder ?? .init())
                        let there = remote[id]
                        synced[id] = SyncedAlarm(href: there?.href ?? href(id), etag: there?.etag, agreed: request, disabled: disabled,
                                                 acknowledged: there?.reminder.acknowledged, snoozedUntil: there?.reminder.snoozedUntil)
                    case .upload(let id, _):
                        if let here = local[id] {
                            synced[id] = SyncedAlarm(href: href(id), etag: "\"up\(rounds)\"", agreed: here.request, disabled: here.disabled,
                                                     acknowledged: here.reminder.acknowledged, snoozedUntil: here.reminder.snoozedUntil)
                        }
                    case .deleteRemote(let id, _, _): synced[id] = nil
                    case .takeLater(let id, _): precondition(answering.contains(id), "an edit put off for an alarm that was not ringing")
                    case .conflictSettled: break
                    case .acknowledgeEnded(let id, _): precondition(local[id] == nil, "a Stop written for an alarm still here")
                    }
                }
                held = nowHeld
                if held.isEmpty { token = listing.token }
            }
        }
    }
}
