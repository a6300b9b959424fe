import Foundation
@testable import ReveilleAgent
@testable import ReveilleAgentRuntime
import ReveilleCore
import ReveilleModel
import ReveilleRules
import ReveilleTimeZone
import Testing

/// What each subscriber's view learns from a change, in process: only what changed, only
/// what it may see, and an app learns nothing of other apps' changes.
@Suite("Alarm view updates")
struct AlarmViewUpdatesTests {
    let utc = GLibTimeZone(identifier: "UTC")!
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func timer(_ appID: String, seconds: TimeInterval = 600) throws -> AlarmRecord {
        let request = AlarmRequest(schedule: nil, countdownDuration: .init(preAlert: seconds, postAlert: nil),
                                   presentation: AlarmPresentation(alert: .init(title: "Tea")))
        return try AlarmRecord(id: UUID(), request: request, appID: appID, now: now, timeZone: utc)
    }

    @Test func eachViewGetsOnlyTheChangesItMaySee() throws {
        var views = AlarmViewUpdates()
        let mine = try timer("org.test.A"), theirs = try timer("org.test.B"), users = try timer(ClientIdentity.userAppID)
        let all: Set<AlarmViewUpdates.View> = [.user, .app("org.test.A"), .app("org.test.B")]
        let added = views.split([mine, theirs, users].map { AlarmChange(id: $0.id, record: $0) }, for: all)
        #expect(added[.user]?.changed.map(\.id) == [mine.id, theirs.id, users.id])
        #expect(added[.app("org.test.A")] == .init(changed: [mine]))
        #expect(added[.app("org.test.B")] == .init(changed: [theirs]))

        // An end carries no record: the view still hears of it, through the alarm's remembered app.
        let ended = views.split([AlarmChange(id: mine.id, record: nil)], for: all)
        #expect(ended[.user] == .init(removed: [mine.id]))
        #expect(ended[.app("org.test.A")] == .init(removed: [mine.id]))
        #expect(ended[.app("org.test.B")] == nil, "B learns nothing of A's alarm ending")
    }

    @Test func aBatchCarriesEachAlarmOnceWithItsLastValue() throws {
        var views = AlarmViewUpdates()
        let first = try timer("org.test.A")
        var later = first
        later.phase = .paused(remaining: 60, length: 600)
        let update = views.split([AlarmChange(id: first.id, record: first), AlarmChange(id: first.id, record: later)], for: [.user])
        #expect(update[.user] == .init(changed: [later]))
        // Added and ended in one batch: no view ever saw it, so none hears of it.
        let gone = try timer("org.test.A")
        #expect(views.split([AlarmChange(id: gone.id, record: gone), AlarmChange(id: gone.id, record: nil)], for: [.user]).isEmpty)
    }

    @Test func beginningToAlertIsToldOnceToItsViews() throws {
        var views = AlarmViewUpdates()
        let timer = try timer("org.test.A")
        var ringing = timer
        ringing.phase = .alerting(since: Date())
        let all: Set<AlarmViewUpdates.View> = [.user, .app("org.test.A"), .app("org.test.B")]
        #expect(views.split([AlarmChange(id: timer.id, record: timer)], for: all)[.user]?.startedAlerting == [])
        let fired = views.split([AlarmChange(id: timer.id, record: ringing)], for: all)
        #expect(fired[.user]?.startedAlerting == [timer.id] && fired[.app("org.test.A")]?.startedAlerting == [timer.id])
        #expect(fired[.app("org.test.B")] == nil)
        // Still alerting (its notification was redrawn, say): not told again.
        #expect(views.split([AlarmChange(id: timer.id, record: ringing)], for: all)[.user]?.startedAlerting == [])
    }

    @Test func viewsWithNoSubscriberAreRememberedButNotBuilt() throws {
        var views = AlarmViewUpdates()
        let alarm = try timer("org.test.A")
        #expect(views.split([AlarmChange(id: alarm.id, record: alarm)], for: []).isEmpty)
        // Its owner was remembered: an app that subscribes later hears that the alarm ended.
        let ended = views.split([AlarmChange(id: alarm.id, record: nil)], for: [.app("org.test.A")])
        #expect(ended[.app("org.test.A")] == .init(removed: [alarm.id]))
    }
}
