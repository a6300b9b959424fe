import Foundation
@testable import reveille
import ReveilleCore
import ReveilleModel
import ReveilleRules
import Testing

/// Issue 27, "Everyday use": what the CLI makes of titles and how it words an ended alarm, in process.
@Suite("Everyday use")
struct EverydayUseTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func record(_ title: String, timer: Bool = false, id: String? = nil, length: TimeInterval = 300) throws -> AlarmRecord {
        let request = AlarmRequest(
            schedule: timer ? nil : .relative(.init(time: .init(hour: 7, minute: 30), repeats: .never)),
            countdownDuration: .init(preAlert: timer ? length : nil, postAlert: 540),
            presentation: .reveille(title: title, secondaryButton: .snoozeButton, behavior: .countdown))
        return try AlarmRecord(id: id.flatMap(UUID.init(uuidString:)) ?? UUID(), request: request, appID: "reveille", now: now, timeZone: UTCTimeZone())
    }

    /// `reveille pause tea`: a title, regardless of case, names the one alarm that has it.
    @Test func aUniqueTitleStandsForTheID() throws {
        let tea = try record("Tea", timer: true), wake = try record("Wake up")
        #expect(try AlarmTarget.titled("tea", in: [wake, tea]).id == tea.id)
        #expect(try AlarmTarget.titled(" WAKE UP ", in: [wake, tea]).id == wake.id)
    }

    @Test func anAmbiguousTitleIsRefusedNamingEveryMatch() throws {
        let first = try record("Tea", timer: true), second = try record("TEA", timer: true), other = try record("Coffee")
        #expect {
            try AlarmTarget.titled("tea", in: [first, other, second])
        } throws: { error in
            let reason = (error as? AlarmError)?.reason ?? ""
            guard case .ambiguousID? = error as? AlarmError else { return false }
            return reason.contains("2 alarms have the title 'tea'") && reason.contains(AlarmSummary(first).name)
                && reason.contains(AlarmSummary(second).name) && !reason.contains("Coffee")
        }
    }

    /// An app may choose ids alike in their first 8 characters: `list` shows them as long as
    /// it takes to tell them apart (and 8 characters where that suffices).
    @Test func theListShowsIDsLongEnoughToTellThemApart() throws {
        let twins = try [record("One", id: "AAAAAAAA-0001-4000-8000-000000000001"), record("Two", id: "AAAAAAAA-0002-4000-8000-000000000002")]
        let table = AlarmSummary.table(twins.map { AlarmSummary($0, now: now) })
        #expect(table.dropFirst().map { $0.split(separator: " ").first } == ["aaaaaaaa-0001", "aaaaaaaa-0002"], "\(table)")
        let apart = try [record("One", id: "3F2A9C1E-0000-4000-8000-000000000003"), record("Two", id: "3F99AAAA-0000-4000-8000-000000000004")]
        #expect(AlarmSummary.table(apart.map { AlarmSummary($0, now: now) }).dropFirst().map { $0.split(separator: " ").first }
                == ["3f2a9c1e", "3f99aaaa"])
        // And where a title stands for them: the refusal names each so it can be given.
        let alike = try [record("Tea", id: "AAAAAAAA-0001-4000-8000-000000000001"), record("Tea", id: "AAAAAAAA-0002-4000-8000-000000000002")]
        #expect {
            try AlarmTarget.titled("tea", in: alike)
        } throws: { error in
            (error as? AlarmError)?.reason.contains(#"aaaaaaaa-0001 "Tea", aaaaaaaa-0002 "Tea""#) == true
        }
    }

    @Test func anUnknownTitleSaysNeitherIDNorTitleMatched() throws {
        #expect {
            try AlarmTarget.titled("soup", in: [try record("Tea")])
        } throws: { error in
            guard case .notFound(let reason)? = error as? AlarmError else { return false }
            return reason == "no alarm has an id starting with 'soup' or the title 'soup'; `reveille list` shows them"
        }
    }

    /// `cancel` says what the alarm would have done, not that it "has ended, which would have rung".
    @Test func aCancelledAlarmSaysWhenItWouldHaveRung() throws {
        let summary = AlarmSummary(try record("Pizza", timer: true), now: now)
        let said = summary.sentence(.cancelled, summary.endedSentence)
        #expect(said.hasPrefix("Cancelled timer \(summary.name): it would have rung "), "\(said)")
        #expect(!said.contains("has ended"))
    }

    /// Issue 49: `status` named a running timer as the next alarm when an alarm rang before it
    /// (the list puts timers first); `--json` had been right. The next is the first by time.
    @Test func theNextAlarmIsTheOneThatRingsFirst() throws {
        // 07:30 tomorrow, in 23.5 hours; the timer ends in a day.
        let alarm = try record("Wake up"), timer = try record("Bread", timer: true, length: 86_400)
        #expect(alarm.fireDate! < timer.fireDate!)
        let listed = [timer, alarm].sortedForDisplay().map(AlarmListing.init)
        #expect(listed.first?.id == timer.id, "the list shows the timer first")
        #expect(Status.nextAlarm(listed)?.id == alarm.id)
        // A switched-off alarm does not ring: the timer is next.
        var off = alarm
        off.disabled = true
        #expect(Status.nextAlarm([timer, off].map(AlarmListing.init))?.id == timer.id)
        let soon = try record("Tea", timer: true)
        #expect(Status.nextAlarm([timer, alarm, soon].map(AlarmListing.init))?.id == soon.id)
        #expect(Status.nextAlarm([]) == nil)
    }
}
