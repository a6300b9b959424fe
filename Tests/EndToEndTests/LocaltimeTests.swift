import Foundation
import ReveilleCore
import ReveilleModel
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import ReveilleTimeZone
import Testing

/// /etc/localtime as a regular file, a copy of a zone's data (container images, some
/// installers): the agent reads its zone and follows it when it is rewritten or replaced.
@Suite("A regular-file localtime end to end", .waitsOnItsOwnThread)
struct LocaltimeTests {
    /// When 07:30 next comes in `zone`, as the agent's JSON writes it.
    func nextHalfPastSeven(in zone: String) -> String {
        let next = Alarm.Schedule.relative(.init(time: .init(hour: 7, minute: 30), repeats: .never))
            .nextFireDate(after: Date(), in: GLibTimeZone(identifier: zone)!)!
        return ISO8601Local.millisecondString(from: next, in: UTCTimeZone())
    }

    func zoneData(_ zone: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/" + zone))
    }

    @Test func aRegularFileIsReadAndFollowedWhenRewrittenInPlaceOrRenamedOver() throws {
        let session = try TestSession(audio: .none)
        let file = session.directory + "/localtime"
        try zoneData("Europe/Berlin").write(to: URL(fileURLWithPath: file))
        try session.startAgent(["--localtime", file], environment: ["TZ": nil])
        let alarm = try session.cliJSON(AlarmJSON.self, "add", "7:30", "--title", "Wake")
        #expect(alarm.fireDate == nextHalfPastSeven(in: "Europe/Berlin"), "Berlin's 07:30, not UTC's")

        // Rewritten in place, as `cp` does: the same inode, truncated, then written.
        let handle = try #require(FileHandle(forWritingAtPath: file))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: try zoneData("America/New_York"))
        try handle.close()
        let newYork = nextHalfPastSeven(in: "America/New_York")
        _ = try eventually(timeout: 20, "the alarm to move to 07:30 New York time") {
            try session.cliJSON(AlarmJSON.self, "show", alarm.id).fireDate == newYork ? true : nil
        }

        // Replaced: a new regular file renamed over it.
        try zoneData("Asia/Tokyo").write(to: URL(fileURLWithPath: file + ".new"))
        guard rename(file + ".new", file) == 0 else { throw Subprocess.Failure("rename failed") }
        let tokyo = nextHalfPastSeven(in: "Asia/Tokyo")
        _ = try eventually(timeout: 20, "the alarm to move to 07:30 Tokyo time") {
            try session.cliJSON(AlarmJSON.self, "show", alarm.id).fireDate == tokyo ? true : nil
        }
    }
}
