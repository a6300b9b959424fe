import Foundation
@testable import ReveilleAgentRuntime
import ReveilleCore
import ReveilleModel
import ReveilleRules
import ReveilleTimeZone
import ReveilleWake
import SystemPackage
import Testing

/// When the machine wakes for alarms, and what the wake helper accepts, in process.
@Suite("Wake rules")
struct WakeRulesTests {
    let utc = GLibTimeZone(identifier: "UTC")!
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func timer(_ seconds: TimeInterval, wakes: Bool? = nil) throws -> AlarmRecord {
        let request = AlarmRequest(schedule: nil, countdownDuration: .init(preAlert: seconds, postAlert: nil),
                                   presentation: AlarmPresentation(alert: .init(title: "Tea")),
                                   ring: RingOptions(wakesMachine: wakes))
        return try AlarmRecord(id: UUID(), request: request, appID: "reveille", now: now, timeZone: utc)
    }

    /// An alarm at `seconds` from now (a fixed date: countdowns are limited to 366 days).
    func alarm(in seconds: TimeInterval) throws -> AlarmRecord {
        let request = AlarmRequest(schedule: .fixed(now + seconds), countdownDuration: nil,
                                   presentation: AlarmPresentation(alert: .init(title: "Far")), ring: RingOptions())
        return try AlarmRecord(id: UUID(), request: request, appID: "reveille", now: now, timeZone: utc)
    }

    @Test func theMachineWakesALeadBeforeTheSoonestAlarmThatMayWakeIt() throws {
        let policy = WakePolicy(enabled: true, lead: 60)
        let soon = try timer(600, wakes: false), later = try timer(3600)
        #expect(policy.wakeInstant(for: [soon, later], now: now) == now + 3540, "the opted-out alarm does not count")
        #expect(policy.wakes(later) && !policy.wakes(soon))
        #expect(policy.wakeInstant(for: [soon], now: now) == nil)
        // Due in less than the lead: as soon as a suspend can still be woken from.
        #expect(policy.wakeInstant(for: [try timer(30)], now: now) == now + WakePolicy.minimumDelay)
        // Paused and alerting alarms have no instant to wake for.
        let paused = try #require(try later.applying(.pause, now: now, timeZone: utc))
        #expect(policy.wakeInstant(for: [paused], now: now) == nil)
        #expect(WakePolicy(enabled: false, lead: 60).wakeInstant(for: [later], now: now) == nil)
    }

    @Test func aKernelAlarmTimerIsKeptALeadBeforeTheSoonestAlarmThenAtItsInstant() throws {
        let policy = WakePolicy(enabled: true, lead: 60)
        let soon = try timer(600, wakes: false), later = try timer(3600)
        #expect(policy.alarmTimerInstant(soonestDue: later.fireDate, now: now) == now + 3540)
        #expect(policy.alarmTimerInstant(soonestDue: nil, now: now) == nil)
        // Within the lead, the alarm's own instant: a suspend now still wakes for it.
        #expect(policy.alarmTimerInstant(soonestDue: try timer(30).fireDate, now: now) == now + 30)
        // The kernel sets the RTC at suspend, so an alarm beyond the helper's reach is armed too.
        let far = try alarm(in: 400 * 86_400)
        #expect(policy.alarmTimerInstant(soonestDue: far.fireDate, now: now) == now + 400 * 86_400 - 60)
        // The alarms it is asked about are those that wake the machine: never a disabled policy's, nor one opted out.
        #expect(!WakePolicy(enabled: false, lead: 60).wakes(later) && !policy.wakes(soon))
    }

    @Test func theHelperAcceptsOnlyAnInstantInTheFutureWithinAYear() {
        let now: Int64 = 1_800_000_000
        #expect(WakeRequest.validate(UInt64(now + 3600), now: now) == .success(UInt64(now + 3600)))
        for bad: UInt64 in [0, UInt64(now), UInt64(now - 10), UInt64(now + 367 * 86_400), UInt64.max] {
            guard case .failure(let refusal) = WakeRequest.validate(bad, now: now) else {
                Issue.record("\(bad) was accepted"); continue
            }
            #expect(refusal.reason.contains("accepted:"), "\(refusal.reason)")
        }
    }

