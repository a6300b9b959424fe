import Foundation
@testable import reveille
import ReveilleCalendar
import ReveilleRules
import Testing

/// What `reveille sync status` says, from the agent's status: the account and the last round,
/// and what happened that a person would otherwise not know (issue 49): the alarms removed
/// here in the last day because they were removed elsewhere, and a damaged sync state kept aside.
@Suite("Sync status text")
struct SyncStatusTextTests {
    let aside = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15 08:00 UTC

    @Test func itSaysTheRemovalsOfTheLastDayAndWhenADamagedStateWasKeptAside() {
        let status = SyncStatus(configured: true, url: "https://dav.example/reveille/", user: "ana", rounds: 4, lastRound: aside,
                                alarms: 7, interval: 30, removalsInLastDay: 3, stateKeptAside: aside,
                                stateKeptAsideAs: "sync.json.unreadable-1")
        let lines = SyncStatusCommand.lines(status, timeZone: UTCTimeZone())
        #expect(lines.contains("In the last 24 hours, 3 alarms were removed here because they were deleted on the server or on another computer."),
                "\(lines)")
        #expect(lines.contains { $0.hasPrefix("On ") && $0.contains("08:00") && $0.contains("the sync state was damaged: it was kept aside as sync.json.unreadable-1") },
                "\(lines)")
        #expect(lines.last == "The last round worked.")
        var one = status
        one.removalsInLastDay = 1
        #expect(SyncStatusCommand.lines(one, timeZone: UTCTimeZone()).contains(
            "In the last 24 hours, 1 alarm was removed here because it was deleted on the server or on another computer."))
    }

    @Test func quietWhenNothingHappenedAndOffSaysWhy() {
        let quiet = SyncStatusCommand.lines(SyncStatus(configured: true, url: "https://dav.example/r/", user: "ana", alarms: 1,
                                                       removalsInLastDay: 0), timeZone: UTCTimeZone())
        #expect(quiet == ["Syncing with https://dav.example/r/ as ana, every 30 seconds.", "1 alarm travels.", "The last round worked."])
        let off = SyncStatusCommand.lines(SyncStatus(configured: false, problem: "neither file could be read"), timeZone: UTCTimeZone())
        #expect(off.first?.hasPrefix("Sync is off") == true && off.last == "Last problem: neither file could be read")
    }
}
