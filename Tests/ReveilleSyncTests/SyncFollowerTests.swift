import Foundation
import Logging
@testable import ReveilleAgent
@testable import ReveilleAgentRuntime
import ReveilleAgentTesting
import ReveilleBus
import ReveilleCalendar
import ReveilleCore
import ReveilleLoop
import ReveilleModel
import ReveilleRules
@testable import ReveilleSync
import ReveilleTestSupport
import ReveilleTimeZone
import SystemPackage
import Testing

/// Two "machines" in process: each a runtime with its own store and virtual clock and a sync
/// follower, syncing through one real Radicale collection.
@Suite("Sync between two machines", .serialized)
@GLibActor
final class SyncFollowerTests {
    @GLibActor
    final class Machine {
        let clock = VirtualClock(now: Date(timeIntervalSince1970: 1_900_000_000))
        let runtime: AgentRuntime
        /// The sync's outbox, as its service has it, and the user's tools'.
        let outbox = AgentOutbox()
        let client = RuntimeClient()
        let sync: SyncFollower
        let folder: FilePath

        /// `folder`: the state folder of a machine that ended (its agent starts again there).
        init(_ server: RadicaleServer, folder: FilePath? = nil, now: Date? = nil, settings: AlarmEngine.Settings = .init()) throws {
            self.folder = try folder ?? privateFolder("reveille-sync")
            if let now { clock.now = now }
            let clock = clock
            let collection = CalDAVCollection(url: server.collection("reveille"), user: server.user, password: server.password,
                                              http: HTTPClient(deadline: 20))
            sync = SyncFollower(collection: collection, user: server.user, outbox: outbox, stateDirectory: self.folder,
                                interval: 3600, logger: .init(label: "sync"), clock: clock, adoptionLimit: settings.limitForSynced)
            runtime = AgentRuntime(store: AlarmStore(directory: self.folder), settings: settings, logger: .init(label: "test"), clock: clock,
                                   sources: [outbox, client.outbox], followers: [sync])
            try runtime.start()
        }

        /// Keeps the folder (a machine that ends and starts again).
        var keepsFolder = false
        deinit { if !keepsFolder { try? FileManager.default.removeItem(atPath: folder.string) } }

        /// The alarm as this machine's store has it.
        func record(_ id: UUID) -> AlarmRecord? { AlarmStore(directory: folder).load().first { $0.id == id } }

        /// The clock reaches `date`; the timer fires where it is due.
        func pass(to date: Date) {
            clock.advance(to: date)
        }
    }

    static func weekly(_ title: String) -> AlarmRequest {
        AlarmRequest(schedule: .relative(.init(time: .init(hour: 7, minute: 0), repeats: .weekly([.monday, .friday]))),
                     countdownDuration: .init(preAlert: nil, postAlert: 540),
                     presentation: .userAlarm(title: title, secondaryButton: .snoozeButton, behavior: .countdown))
    }

    /// Both machines ring `id` at `due`; `answering` answers 10 s later and syncs, then the
    /// others sync 5 s after that. Each syncs twice: a round a change started by itself (200 ms
    /// after it on the machine's clock, begun as the clock passes it) may have run meanwhile and
    /// met the other's write (412); the round after it settles it, as the next poll does in use.
    func ring(_ id: UUID, at due: Date, on machines: [Machine], answer action: AlarmAction, on answering: Machine) async throws {
        for machine in machines { machine.pass(to: due) }
        #expect(machines.allSatisfy { $0.record(id)?.state == .alerting })
        answering.clock.advance(to: due.addingTimeInterval(10))
        try await answering.client.call(.apply(action, id: .id(id)))
        await answering.sync.sync()
        await answering.sync.sync()
        for machine in machines where machine !== answering {
            machine.clock.advance(to: due.addingTimeInterval(15))
            await machine.sync.sync()
            await machine.sync.sync()
        }
    }

