import Foundation
import ReveilleAgentTesting
import ReveilleModel
@testable import ReveilleRules
import ReveilleWords
import Testing

/// Issue 27: an edit changes only what it names, and a skip can be undone.
extension AlarmEngineTests {
    func weekdays(_ title: String = "Up") -> AlarmRequest {
        request(schedule: relative(7, 0, everyDay), title: title)
    }

    /// Renaming a running timer with 45 s left leaves it 45 s, not a new minute.
    @Test func renamingARunningTimerKeepsItsTimeLeft() throws {
        var harness = Harness(now: start, timeZone: utc)
        let tea = try harness.schedule(timer(60))
        harness.now = start + 15
        var renamed = tea.request
        renamed.presentation.alert.title = "Green tea"
        let after = try #require(try harness.perform(.update(id: .id(tea.id), request: renamed)))
        #expect(after.title == "Green tea" && after.fireDate == start + 60, "\(String(describing: after.fireDate))")
        #expect(harness.armed == start + 60)
        // A new length is a new countdown, from now.
        let longer = try #require(try harness.perform(.update(id: .id(tea.id), request: timer(120, title: "Green tea"))))
        #expect(longer.fireDate == start + 15 + 120)
    }

    @Test func renamingAPausedTimerKeepsItPaused() throws {
        var harness = Harness(now: start, timeZone: utc)
        let tea = try harness.schedule(timer(60))
        harness.now = start + 20
        try harness.perform(.apply(.pause, id: .id(tea.id)))
        harness.now = start + 100
        let after = try #require(try harness.perform(.update(id: .id(tea.id), request: timer(60, title: "Other"))))
        #expect(after.state == .paused && after.pausedTimeRemaining == 40)
    }

    /// Renaming a skipped alarm keeps the skip; a new time schedules it anew.
    @Test func renamingASkippedAlarmKeepsTheSkip() throws {
        var harness = Harness(now: start, timeZone: utc)
        let up = try harness.schedule(weekdays())
        let skipped = try #require(try harness.perform(.skip(id: .id(up.id))))
        #expect(skipped.skippedOccurrence(now: harness.now) == up.fireDate)
        let renamed = try #require(try harness.perform(.update(id: .id(up.id), request: weekdays("Get up"))))
        #expect(renamed.title == "Get up" && renamed.fireDate == skipped.fireDate)
        #expect(renamed.skippedOccurrence(now: harness.now) == up.fireDate)
    }

    @Test func unskipRingsTheSkippedOccurrenceAfterAll() throws {
        var harness = Harness(now: start, timeZone: utc)
        let up = try harness.schedule(weekdays())
        try harness.perform(.skip(id: .id(up.id)))
        let restored = try #require(try harness.perform(.unskip(id: .id(up.id))))
        #expect(restored.fireDate == up.fireDate && restored.skippedOccurrence(now: harness.now) == nil)
        #expect(harness.armed == up.fireDate)
        #expect {
            try harness.perform(.unskip(id: .id(up.id)))
        } throws: { error in
            guard let refusal = error as? AlarmRuleError, case .invalidState(let reason) = AlarmError(refusal) else { return false }
            return reason.contains("has no skipped occurrence ahead")
        }
    }

    /// A skip stops being one once its occurrence has passed: nothing to undo then.
    @Test func aSkipEndsWhenItsOccurrencePasses() throws {
        var harness = Harness(now: start, timeZone: utc)
        let up = try harness.schedule(weekdays())
        let skipped = try #require(try harness.perform(.skip(id: .id(up.id))))
        #expect(skipped.skippedOccurrence(now: up.fireDate! + 1) == nil)
    }
}
