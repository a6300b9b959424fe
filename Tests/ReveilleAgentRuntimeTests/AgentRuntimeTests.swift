import Foundation
import Logging
@testable import ReveilleAgent
@testable import ReveilleAgentRuntime
import ReveilleAgentTesting
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleModel
import ReveilleRules
import ReveilleTimeZone
import SystemPackage
import Testing

/// The runtime in process: one queue of events, followers that only read, no re-entry; its
/// store in a folder of the test's own, its clock virtual.
// Serialized: one test counts the process's timers, which only this suite makes.
@Suite("Agent runtime", .serialized)
@GLibActor
final class AgentRuntimeTests {
    /// Records what it follows and hears, and how deeply `follow` was nested.
    @GLibActor
    final class Recorder: AlarmFollower {
        var changes: [[AlarmChange]] = []
        var alarms = AlarmTable.empty
        var notices: [AgentNotice] = []
        var depth = 0
        var deepest = 0
        /// Runs inside `follow`, as a follower's own effects would.
        var whileFollowing: ((AlarmTable) -> Void)?

        func follow(_ changes: [AlarmChange], in alarms: AlarmTable) {
            depth += 1
            deepest = max(deepest, depth)
            defer { depth -= 1 }
            self.changes.append(changes)
            self.alarms = alarms
            whileFollowing?(alarms)
        }

        func hear(_ notice: AgentNotice) { notices.append(notice) }

        var pressed: [(UUID, AlarmButtonRole)] {
            notices.compactMap { if case .buttonPressed(let record, let role) = $0 { (record.id, role) } else { nil } }
        }
    }

    /// Rings every alerting alarm, as the sounder does with a sound server.
    @GLibActor
    final class Ringer: AlarmRinger {
        /// The clients' requests of the sound it was handed, by kind.
        var requests: [String] = []
        func ring(_ changes: [AlarmChange], in alarms: AlarmTable) -> Set<UUID> {
            Set(alarms.records.filter { $0.state == .alerting }.map(\.id))
        }
        func apply(_ settings: AgentSettings) {}
        func answer(_ request: SoundRequest) throws(AlarmError) -> [String] {
            switch request {
            case .outputs: requests.append("outputs"); return ["[]"]
            case .preview(_, let seconds, _, _, let owner): requests.append("preview \(seconds) for \(owner)"); return ["/chime.oga"]
            case .stopPreviews: requests.append("stop"); throw .invalidState("nothing plays")
            }
        }
    }

    let clock = VirtualClock()
    let recorder = Recorder()
    /// The tests' client: its changes and presses go in as the service's do.
    let client = RuntimeClient()
    var runtime: AgentRuntime
    let folder: FilePath

    init() throws {
        folder = try privateFolder("reveille-runtime")
        runtime = AgentRuntime(store: AlarmStore(directory: folder), settings: .init(), logger: .init(label: "test"), clock: clock,
                               sources: [client.outbox], followers: [recorder])
    }

    /// The runtime, the recorder following, with `ringer` ringing (given at construction, as every part is).
    func ringing(with ringer: any AlarmRinger) {
        runtime = AgentRuntime(store: AlarmStore(directory: folder), settings: .init(), logger: .init(label: "test"), clock: clock,
                               sources: [client.outbox], ringer: ringer, followers: [recorder])
    }

    deinit {
        try? FileManager.default.removeItem(atPath: folder.string)
    }

    /// A one-shot alarm at `seconds` from the virtual now, scheduled as the user.
    func schedule(in seconds: TimeInterval, id: UUID = UUID()) async throws -> AlarmRecord {
        let request = AlarmRequest(schedule: .fixed(clock.now + seconds), countdownDuration: nil,
                                   presentation: AlarmPresentation(alert: .init(title: "Test")), ring: RingOptions())
        return try #require(try await client.call(.schedule(id: id, request: request, appID: ClientIdentity.userAppID)))
    }

    /// The clock passes `seconds`, and the timer fires where it is due.
    func pass(_ seconds: TimeInterval) {
        clock.advance(by: seconds)
    }

