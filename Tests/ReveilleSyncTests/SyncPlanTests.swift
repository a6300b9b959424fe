import Foundation
@testable import ReveilleAgentRuntime
import ReveilleCalendar
import ReveilleCore
import ReveilleModel
@testable import ReveilleSync
import Testing

/// The sync's policy on every combination of a change here, a change there, and neither.
@Suite("Sync plan")
struct SyncPlanTests {
    static let now = Date(timeIntervalSince1970: 1_900_000_000)
    static let id = UUID()

    static func request(_ title: String) -> AlarmRequest {
        AlarmRequest(schedule: .relative(.init(time: .init(hour: 7, minute: 0), repeats: .weekly([.monday]))), countdownDuration: nil,
                     presentation: .userAlarm(title: title, secondaryButton: .snoozeButton, behavior: .countdown))
    }
    static func here(_ title: String, changedAt: Date = now, ringingSince: Date? = nil,
                     reminder: AlarmCalendar.Reminder = .init()) -> [UUID: LocalAlarm] {
        [id: LocalAlarm(request: request(title), disabled: false, changedAt: changedAt, ringingSince: ringingSince, reminder: reminder)]
    }
    static func there(_ title: String?, etag: String, changedAt: Date? = nil, reminder: AlarmCalendar.Reminder = .init()) -> [UUID: RemoteAlarm] {
        [id: RemoteAlarm(href: "/alice/reveille/x.ics", etag: etag,
                         alarm: title.map { CalendarAlarm(id: id, request: request($0), disabled: false, source: $0) },
                         reminder: reminder, changedAt: changedAt)]
    }
    static func agreed(_ title: String, etag: String = "\"1\"", acknowledged: Date? = nil) -> [UUID: SyncedAlarm] {
        [id: SyncedAlarm(href: "/alice/reveille/x.ics", etag: etag, agreed: request(title), disabled: false, acknowledged: acknowledged)]
    }
    func plan(_ local: [UUID: LocalAlarm] = [:], _ remote: [UUID: RemoteAlarm] = [:], removed: Set<String> = [],
              _ synced: [UUID: SyncedAlarm] = [:]) -> [SyncAction] {
        SyncPlan.actions(local: local, remote: remote, removed: removed, synced: synced, now: Self.now)
    }

