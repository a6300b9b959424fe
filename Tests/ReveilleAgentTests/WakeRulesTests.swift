import Foundation
import Testing
@testable import ReveilleAgent
import ReveilleCore
import ReveilleTimeZone
import ReveilleWake

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

    @Test func theMachineWakesALeadBeforeTheSoonestAlarmThatMayWakeIt() throws {
        let policy = WakePolicy(enabled: true, lead: 60)
        let soon = try timer(600, wakes: false), later = try timer(3600)
        #expect(policy.wakeInstant(for: [soon, later], now: now) == now + 3540, "the opted-out alarm does not count")
        #expect(policy.holdsInhibitor(for: [soon, later]))
        #expect(!policy.holdsInhibitor(for: [soon]))
        #expect(policy.wakeInstant(for: [soon], now: now) == nil)
        // Due in less than the lead: as soon as a suspend can still be woken from.
        #expect(policy.wakeInstant(for: [try timer(30)], now: now) == now + WakePolicy.minimumDelay)
        // Paused and alerting alarms have no instant to wake for.
        let paused = try #require(try later.applying(.pause, now: now, timeZone: utc))
        #expect(policy.wakeInstant(for: [paused], now: now) == nil)
        #expect(WakePolicy(enabled: false, lead: 60).wakeInstant(for: [later], now: now) == nil)
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
}
