import Foundation
import ReveilleCore
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// `reveille export` and `reveille import` end to end: two sessions with separate state
/// folders, the file between them, and calendars other programs wrote.
@Suite("iCalendar files end to end", .waitsOnItsOwnThread)
struct CalendarFileTests {
    /// What `list --json` says of an alarm, less what moves with the clock.
    private func listed(_ session: TestSession) throws -> [[String: String]] {
        let result = try session.cli("list", "--json")
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
        return objects.map { object in
            object.filter { $0.key != "timeRemaining" }.mapValues { "\($0)" }
        }
    }

    private static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/corpus/ical/\(name)").path
    }

    @Test func exportThenImportOnAFreshStateFolderRecreatesEveryAlarm() throws {
        let laptop = try TestSession(audio: .none)
        try laptop.startAgent()
        let added = [
            try laptop.cli("add", "7:30", "--days", "weekdays", "--title", "Work; early, \\ really", "--sound", "bell", "--volume", "80%",
                           "--fade", "30s", "--ring-limit", "2m", "--snooze", "5m", "--no-wake"),
            try laptop.cli("add", "6:15", "--title", "Next morning", "--secondary", "none"),
            try laptop.cli("add", "2035-12-24 18:00", "--title", "Réveillon 🎄", "--secondary", "open:org.gnome.Calendar", "--pre-alert", "10m"),
            try laptop.cli("add", "22:00", "--days", "sun", "--title", "Bins", "--secondary", "repeat"),
            try laptop.cli("timer", "2h", "--title", "Bread"),
        ]
        #expect(added.allSatisfy { $0.status == 0 }, "\(added.map(\.stderr))")
        let bins = try #require(try listed(laptop).first { $0["title"] == "Bins" }?["id"])
        #expect(try laptop.cli("disable", bins).status == 0)
        let file = laptop.directory + "/alarms.ics"
        let export = try laptop.cli("export", "--output", file)
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stderr.contains("Wrote 5 of 5 alarms to \(file)."), "\(export.stderr)")
        var status = stat()
        #expect(stat(file, &status) == 0 && status.st_mode & 0o777 == 0o600, "the file is private")

        let desktop = try TestSession(audio: .none)
        try desktop.startAgent()
        let preview = try desktop.cli("import", file, "--dry-run")
        #expect(preview.status == 0 && preview.stdout.split(separator: "\n").count == 5, "\(preview.stdout)\(preview.stderr)")
        #expect(try listed(desktop).isEmpty, "a dry run adds nothing")
        let imported = try desktop.cli("import", file)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("Added 5 of 5 alarms from \(file)."), "\(imported.stdout)")
        let before = try listed(laptop), after = try listed(desktop)
        #expect(after.count == before.count)
        for alarm in before {
            let copy = try #require(after.first { $0["id"] == alarm["id"] }, "\(alarm["title"] ?? "")")
            if alarm["kind"] == "timer" {
                // A running timer ends when it ended there, to the second.
                let ends = [alarm, copy].compactMap { $0["fireDate"].flatMap { ISO8601Local.parse($0, defaultTimeZone: UTCTimeZone()) } }
                #expect(ends.count == 2 && abs(ends[0].timeIntervalSince(ends[1])) < 1, "\(ends)")
                #expect(copy.filter { !["fireDate", "preAlert"].contains($0.key) } == alarm.filter { !["fireDate", "preAlert"].contains($0.key) })
            } else {
                #expect(copy == alarm)
            }
        }
        // Again: every alarm is already there, and stays as it is.
        let again = try desktop.cli("import", file, "--yes")
        #expect(again.status == 0 && again.stderr.components(separatedBy: "is already here; left as it is").count == 6, "\(again.stderr)")
        #expect(try listed(desktop).count == 5)
    }

    @Test func calendarsOtherProgramsWroteImportAndWhatCannotBeMappedIsNamed() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let thunderbird = try session.cli("import", Self.fixture("thunderbird.ics"), "--yes")
        #expect(thunderbird.status == 0 && thunderbird.stderr.isEmpty, "\(thunderbird.stderr)")
        #expect(thunderbird.stdout.contains("Added 3 of 3 alarms"), "\(thunderbird.stdout)")
        let gnome = try session.cli("import", Self.fixture("gnome-calendar.ics"), "--yes")
        #expect(gnome.status == 0 && gnome.stdout.contains("Added 1 of 1 alarm"), "\(gnome.stdout)")
        #expect(gnome.stderr.contains("Not imported: \"New Year's Eve\" (VEVENT f00dfeedf00dfeedf00dfeedf00dfeed): RRULE FREQ=MONTHLY;BYMONTHDAY=31 cannot be held"),
                "\(gnome.stderr)")
        let rfc = try session.cli("import", Self.fixture("rfc5545-alarms.ics"), "--yes")
        #expect(rfc.stdout.contains("Added 9 of 9 alarms"), "\(rfc.stdout)")
        #expect(rfc.stderr.contains("ACTION:EMAIL reminder is not rung"), "\(rfc.stderr)")
        let titles = try listed(session).compactMap { $0["title"] }
        for title in ["Dentist", "Gym", "Return library books", "Réveillon", "Annual Employee Review", "Breakfast meeting", "Submit Income Taxes"] {
            #expect(titles.contains(title), "\(title) in \(titles)")
        }
        // Nothing there to ring: said, with a failing status.
        let acknowledged = try session.cli("import", Self.fixture("rfc9074-snooze.ics"), "--yes")
        #expect(acknowledged.status == 65 && acknowledged.stdout.contains("Nothing to import"), "\(acknowledged.stdout)")
        #expect(acknowledged.stderr.contains("ACKNOWLEDGED") && acknowledged.stderr.contains("RELTYPE=SNOOZE"), "\(acknowledged.stderr)")
    }

    @Test func aHostileFileIsRefusedBeforeItIsRead() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let huge = session.directory + "/huge.ics"
        #expect(FileManager.default.createFile(atPath: huge, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: huge))
        try handle.truncate(atOffset: 100 << 20)
        try handle.close()
        let refused = try session.cli("import", huge)
        #expect(refused.status == 64 && refused.stderr.contains("is more than 16777216 bytes; at most 16777216 are accepted"), "\(refused.stderr)")
        let valarm = "BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:x\r\nTRIGGER:PT0S\r\nEND:VALARM\r\n"
        let many = session.directory + "/many.ics"
        try ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:many\r\nDTSTART:20350101T000000Z\r\n"
             + String(repeating: valarm, count: 10_000) + "END:VEVENT\r\nEND:VCALENDAR\r\n").write(toFile: many, atomically: true, encoding: .utf8)
        let tooMany = try session.cli("import", many)
        #expect(tooMany.status == 64 && tooMany.stderr.contains("VEVENT many has 10000 VALARMs; at most 64 are accepted in one"), "\(tooMany.stderr)")
        #expect(try listed(session).isEmpty)
    }

    /// Issue 49: `export --output out.ics`, a bare name, wrote the file, then exited 64 with
    /// "RenamedButNotSynced(underlying: No such file or directory)" and the usage text. A file
    /// that cannot be written is an error of its own (74), never a usage error.
    @Test func aBareFileNameIsWrittenAndAFailedWriteIsNoUsageError() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        #expect(try session.cli("add", "7:30", "--title", "Wake up").status == 0)
        let folder = session.directory + "/exports"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let bare = try Subprocess.run("/bin/sh", ["-c", "cd \"$1\" && exec \"$2\" export --output out.ics", "sh", folder, session.binaries + "/reveille"],
                                      environment: session.environment)
        #expect(bare.status == 0 && bare.stderr == "Wrote 1 of 1 alarm to out.ics.\n", "\(bare.status) \(bare.stderr)")
        let written = (try? String(contentsOfFile: folder + "/out.ics", encoding: .utf8)) ?? ""
        #expect(written.contains("SUMMARY:Wake up"), "\(written)")

        let nowhere = try session.cli("export", "--output", folder + "/missing/out.ics")
        #expect(nowhere.status == 74, "\(nowhere.status) \(nowhere.stderr)")
        #expect(nowhere.stderr.hasPrefix("Error: could not write \(folder)/missing/out.ics: ") && !nowhere.stderr.contains("Usage:"),
                "\(nowhere.stderr)")
    }
}