    @Test("a change on one side only is taken by the other; no change, no step")
    func oneSided() {
        let id = Self.id
        #expect(plan(Self.here("Up")) == [.upload(id, ifMatch: nil)], "new here")
        #expect(plan([:], Self.there("Up", etag: "\"1\"")) == [.createLocal(id, Self.request("Up"), disabled: false)], "new there")
        #expect(plan(Self.here("Up"), Self.there("Up", etag: "\"1\""), Self.agreed("Up")).isEmpty, "agreed")
        #expect(plan(Self.here("Up"), [:], Self.agreed("Up")).isEmpty, "not listed: unchanged there")
        #expect(plan(Self.here("Later"), [:], Self.agreed("Up")) == [.upload(id, ifMatch: "\"1\"")], "edited here")
        #expect(plan(Self.here("Up"), Self.there("Later", etag: "\"2\""), Self.agreed("Up")) ==
                [.updateLocal(id, Self.request("Later"), disabled: false)], "edited there")
        #expect(plan([:], [:], Self.agreed("Up")) == [.deleteRemote(id, href: "/alice/reveille/x.ics", ifMatch: "\"1\"")], "cancelled here")
        #expect(plan(Self.here("Up"), removed: ["/alice/reveille/x.ics"], Self.agreed("Up")) == [.cancelLocal(id)], "cancelled there")
    }

    @Test("a change on both sides keeps the later one and says so once; an edit beats a removal")
    func conflicts() {
        let id = Self.id, earlier = Self.now.addingTimeInterval(-60), later = Self.now.addingTimeInterval(60)
        #expect(plan(Self.here("Mine", changedAt: Self.now), Self.there("Theirs", etag: "\"2\"", changedAt: earlier), Self.agreed("Up")) ==
                [.upload(id, ifMatch: "\"2\""), .conflictSettled(id, keptHere: true)])
        #expect(plan(Self.here("Mine", changedAt: Self.now), Self.there("Theirs", etag: "\"2\"", changedAt: later), Self.agreed("Up")) ==
                [.updateLocal(id, Self.request("Theirs"), disabled: false), .conflictSettled(id, keptHere: false)])
        #expect(plan(Self.here("Mine"), removed: ["/alice/reveille/x.ics"], Self.agreed("Up")) ==
                [.upload(id, ifMatch: nil), .conflictSettled(id, keptHere: true)])
        #expect(plan([:], Self.there("Theirs", etag: "\"2\""), Self.agreed("Up")) ==
                [.createLocal(id, Self.request("Theirs"), disabled: false), .conflictSettled(id, keptHere: false)])
    }

    @Test("Stop and snooze travel: a Stop there silences the occurrence ringing here; a Stop here is written")
    func reminders() {
        let id = Self.id, ringing = Self.now.addingTimeInterval(-30)
        let stoppedThere = AlarmCalendar.Reminder(acknowledged: Self.now.addingTimeInterval(-5))
        #expect(plan(Self.here("Up", ringingSince: ringing), Self.there("Up", etag: "\"2\"", reminder: stoppedThere), Self.agreed("Up")) ==
                [.stopLocal(id, acknowledged: Self.now.addingTimeInterval(-5))])
        // A Stop in the very second the occurrence began here (iCalendar keeps whole seconds).
        let sameSecond = AlarmCalendar.Reminder(acknowledged: Self.now.addingTimeInterval(-30))
        #expect(plan(Self.here("Up", ringingSince: ringing.addingTimeInterval(0.4)), Self.there("Up", etag: "\"2\"", reminder: sameSecond),
                     Self.agreed("Up")) == [.stopLocal(id, acknowledged: Self.now.addingTimeInterval(-30))])
        // An acknowledgement of an earlier occurrence does not silence this one.
        let earlier = AlarmCalendar.Reminder(acknowledged: ringing.addingTimeInterval(-86_400))
        #expect(plan(Self.here("Up", ringingSince: ringing), Self.there("Up", etag: "\"2\"", reminder: earlier), Self.agreed("Up")).isEmpty)
        let snoozed = AlarmCalendar.Reminder(snoozedUntil: Self.now.addingTimeInterval(540))
        #expect(plan(Self.here("Up", ringingSince: ringing), Self.there("Up", etag: "\"2\"", reminder: snoozed), Self.agreed("Up")) ==
                [.snoozeLocal(id, until: Self.now.addingTimeInterval(540))])
        #expect(plan(Self.here("Up", reminder: stoppedThere), [:], Self.agreed("Up")) == [.upload(id, ifMatch: "\"1\"")], "stopped here")
    }

    @Test("a Stop heard before the occurrence began to ring here still silences it; one of an earlier occurrence does not")
    func stopHeardEarly() {
        let id = Self.id, due = Self.now.addingTimeInterval(-30)
        // What was agreed is what this machine holds (taken when it was heard).
        func ringing(since: Date?, cameDue: Date, agreeing agreed: [UUID: SyncedAlarm]) -> [UUID: LocalAlarm] {
            [id: LocalAlarm(request: Self.request("Up"), disabled: false, changedAt: due, ringingSince: since, occurrence: cameDue,
                            reminder: agreed[id]!.reminder)]
        }
        // The round that brought A's Stop ran a moment before this machine's timer rang the
        // occurrence: the Stop is in what was agreed, and the server's copy is unchanged since.
        let stoppedAfterDue = Self.agreed("Up", acknowledged: due.addingTimeInterval(3))
        #expect(plan(ringing(since: due.addingTimeInterval(5), cameDue: due, agreeing: stoppedAfterDue), [:], stoppedAfterDue) ==
                [.stopLocal(id, acknowledged: due.addingTimeInterval(3))])
        #expect(plan(ringing(since: due.addingTimeInterval(5), cameDue: due, agreeing: stoppedAfterDue), Self.there("Up", etag: "\"1\"",
                     reminder: .init(acknowledged: due.addingTimeInterval(3))), stoppedAfterDue) ==
                [.stopLocal(id, acknowledged: due.addingTimeInterval(3))], "listed again, unchanged")
        // Yesterday's Stop is not today's.
        let yesterday = Self.agreed("Up", acknowledged: due.addingTimeInterval(-86_390))
        #expect(plan(ringing(since: due, cameDue: due, agreeing: yesterday), [:], yesterday).isEmpty)
        // Not ringing here: nothing to silence.
        #expect(plan(ringing(since: nil, cameDue: due, agreeing: stoppedAfterDue), [:], stoppedAfterDue).isEmpty)
    }

    @Test("issue 41: rounds come every 2 s while an occurrence rings or a snooze of it counts down here, at the normal interval otherwise")
    func answeringRoundsComeOften() {
        let now = Self.now
        func alarm(ringingSince: Date? = nil, countingDownSince: Date? = nil, snoozedUntil: Date? = nil) -> LocalAlarm {
            LocalAlarm(request: Self.request("Up"), disabled: false, changedAt: now, ringingSince: ringingSince,
                       countingDownSince: countingDownSince, reminder: .init(snoozedUntil: snoozedUntil))
        }
        #expect(SyncPlan.interval(normal: 30, local: [alarm(), alarm()], now: now) == 30, "nothing rings")
        #expect(SyncPlan.interval(normal: 30, local: [alarm(), alarm(ringingSince: now)], now: now) == 2, "one rings")
        #expect(SyncPlan.interval(normal: 30, local: [alarm(countingDownSince: now, snoozedUntil: now + 540)], now: now) == 2, "snoozed")
        #expect(SyncPlan.interval(normal: 30, local: [alarm(countingDownSince: now)], now: now) == 30, "a timer counting down")
        #expect(SyncPlan.interval(normal: 30, local: [alarm(countingDownSince: now, snoozedUntil: now - 60)], now: now) == 30,
                "a countdown after an earlier snooze ended")
        #expect(SyncPlan.interval(normal: 1, local: [alarm(ringingSince: now)], now: now) == 1, "never slower than asked")
    }

    @Test("issue 41: a one-time alarm stopped here writes its acknowledgement, keeps the event a day for the others, then removes it")
    func aOneTimeStopIsAcknowledgedNotRemoved() {
        let id = Self.id, href = "/alice/reveille/x.ics"
        let stoppedHere = [id: EndedAlarm(acknowledged: Self.now, event: "BEGIN:VCALENDAR…")]
        func plan(ended: [UUID: EndedAlarm], remote: [UUID: RemoteAlarm] = [:], removed: Set<String> = [], at now: Date = Self.now) -> [SyncAction] {
            SyncPlan.actions(local: [:], remote: remote, removed: removed, synced: Self.agreed("Up"), ended: ended, now: now)
        }
        #expect(plan(ended: stoppedHere) == [.acknowledgeEnded(id, ifMatch: "\"1\"")], "the Stop is written, not a removal")
        #expect(plan(ended: stoppedHere, remote: Self.there(nil, etag: "\"2\"")) == [.acknowledgeEnded(id, ifMatch: "\"2\"")],
                "over the ETag listed")
        let written = [id: EndedAlarm(acknowledged: Self.now, event: nil)]
        #expect(plan(ended: written, at: Self.now + 3_600).isEmpty, "kept for the machines that have not heard yet")
        #expect(plan(ended: written, at: Self.now + SyncPlan.acknowledgementKept) ==
                [.deleteRemote(id, href: href, ifMatch: "\"1\"")], "then removed, as a one-time alarm's event is")
        #expect(plan(ended: stoppedHere, removed: [href]).isEmpty, "removed there meanwhile: nothing to write")
        #expect(plan(ended: [:]) == [.deleteRemote(id, href: href, ifMatch: "\"1\"")], "cancelled here: removed at once")
    }

    @Test("a collection URL is https, or http to this machine only: a password never crosses a network in clear text")
    func collectionURLs() {
        func refusal(_ url: String) -> String? {
            do { try SyncService.check(url); return nil } catch { return error.reason }
        }
        for accepted in ["https://cloud.example.com/remote.php/dav/calendars/me/reveille/", "http://localhost:5232/me/reveille/",
                         "http://127.0.0.1:5232/me/reveille/", "http://[::1]:5232/me/reveille/"] {
            #expect(refusal(accepted) == nil, "\(accepted)")
        }
        #expect(refusal("http://cloud.example.com/dav/")?.hasPrefix("http://cloud.example.com would send the password unencrypted") == true)
        #expect(refusal("http://localhost.example.com/dav/")?.contains("unencrypted") == true)
        #expect(refusal("ftp://example.com/")?.contains("is not an https:// URL") == true)
        #expect(refusal("https://example.com/a b")?.contains("is not a collection URL") == true)
    }

    @Test("a Stop elsewhere after a snooze here began ends the snooze; a Stop from before it, or one already heard, does not")
    func stopEndsASnoozeElsewhere() {
        let id = Self.id, snoozedAt = Self.now.addingTimeInterval(-60)
        func snoozing(holding reminder: AlarmCalendar.Reminder = .init()) -> [UUID: LocalAlarm] {
            [id: LocalAlarm(request: Self.request("Up"), disabled: false, changedAt: snoozedAt, ringingSince: nil,
                            occurrence: snoozedAt.addingTimeInterval(-10), countingDownSince: snoozedAt, reminder: reminder)]
        }
        let stoppedLater = AlarmCalendar.Reminder(acknowledged: snoozedAt.addingTimeInterval(20))
        #expect(plan(snoozing(), Self.there("Up", etag: "\"2\"", reminder: stoppedLater), Self.agreed("Up")) ==
                [.stopLocal(id, acknowledged: snoozedAt.addingTimeInterval(20))])
        let stoppedBefore = AlarmCalendar.Reminder(acknowledged: snoozedAt.addingTimeInterval(-5))
        #expect(plan(snoozing(), Self.there("Up", etag: "\"2\"", reminder: stoppedBefore), Self.agreed("Up")).isEmpty,
                "the snooze here came after that Stop")
        #expect(plan(snoozing(holding: stoppedLater), Self.there("Up", etag: "\"2\"", reminder: stoppedLater),
                     Self.agreed("Up", acknowledged: snoozedAt.addingTimeInterval(20))).isEmpty, "heard already")
    }

    // MARK: The server is believed within bounds (issue 43)

    @Test("N3: a Stop or a change stamped more than a minute ahead is not applied ahead of time; a snooze is bounded like one made here")
    func aClockAheadIsNotBelieved() {
        let id = Self.id, ringing = Self.now.addingTimeInterval(-30)
        let twoDaysAhead = AlarmCalendar.Reminder(acknowledged: Self.now.addingTimeInterval(2 * 86_400))
        #expect(plan(Self.here("Up", ringingSince: ringing), Self.there("Up", etag: "\"2\"", reminder: twoDaysAhead), Self.agreed("Up")).isEmpty,
                "a Stop stamped two days ahead silences nothing")
        #expect(plan(Self.here("Up", ringingSince: ringing, reminder: twoDaysAhead), [:],
                     Self.agreed("Up", acknowledged: Self.now.addingTimeInterval(2 * 86_400))).isEmpty, "nor when it was agreed before")
        let aMomentAhead = AlarmCalendar.Reminder(acknowledged: Self.now.addingTimeInterval(30))
        #expect(plan(Self.here("Up", ringingSince: ringing), Self.there("Up", etag: "\"2\"", reminder: aMomentAhead), Self.agreed("Up")) ==
                [.stopLocal(id, acknowledged: Self.now.addingTimeInterval(30))], "clocks differ by a moment: 30 s ahead is believed")
        let snoozedForDays = AlarmCalendar.Reminder(snoozedUntil: Self.now.addingTimeInterval(3 * 86_400))
        #expect(plan(Self.here("Up", ringingSince: ringing), Self.there("Up", etag: "\"2\"", reminder: snoozedForDays), Self.agreed("Up")).isEmpty,
                "a snooze longer than a day is no snooze")
        let snoozedADay = AlarmCalendar.Reminder(snoozedUntil: Self.now.addingTimeInterval(86_400))
        #expect(plan(Self.here("Up", ringingSince: ringing), Self.there("Up", etag: "\"2\"", reminder: snoozedADay), Self.agreed("Up")) ==
                [.snoozeLocal(id, until: Self.now.addingTimeInterval(86_400))])
        // A change stamped in the future does not win a conflict for it.
        #expect(plan(Self.here("Mine", changedAt: Self.now), Self.there("Theirs", etag: "\"2\"", changedAt: Self.now.addingTimeInterval(86_400)),
                     Self.agreed("Up")) == [.upload(id, ifMatch: "\"2\""), .conflictSettled(id, keptHere: true)])
        let admitted = SyncPlan.admitted(Self.there("Up", etag: "\"2\"", changedAt: Self.now.addingTimeInterval(61), reminder: twoDaysAhead)[id]!,
                                         now: Self.now)
        #expect(admitted.reminder.acknowledged == nil && admitted.changedAt == nil)
    }

    @Test("N4: a report without a sync token is no listing; a full listing removes what it does not list")
    func aListingNeedsItsToken() throws {
        let agreed = Self.agreed("Up")
        #expect(SyncPlan.listing([], token: nil, asked: nil, synced: agreed) ==
                .failure(HTTPFailure(description: "the server's sync report has no DAV:sync-token; nothing of it was taken")))
        #expect((try? SyncPlan.listing([], token: "", asked: "t1", synced: agreed).get()) == nil, "an empty token is none")
        #expect(try SyncPlan.listing([], token: "t2", asked: nil, synced: agreed).get() ==
                SyncListing(present: [], removed: ["/alice/reveille/x.ics"], token: "t2"))
        #expect(try SyncPlan.listing([.present(href: "/alice/reveille/x.ics", etag: "1")], token: "t2", asked: nil, synced: agreed).get().removed == [])
        #expect(try SyncPlan.listing([.removed(href: "/alice/reveille/y.ics")], token: "t3", asked: "t2", synced: agreed).get().removed ==
                ["/alice/reveille/y.ics"])
    }

    @Test("N4: a round removing more than a few alarms, or most of them, is held until the next round confirms it")
    func manyRemovalsWait() {
        let ids = (0..<5).map { _ in UUID() }
        func cancels(_ count: Int) -> [SyncAction] { ids.prefix(count).map { .cancelLocal($0) } + [.upload(ids[4], ifMatch: nil)] }
        // One removal, or a few of many: at once.
        #expect(SyncPlan.holdingRemovals(cancels(1), synced: 1, heldBefore: []).held.isEmpty)
        #expect(SyncPlan.holdingRemovals(cancels(3), synced: 100, heldBefore: []).held.isEmpty)
        // Every synced alarm, or more than a few: held; the rest of the round goes on.
        let all = SyncPlan.holdingRemovals(cancels(2), synced: 2, heldBefore: [])
        #expect(all.held == Set(ids.prefix(2)) && all.actions == [.upload(ids[4], ifMatch: nil)])
        #expect(SyncPlan.holdingRemovals(cancels(4), synced: 100, heldBefore: []).held.count == 4)
        // The next round lists them again: confirmed, done.
        let confirmed = SyncPlan.holdingRemovals(cancels(2), synced: 2, heldBefore: all.held)
        #expect(confirmed.held.isEmpty && confirmed.actions == cancels(2))
        // A removal not held before waits for its own confirmation.
        #expect(SyncPlan.holdingRemovals(cancels(4), synced: 100, heldBefore: Set(ids.prefix(2))).held == Set(ids[2...3]))
    }

    @Test("issue 49: removals taken count over a day: a peer removing three a round is held at the fourth of the day")
    func removalsCountOverADay() {
        let ids = (0..<2).map { _ in UUID() }
        let one: [SyncAction] = [.cancelLocal(ids[0])]
        #expect(SyncPlan.holdingRemovals(one, synced: 100, heldBefore: [], recent: 2).held.isEmpty, "three in the day")
        #expect(SyncPlan.holdingRemovals(one, synced: 100, heldBefore: [], recent: 3).held == [ids[0]], "a fourth waits for a second round")
        #expect(SyncPlan.holdingRemovals(one, synced: 100, heldBefore: [ids[0]], recent: 3).held.isEmpty, "which confirms it")
        #expect(SyncPlan.holdingRemovals([.upload(ids[1], ifMatch: nil)], synced: 100, heldBefore: [], recent: 9).held.isEmpty,
                "no removal, nothing held")
    }

    @Test("issue 49: an alarm removed elsewhere while it rings here rings on, and is cancelled once answered")
    func aRemovalWaitsForTheRinging() {
        let id = Self.id, ringing = Self.now.addingTimeInterval(-30), removed: Set<String> = ["/alice/reveille/x.ics"]
        #expect(plan(Self.here("Up", ringingSince: ringing), removed: removed, Self.agreed("Up")) == [.cancelLater(id)])
        let snoozing = [id: LocalAlarm(request: Self.request("Up"), disabled: false, changedAt: Self.now, ringingSince: nil,
                                       countingDownSince: ringing, reminder: .init())]
        #expect(plan(snoozing, removed: removed, Self.agreed("Up")) == [.cancelLater(id)])
        // Answered here: the removal kept meanwhile is taken.
        #expect(plan(Self.here("Up"), removed: removed, Self.agreed("Up")) == [.cancelLocal(id)])
    }

    @Test("N7: another machine's edit of an alarm ringing here waits until it is answered, then is taken with the Stop made here")
    func anEditWaitsForTheRinging() {
        let id = Self.id, ringing = Self.now.addingTimeInterval(-30)
        #expect(plan(Self.here("Up", ringingSince: ringing), Self.there("Renamed", etag: "\"2\""), Self.agreed("Up")) ==
                [.takeLater(id, href: "/alice/reveille/x.ics")])
        let snoozing = [id: LocalAlarm(request: Self.request("Up"), disabled: false, changedAt: Self.now, ringingSince: nil,
                                       countingDownSince: ringing, reminder: .init())]
        #expect(plan(snoozing, Self.there("Renamed", etag: "\"2\""), Self.agreed("Up")) == [.takeLater(id, href: "/alice/reveille/x.ics")])
        // Answered here (stopped): the edit is taken, and the Stop goes with it.
        let stopped = AlarmCalendar.Reminder(acknowledged: Self.now)
        #expect(plan(Self.here("Up", reminder: stopped), Self.there("Renamed", etag: "\"2\""), Self.agreed("Up")) ==
                [.updateLocal(id, Self.request("Renamed"), disabled: false), .upload(id, ifMatch: "\"2\"")])
        // Its own change here is later: kept, as before.
        #expect(plan(Self.here("Mine", changedAt: Self.now, ringingSince: ringing), Self.there("Renamed", etag: "\"2\"", changedAt: ringing),
                     Self.agreed("Up")) == [.upload(id, ifMatch: "\"2\""), .conflictSettled(id, keptHere: true)])
    }

    @Test("N8: what sync.json keeps of an alarm is bounded whatever its title and metadata")
    func theStateIsBoundedPerAlarm() throws {
        var request = Self.request(String(repeating: "é", count: 500))
        request.metadata = "\"" + String(repeating: "m", count: 4000) + "\""
        let alarms = (0..<1_800).map { _ in
            SyncedAlarm(href: "/alice/reveille/\(UUID().uuidString.lowercased()).ics", etag: "\"0123456789abcdef\"", agreed: request,
                        disabled: false, acknowledged: Self.now, snoozedUntil: Self.now)
        }
        let bytes = try JSONEncoder().encode(alarms)
        #expect(bytes.count < 1_800 * 400, "\(bytes.count) bytes for 1,800 alarms")
        print("what sync.json keeps of 1,800 alarms at the title and metadata limits: \(bytes.count) bytes")
        // A `sync.json` of an earlier version, which kept the settings themselves, is read.
        let earlier = try JSONSerialization.data(withJSONObject: ["href": "/a/b.ics", "disabled": false,
                                                                  "agreed": try JSONSerialization.jsonObject(with: JSONEncoder().encode(request))])
        #expect(try JSONDecoder().decode(SyncedAlarm.self, from: earlier).agrees(request, disabled: false))
        let read = try JSONDecoder().decode([SyncedAlarm].self, from: bytes)
        #expect(read.first?.agrees(request, disabled: false) == true && read.first?.agrees(Self.request("Other"), disabled: false) == false)
    }
}
