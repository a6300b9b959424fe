import Foundation
import ReveilleAgentTesting
import ReveilleModel
@testable import ReveilleRules
import Testing

/// A client's copy of the alarms, kept from the list and the updates that follow it.
@Suite("Alarm list mirror")
struct AlarmListMirrorTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func timer(_ seconds: TimeInterval) throws -> AlarmRecord {
        let request = AlarmRequest(schedule: nil, countdownDuration: .init(preAlert: seconds, postAlert: nil),
                                   presentation: AlarmPresentation(alert: .init(title: "Tea")))
        return try AlarmRecord(id: UUID(), request: request, appID: "org.test.A", now: now, timeZone: UTCTimeZone())
    }

    @Test func updatesApplyToTheListInDisplayOrder() throws {
        let soon = try timer(60), later = try timer(600), latest = try timer(6000)
        var mirror = AlarmListMirror()
        #expect(mirror.received(list: [later, soon]).map(\.id) == [soon.id, later.id])
        #expect(mirror.received(changed: [latest], removed: [soon.id])?.map(\.id) == [later.id, latest.id])
        var paused = later
        paused.phase = phase(.paused)
        #expect(mirror.received(changed: [paused], removed: [])?.map(\.id) == [latest.id, later.id], "paused sorts last")
    }

    @Test func updatesThatOvertakeTheListWaitForItAndApplyOnce() throws {
        let kept = try timer(60), added = try timer(600), ended = try timer(30)
        var mirror = AlarmListMirror()
        #expect(mirror.received(changed: [added], removed: [ended.id]) == nil, "no list yet: nothing to show")
        // The list may already hold the update's effect; applying it again changes nothing.
        #expect(mirror.received(list: [kept, added, ended]).map(\.id) == [kept.id, added.id])
        #expect(mirror.isSynchronized)
    }

    @Test func awaitingAnotherAgentsListForgetsTheOldOne() throws {
        let old = try timer(60), new = try timer(600)
        var mirror = AlarmListMirror()
        _ = mirror.received(list: [old])
        mirror.awaitList()
        #expect(!mirror.isSynchronized)
        #expect(mirror.received(list: [new]).map(\.id) == [new.id], "the new agent's list replaces the old")
    }

    @Test func displayOrderIsAlertingCountdownScheduledPausedThenByInstant() throws {
        var alerting = try timer(600), paused = try timer(1)
        alerting.phase = phase(.alerting)
        paused.phase = phase(.paused)
        let countdown = try timer(300), countdownSooner = try timer(100)
        let sorted = [paused, countdown, alerting, countdownSooner].sortedForDisplay()
        #expect(sorted.map(\.id) == [alerting.id, countdownSooner.id, countdown.id, paused.id])
    }
}