    @Test("an alarm added on A appears on B; Stop on A silences B; snooze on B snoozes A; an edit on both keeps the later; offline changes arrive")
    func twoMachines() async throws {
        let server = try RadicaleServer()
        try await CalDAVCollection(url: server.collection("reveille"), user: server.user, password: server.password, http: HTTPClient())
            .create(displayName: "Reveille", description: "Reveille's alarms").get()
        let a = try Machine(server), b = try Machine(server)
        // Before their folders go: no round may start once the test ends.
        defer { a.sync.stop(); b.sync.stop() }
        await a.sync.sync()
        await b.sync.sync()

        // Added on A, there on B with the same id and settings.
        let id = UUID()
        let added = try #require(try await a.client.call(.schedule(id: id, request: Self.weekly("Up"), appID: ClientIdentity.userAppID)))
        await a.sync.sync()
        await b.sync.sync()
        #expect(b.record(id)?.request == added.request)

        // Both ring the occurrence; Stop on A silences B at its next round.
        let due = try #require(added.fireDate)
        try await ring(id, at: due, on: [a, b], answer: .stop, on: a)
        #expect(b.record(id)?.state == .scheduled, "B no longer rings the occurrence A stopped")
        #expect(a.sync.state.lastProblem == nil && b.sync.state.lastProblem == nil)

        // The next occurrence rings on both; snoozed on B, A snoozes it too.
        let next = try #require(a.record(id)?.fireDate)
        try await ring(id, at: next, on: [a, b], answer: .countdown, on: b)
        #expect(a.record(id)?.state == .countdown, "A snoozes the occurrence B snoozed")
        let snoozeEnds = [a, b].compactMap { $0.record(id)?.fireDate?.timeIntervalSince1970 }
        #expect(snoozeEnds.count == 2 && abs(snoozeEnds[0] - snoozeEnds[1]) < 0.001,
                "the snooze ends on A when it ends on B, not its own length after A heard of it: \(snoozeEnds)")
        // The snooze ends: both ring again, once; Stop on A ends it on B too.
        let snoozeEnd = try #require(a.record(id)?.fireDate)
        try await ring(id, at: snoozeEnd, on: [a, b], answer: .stop, on: a)
        #expect(a.record(id)?.state == .scheduled && b.record(id)?.state == .scheduled)
        #expect(b.record(id)?.fireDate.map { $0 > snoozeEnd.addingTimeInterval(3600) } == true, "the next ring is the next day's")

        // The next occurrence: snoozed on B, A snoozes too; Stop on A during the snooze ends
        // B's snooze as well: neither rings it again.
        let third = try #require(a.record(id)?.fireDate)
        try await ring(id, at: third, on: [a, b], answer: .countdown, on: b)
        #expect(a.record(id)?.state == .countdown)
        a.clock.now = third.addingTimeInterval(60)
        try await a.client.call(.apply(.stop, id: .id(id)))
        await a.sync.sync()
        b.clock.now = third.addingTimeInterval(65)
        await b.sync.sync()
        await b.sync.sync()
        #expect(b.record(id)?.state == .scheduled, "B's snooze ended with A's Stop")
        #expect(a.record(id)?.fireDate == b.record(id)?.fireDate)

        // An edit on both: the later one is kept on both.
        var early = Self.weekly("Edited on A"), late = Self.weekly("Edited on B")
        early.ring = RingOptions(volume: 0.5)
        late.ring = RingOptions(volume: 0.25)
        a.clock.now = next.addingTimeInterval(100)
        try await a.client.call(.update(id: .id(id), request: early))
        b.clock.now = next.addingTimeInterval(200)
        try await b.client.call(.update(id: .id(id), request: late))
        await a.sync.sync()
        await b.sync.sync()
        await a.sync.sync()
        #expect(a.record(id)?.request.presentation.alert.title.defaultValue == "Edited on B")
        #expect(b.record(id)?.request.presentation.alert.title.defaultValue == "Edited on B")

        // Offline: the server is down; a change on A is kept, reported, and arrives when it is back.
        server.stop()
        let offline = UUID()
        try await a.client.call(.schedule(id: offline, request: Self.weekly("Made offline"), appID: ClientIdentity.userAppID))
        await a.sync.sync()
        #expect(a.sync.state.lastProblem != nil, "the failure is reported")
        #expect(a.record(offline) != nil, "nothing local is lost")
        try server.start()
        await a.sync.sync()
        #expect(a.sync.state.lastProblem == nil)
        await b.sync.sync()
        #expect(b.record(offline)?.request.presentation.alert.title.defaultValue == "Made offline")