    /// The window the end-to-end test once waited 4 s for, on virtual time: a paused timer's
    /// instant passes without a ring, and after Resume it rings its time left, not sooner.
    @Test func aPausedTimerDoesNotRingAtItsInstantAndRingsItsTimeLeftAfterResume() async throws {
        try runtime.start()
        let request = AlarmRequest(schedule: nil, countdownDuration: .init(preAlert: 4, postAlert: nil),
                                   presentation: AlarmPresentation(alert: .init(title: "Pasta")), ring: RingOptions())
        let timer = try #require(try await client.call(.schedule(id: UUID(), request: request, appID: ClientIdentity.userAppID)))
        pass(1)
        _ = try await client.call(.apply(.pause, id: .id(timer.id)))
        #expect(recorder.alarms[timer.id]?.state == .paused)
        pass(3600)
        #expect(recorder.alarms[timer.id]?.state == .paused, "a paused timer does not ring")
        _ = try await client.call(.apply(.resume, id: .id(timer.id)))
        pass(2.9)
        #expect(recorder.alarms[timer.id]?.state == .countdown, "3 s were left when it was paused")
        pass(0.2)
        #expect(recorder.alarms[timer.id]?.state == .alerting)
    }

    @Test func anEventRaisedWhileFollowersFollowWaitsItsTurnInsteadOfReEntering() async throws {
        try runtime.start()
        let alarm = try await schedule(in: 60)
        // A follower that presses Stop the moment it sees the alarm ring, as a notification
        // server answering at once would: into its outbox, read after the alert's effects.
        var sawStoppedInsideTheAlert = false
        recorder.whileFollowing = { [client, recorder] alarms in
            guard alarms[alarm.id]?.state == .alerting else { return }
            recorder.whileFollowing = nil
            client.outbox.send(.buttonPressed(alarm.id, .stop))
            // Still inside the alert's effects: the press has not been handled yet.
            sawStoppedInsideTheAlert = alarms[alarm.id]?.state != .alerting || !recorder.pressed.isEmpty
        }
        let before = recorder.changes.count
        pass(61)
        #expect(recorder.pressed.isEmpty, "a part's event waits for the loop's next turn")
        await runtime.quiet()
        #expect(recorder.deepest == 1, "follow was entered again while it ran")
        #expect(!sawStoppedInsideTheAlert)
        // The alert, then the press's change (the one-shot alarm ends), each followed once.
        let states = recorder.changes[before...].map { $0.first { $0.id == alarm.id }?.record?.state }
        #expect(states == [.alerting, nil])
        #expect(recorder.pressed.map(\.0) == [alarm.id])
    }

    @Test func aButtonActsOnTheAlarmWithItsWholeIdNotOnAnotherWithTheSamePrefix() async throws {
        try runtime.start()
        // Two ids that differ in their last character only.
        let first = try await schedule(in: 60, id: UUID(uuidString: "3F2A0000-0000-4000-8000-000000000001")!)
        let second = try await schedule(in: 60, id: UUID(uuidString: "3F2A0000-0000-4000-8000-000000000002")!)
        pass(61)
        await client.send(.buttonPressed(second.id, .stop), to: runtime)
        let last = try #require(recorder.changes.last)
        #expect(last.map(\.id) == [second.id])
        #expect(last.first?.record == nil)
        #expect(recorder.pressed.map(\.0) == [second.id])
        // The other still rings; a press on an alarm that is gone changes nothing.
        let count = recorder.changes.count
        await client.send(.buttonPressed(second.id, .stop), to: runtime)
        await client.send(.buttonPressed(UUID(), .stop), to: runtime)
        #expect(recorder.changes.count == count)
        await client.send(.buttonPressed(first.id, .stop), to: runtime)
        #expect(recorder.changes.last?.map(\.id) == [first.id])
    }

    @Test func whatTheRingerRingsIsInTheAlarmsOfTheSameChangeAndFollowsTheSoundServer() async throws {
        ringing(with: Ringer())
        try runtime.start()
        let alarm = try await schedule(in: 60)
        #expect(recorder.alarms.sounding.isEmpty)
        pass(61)
        // No follower order: the alert's own table says Reveille rings it.
        #expect(recorder.changes.last?.first?.record?.state == .alerting)
        #expect(recorder.alarms.sounding == [alarm.id])
        // The sound server went away: the followers hear it with no change.
        await client.send(.soundChanged([]), to: runtime)
        #expect(recorder.changes.last?.isEmpty == true)
        #expect(recorder.alarms.sounding.isEmpty)
        #expect(recorder.alarms[alarm.id]?.state == .alerting)
    }

