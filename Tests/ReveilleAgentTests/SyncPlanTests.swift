import Foundation
import Testing
@testable import ReveilleAgent
import ReveilleCalendar
import ReveilleCore
import ReveilleModel

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
}