        // An app's alarm stays on its machine; a hostile event (10,000 VALARMs) is left alone
        // and the other alarms still travel.
        let appAlarm = UUID()
        try await a.client.call(.schedule(id: appAlarm, request: Self.weekly("App's"), appID: "org.example.App"))
        let valarm = "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:x\r\nTRIGGER:PT0S\r\nEND:VALARM\r\n"
        let hostile = UUID()
        let text = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//EN\r\nBEGIN:VEVENT\r\nUID:\(hostile.uuidString)\r\nDTSTAMP:20300101T000000Z\r\n"
            + "DTSTART:20300101T000000Z\r\n" + String(repeating: valarm, count: 10_000) + "END:VEVENT\r\nEND:VCALENDAR\r\n"
        let direct = CalDAVCollection(url: server.collection("reveille"), user: server.user, password: server.password, http: HTTPClient())
        _ = try await direct.put(CalDAVCollection.name(for: hostile), text: text, ifMatch: nil).get()
        let afterHostile = UUID()
        try await a.client.call(.schedule(id: afterHostile, request: Self.weekly("After"), appID: ClientIdentity.userAppID))
        await a.sync.sync()
        await b.sync.sync()
        #expect(b.record(appAlarm) == nil, "an app's alarm stays local")
        #expect(b.record(hostile) == nil)
        #expect(b.record(afterHostile) != nil && b.sync.state.lastProblem == nil)