    /// A client's request of the sound goes to the ringer through the runtime, in its turn,
    /// and its answer or refusal comes back; before the start it is refused, never left unanswered.
    @Test func aClientsRequestOfTheSoundIsTheRingersAnsweredThroughTheRuntime() async throws {
        let ringer = Ringer()
        ringing(with: ringer)
        var early: Result<[String], AlarmError>?
        client.outbox.send(.sound(.outputs) { early = $0 })
        try runtime.start()
        await runtime.quiet()
        #expect((try? early?.get()) == ["[]"], "read once the alarms are loaded")
        func ask(_ request: SoundRequest) async -> Result<[String], AlarmError> {
            await withCheckedContinuation { answered in client.outbox.send(.sound(request) { answered.resume(returning: $0) }) }
        }
        #expect(try await ask(.preview(.default, seconds: 2, volume: 1, alone: false, owner: ":1.7")).get() == ["/chime.oga"])
        await #expect(throws: AlarmError.invalidState("nothing plays")) { try await ask(.stopPreviews).get() }
        #expect(ringer.requests == ["outputs", "preview 2.0 for :1.7", "stop"])
        runtime.settle()
        await #expect(throws: AgentRuntime.stopping) { try await ask(.outputs).get() }
    }

    /// Rings every alerting alarm; when one stops ringing, keeps a copy of the store's folder
    /// as a crash at that moment would leave it.
    @GLibActor
    final class CrashingRinger: AlarmRinger {
        let folder: FilePath, crashed: FilePath
        var ringing: Set<UUID> = []
        var copied = false

        init(folder: FilePath, crashed: FilePath) { self.folder = folder; self.crashed = crashed }

        func apply(_ settings: AgentSettings) {}
        func answer(_ request: SoundRequest) throws(AlarmError) -> [String] { [] }
        func ring(_ changes: [AlarmChange], in alarms: AlarmTable) -> Set<UUID> {
            let now = Set(alarms.records.filter { $0.state == .alerting }.map(\.id))
            if !ringing.subtracting(now).isEmpty, !copied {
                copied = true
                try? FileManager.default.removeItem(atPath: crashed.string)
                try? FileManager.default.copyItem(atPath: folder.string, toPath: crashed.string)
            }
            ringing = now
            return now
        }
    }

    /// Stop silences first and writes after, as a firing rings first: the sound does not wait
    /// for the disk, and an agent that dies in between rings the alarm again when it starts.
    @Test func stopSilencesBeforeItIsWrittenAndACrashBetweenRingsAgainAtStart() async throws {
        let crashed = FilePath(folder.string + "-crashed")
        defer { try? FileManager.default.removeItem(atPath: crashed.string) }
        let ringer = CrashingRinger(folder: folder, crashed: crashed)
        ringing(with: ringer)
        try runtime.start()
        let alarm = try await schedule(in: 60)
        pass(61)
        #expect(ringer.ringing == [alarm.id])
        _ = try await client.call(.apply(.stop, id: .id(alarm.id)))
        #expect(ringer.ringing.isEmpty && ringer.copied, "the sound stopped")

        // The agent died the moment the sound stopped: its successor rings the alarm again.
        let successor = Recorder()
        let afterCrash = AgentRuntime(store: AlarmStore(directory: crashed), settings: .init(), logger: .init(label: "test"), clock: clock,
                                      followers: [successor])
        try afterCrash.start()
        #expect(successor.alarms[alarm.id]?.state == .alerting, "not yet written when the sound stopped: it rings again")

        // The Stop was answered once written: an agent starting from the store now does not ring it.
        let answered = Recorder()
        let afterAnswer = AgentRuntime(store: AlarmStore(directory: FilePath(folder.string)), settings: .init(), logger: .init(label: "test"), clock: clock,
                                       followers: [answered])
        try afterAnswer.start()
        #expect(answered.alarms[alarm.id] == nil, "a one-shot alarm stopped is gone from the store")
    }

    @Test func aRuntimeThatGoesLeavesNoTimerToFireForIt() async throws {
        func timers() -> Int {
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            return fds.count { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == "anon_inode:[timerfd]" }
        }
        let before = timers()
        do {
            let zone = LocalTimeZone(localtimePath: "/etc/localtime", environment: ["TZ": "UTC"])
            let other = AgentRuntime(store: AlarmStore(directory: folder), settings: .init(), logger: .init(label: "test"),
                                     clock: LiveClock(zone: zone))
            try other.start()
            #expect(timers() == before + 1)
        }
        // Its timer's source went with it: none is left to fire into a runtime that is gone.
        #expect(timers() == before)
    }