    @Test func eachUserHasItsOwnShareOfTheChecksWaitingForPolkit() {
        var pending = PendingChecks()
        #expect(pending.isEmpty)
        for _ in 0..<PendingChecks.perUser { #expect(pending.admit(user: 1000) == nil) }
        guard let refusal = pending.admit(user: 1000) else { Issue.record("a check past the share was admitted"); return }
        #expect(refusal.reason.contains("user 1000") && refusal.reason.contains("accepted: at most \(PendingChecks.perUser)"), "\(refusal.reason)")
        #expect(pending.admit(user: 1001) == nil, "another user is not held up")
        pending.finish(user: 1000)
        #expect(pending.admit(user: 1000) == nil, "an answered check frees its place")
        for _ in 0...PendingChecks.perUser { pending.finish(user: 1000) }
        pending.finish(user: 1001)
        pending.finish(user: 4242)
        #expect(pending.isEmpty, "finishing more than was admitted, or for nobody, leaves nothing counted")
        // All users together stay below the bus's 128 replies per connection.
        #expect(PendingChecks.total < 128)
        for user in 0..<UInt32(PendingChecks.total / PendingChecks.perUser) {
            for _ in 0..<PendingChecks.perUser { _ = pending.admit(user: user) }
        }
        guard let full = pending.admit(user: 99_999) else { Issue.record("a check past the total was admitted"); return }
        #expect(full.reason.contains("accepted: at most \(PendingChecks.total)"), "\(full.reason)")
    }

    /// The helper's XML declares its table's methods, each read back into its case by name.
    @Test func theHelpersMethodsAreItsTables() {
        let declared = WakeHelperInterface.introspectionXML.matches(of: /<method name="(\w+)"/).map { String($0.1) }
        #expect(declared == WakeHelperMethod.allCases.map(\.name))
        #expect(WakeHelperMethod.allCases.allSatisfy { WakeHelperMethod(named: $0.name) == $0 })
        #expect(WakeHelperInterface.introspectionXML.contains(#"<arg name="instant" type="t" direction="in"/>"#))
        #expect(WakeHelperInterface.introspectionXML.contains("at most \(WakeHelperInterface.pendingChecksPerUser) calls of one user"))
    }

    @Test func theIdleExitIsWholeSecondsFromOneToADay() {
        #expect(IdleExit.seconds("30") == .success(30))
        #expect(IdleExit.seconds("1") == .success(1))
        #expect(IdleExit.seconds("86400") == .success(86_400))
        for bad in ["0", "86401", "5000000", "4294967296", "99999999999999999999", "-1", "", " 30", "3.5", "soon"] {
            guard case .failure(let refusal) = IdleExit.seconds(bad) else { Issue.record("'\(bad)' was accepted"); continue }
            #expect(refusal.reason.contains("'\(bad)'") && refusal.reason.contains("accepted: whole seconds from 1 to 86400"), "\(refusal.reason)")
        }
    }

    @Test func theRTCIsWrittenOnlyWithAnInstantValidAtTheMomentOfWriting() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-rtc-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try #require(FileManager.default.createFile(atPath: folder + "/wakealarm", contents: Data()))
        let rtc = RTCWakeAlarm(folder: FilePath(folder))
        let now: Int64 = 1_800_000_000
        #expect(throws: WakeRequest.Refusal.self) { try rtc.set(UInt64(now - 1), now: now) }
        #expect(throws: WakeRequest.Refusal.self) { try rtc.set(UInt64(now + WakeHelperInterface.maximumLead + 1), now: now) }
        #expect(try rtc.current() == 0, "nothing written for a refused instant")
        try rtc.set(UInt64(now + 60), now: now)
        #expect(try rtc.current() == UInt64(now + 60))
    }

    @Test func anAlarmBeyondTheHelpersReachIsPlannedForALaterSuspend() throws {
        let policy = WakePolicy(enabled: true, lead: 60)
        let reach = TimeInterval(WakeHelperInterface.maximumLead)
        #expect(policy.plan(for: [], now: now) == .none)
        #expect(policy.plan(for: [try alarm(in: 3600)], now: now) == .wake(now + 3540))
        // The wake-up a lead before the alarm: exactly at the reach, and a second past it.
        #expect(policy.plan(for: [try alarm(in: reach + 60)], now: now) == .wake(now + reach))
        #expect(policy.plan(for: [try alarm(in: reach + 61)], now: now) == .beyondReach(now + reach + 1))
        #expect(policy.plan(for: [try alarm(in: 400 * 86_400)], now: now) == .beyondReach(now + 400 * 86_400 - 60))
        // A fraction of a second counts as the whole second the helper would be asked for.
        #expect(policy.plan(for: [try alarm(in: reach + 60.5)], now: now) == .beyondReach(now + reach + 0.5))
    }

    @Test func theWakeUpRecordIsReadBackAndAnythingElseIsUnknown() {
        for memory in [WakeMemory.none, .set(1_800_000_000)] {
            #expect(WakeMemory(record: memory.record) == memory)
        }
        #expect(WakeMemory.unknown.record == nil, "unknown is what no record means")
        for damaged in [nil, Data(), Data("{".utf8), Data("{\"wakeAlarm\": -1}".utf8), Data("{\"wakeAlarm\": \"soon\"}".utf8),
                        Data("[]".utf8), Data([0xff, 0xfe])] {
            #expect(WakeMemory(record: damaged) == .unknown, "\(String(decoding: damaged ?? Data(), as: UTF8.self))")
        }
        #expect(!WakeMemory.none.mayBeArmed)
        #expect(WakeMemory.set(1).mayBeArmed && WakeMemory.unknown.mayBeArmed, "cleared at start")
    }

    @Test func onlyAWakeUpThisAgentSetOrMayHaveSetIsCleared() {
        let mine: UInt64 = 1_800_000_000, another: UInt64 = 1_900_000_000
        #expect(WakeMemory.set(mine).clears(rtcHolds: mine))
        #expect(!WakeMemory.set(mine).clears(rtcHolds: another), "another's that replaced it stays")
        #expect(!WakeMemory.set(mine).clears(rtcHolds: 0), "nothing to clear")
        #expect(WakeMemory.unknown.clears(rtcHolds: another), "unknown: whatever is set may be this agent's")
        #expect(!WakeMemory.unknown.clears(rtcHolds: 0))
        #expect(!WakeMemory.none.clears(rtcHolds: another) && !WakeMemory.none.clears(rtcHolds: nil))
        #expect(WakeMemory.set(mine).clears(rtcHolds: nil) && WakeMemory.unknown.clears(rtcHolds: nil),
                "the helper could not say: cleared to be sure")
    }
}
