import Foundation
@testable import ReveilleAgentRuntime
import ReveilleCore
import ReveilleModel
import ReveilleTimeZone
import Testing

/// Issue 27: the Missed notice says how long the alarm really rang (a 5 s ring limit once read
/// "for 1 minute").
@Suite("Missed notice")
struct MissedNoticeTests {
    let utc = GLibTimeZone(identifier: "UTC")!
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func rangUnanswered(for ringLimit: TimeInterval?) -> String {
        let request = AlarmRequest(schedule: nil, countdownDuration: .init(preAlert: 60, postAlert: nil),
                                   presentation: AlarmPresentation(alert: .init(title: "Tea")), ring: RingOptions(ringLimit: ringLimit))
        let record = AlarmRecord(id: UUID(), request: request, appID: "test", phase: .alerting(since: now))
        return NotificationContent.missed(record, due: now, reason: .unanswered, timeZone: utc).body
    }

    @Test(arguments: [(5.0, "for 5 seconds and"), (1, "for 1 second and"), (60, "for 1 minute and"), (90, "for 1 minute 30 seconds and"),
                      (600, "for 10 minutes and"), (5400, "for 1 hour 30 minutes and"), (7200, "for 2 hours and")])
    func theNoticeSaysTheRealLength(ringLimit: TimeInterval, said: String) {
        #expect(rangUnanswered(for: ringLimit).contains(said), "\(rangUnanswered(for: ringLimit))")
    }

    @Test func withoutALimitItSaysTheDefaultsTenMinutesAndNothingTraps() {
        #expect(rangUnanswered(for: nil).contains("for 10 minutes and"))
        #expect(NotificationContent.spokenLength(.nan) == "0 seconds" && !NotificationContent.spokenLength(.infinity).isEmpty)
    }
}