    @Test func aChangeBeforeStartOrFromInsideAFollowerWaitsItsTurnAndIsAnswered() async throws {
        let request = AlarmRequest(schedule: .fixed(clock.now + 60), countdownDuration: nil,
                                   presentation: AlarmPresentation(alert: .init(title: "Early")), ring: RingOptions())
        var early: Result<AlarmRecord?, AlarmError>?
        client.outbox.send(.call(.schedule(id: UUID(), request: request, appID: ClientIdentity.userAppID), owner: nil) { early = $0 })
        await GLibLoop.idle()
        #expect(early == nil, "nothing is read before the alarms are loaded")
        try runtime.start()
        await runtime.quiet()
        #expect((try? early?.get())??.title == "Early", "answered once they are")

        // A change sent from inside a follower is handled after the change being followed.
        var cancelled: Result<AlarmRecord?, AlarmError>?
        recorder.whileFollowing = { [client, recorder] alarms in
            guard let added = alarms.records.first(where: { $0.title == "Test" }) else { return }
            recorder.whileFollowing = nil
            client.outbox.send(.call(.apply(.cancel, id: .id(added.id)), owner: nil) { cancelled = $0 })
        }
        let before = recorder.changes.count
        let alarm = try await schedule(in: 60)
        await runtime.quiet()
        #expect(recorder.deepest == 1, "follow was entered again while it ran")
        #expect(cancelled.map { (try? $0.get()) == .some(nil) } == true, "the cancel was answered: the alarm ended")
        // Its schedule followed, then the cancel: each change once, in turn.
        #expect(recorder.changes[before...].map { $0.map(\.id) } == [[alarm.id], [alarm.id]])
        #expect(recorder.changes[before...].map { $0.first?.record?.state } == [.scheduled, nil])
    }

    /// An event read after the runtime went (its parts outlive it at the agent's end) is
    /// refused, not dropped: its caller hears why.
    @Test func aChangeSentAfterTheRuntimeWentIsRefusedNotLeftUnanswered() async throws {
        try runtime.start()
        // The started runtime goes; its reader stays, reading the client's outbox.
        runtime = AgentRuntime(store: AlarmStore(directory: folder), settings: .init(), logger: .init(label: "test"), clock: clock)
        await #expect(throws: AgentRuntime.stopping) { try await schedule(in: 60) }
    }

    /// A runtime stopping (`settle`) moves nothing more, and answers what is still sent: no
    /// caller waits for ever.
    @Test func aChangeAfterTheRuntimeSettledIsRefusedNotLeftUnanswered() async throws {
        try runtime.start()
        runtime.settle()
        await #expect(throws: AgentRuntime.stopping) { try await schedule(in: 60) }
    }
}

/// The daemon runner shared by the agent and the wake helper.
@Suite("Daemon runner")
@GLibActor
struct DaemonRunnerTests {
    struct Refused: Error {}

    @Test func partsStartInOrderAndStopInReverse() async {
        var log: [String] = []
        let runner = DaemonRunner(parts: ["a", "b", "c"].map { name in
            .init(name, start: { log.append("start \(name)") }, stop: { done in log.append("stop \(name)"); done() })
        })
        runner.start()
        runner.stop(status: 0, reason: "test")
        let outcome = await runner.run()
        #expect(log == ["start a", "start b", "start c", "stop c", "stop b", "stop a"])
        #expect(outcome.status == 0)
    }

    @Test func aPartThatCannotStartStopsThoseBeforeItOnly() async {
        var log: [String] = []
        let runner = DaemonRunner(parts: [
            .init("a", start: { log.append("start a") }, stop: { done in log.append("stop a"); done() }),
            .init("b", start: { throw Refused() }, stop: { done in log.append("stop b"); done() }),
            .init("c", start: { log.append("start c") }),
        ])
        runner.start()
        let outcome = await runner.run()
        #expect(log == ["start a", "stop a"])
        #expect(outcome.status == 1)
        #expect(outcome.reason.contains("cannot start b"))
    }

    @Test func aPartThatDoesNotStopInTimeIsLeftBehindAtTheDeadline() async {
        var log: [String] = []
        let runner = DaemonRunner(parts: [
            .init("a", stop: { done in log.append("stop a"); done() }),
            .init("stuck", stop: { _ in log.append("stop stuck") }),
        ], stopDeadlineMilliseconds: 50, onLateStop: { log.append("late \($0)") })
        runner.start()
        runner.stop(status: 3, reason: "test")
        let outcome = await runner.run()
        #expect(log == ["stop stuck", "late stuck", "stop a"])
        #expect(outcome.status == 3)
    }
}