        // Cancelled on B, gone on A.
        try await b.client.call(.apply(.cancel, id: .id(offline)))
        await b.sync.sync()
        await a.sync.sync()
        #expect(a.record(offline) == nil)
    }

    @Test("the network coming back starts a round at once, not after the interval", .timeLimit(.minutes(1)))
    func networkBackSyncsAtOnce() async throws {
        let server = try RadicaleServer()
        try await CalDAVCollection(url: server.collection("reveille"), user: server.user, password: server.password, http: HTTPClient())
            .create(displayName: "Reveille", description: "Reveille's alarms").get()
        let machine = try Machine(server)
        await machine.sync.sync()
        let before = machine.sync.rounds
        // The interval is an hour: only `syncNow` can start this round.
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            machine.sync.onRound = { machine.sync.onRound = nil; done.resume() }
            machine.sync.syncNow()
            machine.clock.advance()  // the loop's next turn: the round's timer is due at once
        }
        #expect(machine.sync.rounds == before + 1)
        machine.sync.stop()
    }

    static func collection(_ server: RadicaleServer) async throws {
        try await CalDAVCollection(url: server.collection("reveille"), user: server.user, password: server.password, http: HTTPClient())
            .create(displayName: "Reveille", description: "Reveille's alarms").get()
    }

    @Test("N10: a Stop is on disk before it is answered; A ends at once, starts again, and B stops ringing")
    func aStopOutlivesTheAgent() async throws {
        let server = try RadicaleServer()
        try await Self.collection(server)
        var a: Machine? = try Machine(server)
        let b = try Machine(server)
        defer { b.sync.stop() }
        let id = UUID()
        let added = try #require(try await a!.client.call(.schedule(id: id, request: Self.weekly("Up"), appID: ClientIdentity.userAppID)))
        await a!.sync.sync()
        await b.sync.sync()
        let due = try #require(added.fireDate)
        a!.pass(to: due)
        b.pass(to: due)
        #expect(b.record(id)?.state == .alerting)
        a!.clock.now = due.addingTimeInterval(10)
        try await a!.client.call(.apply(.stop, id: .id(id)))
        // A ends now: no round ran after the Stop.
        let folder = a!.folder
        a!.keepsFolder = true
        a!.sync.stop()
        a = nil
        let kept = try JSONDecoder().decode(SyncState.self, from: try #require(FileManager.default.contents(atPath: folder.appending(SyncFollower.fileName).string)))
        #expect(kept.unsentReminders[id]?.acknowledged == due.addingTimeInterval(10), "the Stop is in sync.json")
        let restarted = try Machine(server, folder: folder, now: due.addingTimeInterval(20))
        defer { restarted.sync.stop() }
        await restarted.sync.sync()
        b.clock.now = due.addingTimeInterval(25)
        await b.sync.sync()
        #expect(b.record(id)?.state == .scheduled, "B heard the Stop A made before it ended")
    }

    @Test("N8: a damaged sync.json is kept aside and reported; sync goes on from the server's listing")
    func aDamagedStateIsKeptAside() async throws {
        let server = try RadicaleServer()
        try await Self.collection(server)
        let a = try Machine(server)
        defer { a.sync.stop() }
        try await a.client.call(.schedule(id: UUID(), request: Self.weekly("Up"), appID: ClientIdentity.userAppID))
        await a.sync.sync()
        let file = a.folder.appending(SyncFollower.fileName).string
        var bytes = try #require(FileManager.default.contents(atPath: file))
        bytes[bytes.count / 2] = 0x01  // one damaged byte (a control byte is JSON nowhere)
        try bytes.write(to: URL(fileURLWithPath: file))
        let account = SyncFollower.account(in: a.folder, logger: .init(label: "sync"))
        guard case .failure(let failure) = account else { Issue.record("a damaged sync.json was read: \(account)"); return }
        #expect(SyncFollower.unreadable(failure).hasPrefix("sync.json could not be read ("))
        let aside = try FileManager.default.contentsOfDirectory(atPath: a.folder.string).filter { $0.hasPrefix("sync.json.unreadable-") }
        #expect(aside.count == 1, "kept aside: \(aside)")
        #expect(FileManager.default.contents(atPath: a.folder.string + "/" + (aside.first ?? "")) == bytes, "whole")
        // A follower begun on it (as `sync add` again) reports it and starts from the listing.
        try bytes.write(to: URL(fileURLWithPath: file))
        let again = SyncFollower(collection: CalDAVCollection(url: server.collection("reveille"), user: server.user, password: server.password,
                                                              http: HTTPClient()),
                                 user: server.user, outbox: a.outbox, stateDirectory: a.folder, interval: 3600, logger: .init(label: "sync"),
                                 clock: a.clock)
        #expect(again.state.lastProblem?.hasPrefix("sync.json could not be read (") == true)
        await again.sync()
        again.stop()
        #expect(again.state.lastProblem == nil && again.state.token != nil)
        // The round that worked does not hide it: when, and as what, stays in the state (`sync status` says it).
        #expect(again.state.keptAside == a.clock.now && again.state.keptAsideAs?.hasPrefix("sync.json.unreadable-") == true, "\(again.state)")
        #expect((try? SyncFollower.account(in: a.folder, logger: .init(label: "sync")).get())??.user == server.user, "written anew")
        // The account has a file of its own now (issue 49): the state damaged again loses no account.
        #expect(FileManager.default.fileExists(atPath: a.folder.appending(SyncFollower.accountFileName).string), "kept apart")
        try bytes.write(to: URL(fileURLWithPath: file))
        let kept = try SyncFollower.account(in: a.folder, logger: .init(label: "sync")).get()
        #expect(kept?.user == server.user && kept?.url == server.collection("reveille"), "\(String(describing: kept))")
    }

    @Test("N5: the collection's alarms have their own quota: 10 events there, 6 taken, and the user's own tools keep their whole limit")
    func syncedAlarmsHaveTheirOwnQuota() async throws {
        let server = try RadicaleServer()
        try await Self.collection(server)
        let direct = CalDAVCollection(url: server.collection("reveille"), user: server.user, password: server.password, http: HTTPClient())
        let elsewhere = try Machine(server)
        defer { elsewhere.sync.stop() }
        for index in 0..<10 {
            let id = UUID()
            let record = try AlarmRecord(id: id, request: Self.weekly("Elsewhere \(index)"), appID: ClientIdentity.userAppID,
                                         now: elsewhere.clock.now, timeZone: UTCTimeZone())
            let event = try AlarmCalendar.event(record, now: elsewhere.clock.now, timeZone: UTCTimeZone()).get().0
            let text = ICalComponent("VCALENDAR", properties: [ICalProperty("VERSION", "2.0"), ICalProperty("PRODID", AlarmCalendar.productID)],
                                     components: [event]).text
            _ = try await direct.put(CalDAVCollection.name(for: id), text: text, ifMatch: nil).get()
        }
        let here = try Machine(server, settings: .init(limitForUser: 3, limitForSynced: 6))
        defer { here.sync.stop() }
        await here.sync.sync()
        await here.sync.sync()
        let loaded = AlarmStore(directory: here.folder).load()
        #expect(loaded.count == 6, "as many as the sync may take")
        for _ in 0..<3 {
            await #expect(throws: Never.self) { try await here.client.call(.schedule(id: UUID(), request: Self.weekly("Mine"), appID: ClientIdentity.userAppID)) }
        }
        await #expect(throws: AlarmError.maximumLimitReached) {
            try await here.client.call(.schedule(id: UUID(), request: Self.weekly("One too many"), appID: ClientIdentity.userAppID))
        }
    }

    @Test("N4: every synced alarm gone from the server at once is held a round, reported, then confirmed by the next round")
    func aMassRemovalWaitsForASecondRound() async throws {
        let server = try RadicaleServer()
        try await Self.collection(server)
        let a = try Machine(server)
        defer { a.sync.stop() }
        let ids = [UUID(), UUID()]
        for id in ids { try await a.client.call(.schedule(id: id, request: Self.weekly("Up"), appID: ClientIdentity.userAppID)) }
        await a.sync.sync()
        #expect(a.sync.state.alarms.count == 2)
        // Both events removed on the server (another machine, or a server that lost them).
        let direct = CalDAVCollection(url: server.collection("reveille"), user: server.user, password: server.password, http: HTTPClient())
        for id in ids { try await direct.delete(server.collection("reveille") + CalDAVCollection.name(for: id), ifMatch: nil).get() }
        await a.sync.sync()
        #expect(ids.allSatisfy { a.record($0) != nil }, "held: nothing cancelled on one round's word")
        #expect(a.sync.state.lastProblem?.contains("would remove 2 of the 2 synced alarms") == true, "\(a.sync.state.lastProblem ?? "no problem")")
        await a.sync.sync()
        #expect(ids.allSatisfy { a.record($0) == nil }, "confirmed by the second round")
        #expect(a.sync.state.lastProblem == nil)
    }

    @Test("N3: a Stop stamped two days ahead (a clock set ahead) does not silence the occurrence ringing here")
    func aStopFromTheFutureSilencesNothing() async throws {
        let server = try RadicaleServer()
        try await Self.collection(server)
        let b = try Machine(server)
        defer { b.sync.stop() }
        let id = UUID()
        let added = try #require(try await b.client.call(.schedule(id: id, request: Self.weekly("Up"), appID: ClientIdentity.userAppID)))
        await b.sync.sync()
        let due = try #require(added.fireDate)
        b.pass(to: due)
        #expect(b.record(id)?.state == .alerting)
        // A machine whose clock is two days ahead stops it: its ACKNOWLEDGED is two days ahead.
        let direct = CalDAVCollection(url: server.collection("reveille"), user: server.user, password: server.password, http: HTTPClient())
        guard case .present(_, let etag)? = try await direct.changes(since: nil).get().changes.first else { Issue.record("no event"); return }
        let ahead = due.addingTimeInterval(2 * 86_400 + 5)
        let event = try AlarmCalendar.event(added, now: ahead, timeZone: UTCTimeZone(), reminder: .init(acknowledged: ahead)).get().0
        let text = ICalComponent("VCALENDAR", properties: [ICalProperty("VERSION", "2.0"), ICalProperty("PRODID", AlarmCalendar.productID)],
                                 components: [event]).text
        _ = try await direct.put(CalDAVCollection.name(for: id), text: text, ifMatch: etag).get()
        b.clock.now = due.addingTimeInterval(10)
        await b.sync.sync()
        await b.sync.sync()
        #expect(b.record(id)?.state == .alerting, "still ringing: the Stop is not believed ahead of time")
    }

    @Test("N7: a rename on A while B rings leaves B ringing; once B stops, B takes the rename and A hears the Stop")
    func anEditElsewhereLeavesTheRingingAlone() async throws {
        let server = try RadicaleServer()
        try await Self.collection(server)
        let a = try Machine(server), b = try Machine(server)
        defer { a.sync.stop(); b.sync.stop() }
        let id = UUID()
        let added = try #require(try await a.client.call(.schedule(id: id, request: Self.weekly("Up"), appID: ClientIdentity.userAppID)))
        await a.sync.sync()
        await b.sync.sync()
        let due = try #require(added.fireDate)
        b.pass(to: due)
        #expect(b.record(id)?.state == .alerting)
        // Renamed on A (which does not ring: its clock is behind).
        try await a.client.call(.update(id: .id(id), request: Self.weekly("Renamed")))
        await a.sync.sync()
        b.clock.now = due.addingTimeInterval(5)
        await b.sync.sync()
        #expect(b.record(id)?.state == .alerting, "the rename did not end the ringing")
        #expect(b.record(id)?.title == "Up")
        b.clock.now = due.addingTimeInterval(10)
        try await b.client.call(.apply(.stop, id: .id(id)))
        await b.sync.sync()
        await b.sync.sync()
        #expect(b.record(id)?.title == "Renamed" && b.record(id)?.state == .scheduled, "the rename taken once the ringing was answered")
        a.pass(to: due.addingTimeInterval(1))
        #expect(a.record(id)?.state == .alerting)
        a.clock.now = due.addingTimeInterval(15)
        await a.sync.sync()
        #expect(a.record(id)?.state == .scheduled, "A heard B's Stop")
        #expect(a.record(id)?.title == "Renamed")
    }

    @Test("issue 41: a one-time alarm stopped on A is stopped on B, not cancelled; its acknowledged event stays a day, then goes")
    func aOneTimeStopTravelsAsAnAcknowledgement() async throws {
        let server = try RadicaleServer()
        try await CalDAVCollection(url: server.collection("reveille"), user: server.user, password: server.password, http: HTTPClient())
            .create(displayName: "Reveille", description: "Reveille's alarms").get()
        let a = try Machine(server), b = try Machine(server)
        defer { a.sync.stop(); b.sync.stop() }
        let id = UUID()
        let once = AlarmRequest(schedule: .relative(.init(time: .init(hour: 7, minute: 0), repeats: .never)), countdownDuration: nil,
                                presentation: .userAlarm(title: "Once", secondaryButton: nil, behavior: nil))
        let added = try #require(try await a.client.call(.schedule(id: id, request: once, appID: ClientIdentity.userAppID)))
        await a.sync.sync()
        await b.sync.sync()
        #expect(b.record(id) != nil)

        let due = try #require(added.fireDate)
        try await ring(id, at: due, on: [a, b], answer: .stop, on: a)
        #expect(a.record(id) == nil && b.record(id) == nil, "a one-time alarm ends on both")
        #expect(a.sync.state.ended[id]?.event == nil, "A's acknowledgement is written")
        #expect(b.sync.state.ended[id] != nil, "B stopped it (a removal would have cancelled it)")
        let direct = CalDAVCollection(url: server.collection("reveille"), user: server.user, password: server.password, http: HTTPClient())
        let listed = try await direct.changes(since: nil).get().changes
        guard case .present(let href, _)? = listed.first else { Issue.record("the event was removed: \(listed)"); return }
        let text = try #require(try await direct.fetch([href]).get().first?.text)
        #expect(text.contains("ACKNOWLEDGED:"), "\(text)")

        // A machine that comes later makes no alarm of it: the occurrence was answered.
        let c = try Machine(server)
        defer { c.sync.stop() }
        c.clock.now = due.addingTimeInterval(60)
        await c.sync.sync()
        #expect(c.record(id) == nil)

        // A day later the event goes; the other machine forgets it.
        a.clock.now = due.addingTimeInterval(SyncPlan.acknowledgementKept + 60)
        await a.sync.sync()
        let left = try await direct.changes(since: nil).get().changes.filter { if case .present = $0 { true } else { false } }
        #expect(left.isEmpty, "removed after its day")
        #expect(a.sync.state.ended[id] == nil && a.sync.state.alarms[id] == nil)
        b.clock.now = a.clock.now
        await b.sync.sync()
        #expect(b.sync.state.ended[id] == nil)
    }
}
