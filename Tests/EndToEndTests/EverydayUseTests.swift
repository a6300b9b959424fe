import Foundation
import ReveilleCore
import ReveilleModel
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// Issue 27, "Everyday use", end to end: watch on a pseudo-terminal, edit and skip through the
/// agent, the installed completion and the package's copyright.
@Suite("Everyday use end to end", .waitsOnItsOwnThread)
struct EverydayUseEndToEndTests {
    struct Summary: Decodable {
        var id: String, title: String, state: String, fireDate: String?, timeRemaining: Double?, skipped: String?
    }

    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// A timer is selected when another starts ringing: the ringing one takes the selection,
    /// `s` on the other asks first, and `s` stops what rings, not what was selected.
    @Test func watchStopsWhatRingsNotWhatWasSelected() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let long = try session.cliJSON(Summary.self, "timer", "1h", "--title", "Long")
        let short = try session.cliJSON(Summary.self, "timer", "6s", "--title", "Short")
        let (down, up) = ("\u{1B}[B", "\u{1B}[A")
        // The short timer sorts first; down selects the long one before the short one rings.
        let keys = [down, "wait:ringing", down, "s", "wait:instead? y/n", "n", "wait:Not stopped.", up, "s", "wait:Stopped timer"]
        let result = try Subprocess.run("/usr/bin/python3", [CLITests.watchDriver, session.binaries + "/reveille", "INT"] + keys,
                                        environment: session.environment, timeout: 60)
        let run = try JSONDecoder().decode(CLITests.WatchRun.self, from: Data(result.stdout.utf8))
        #expect(run.screens.count == keys.count + 1, "\(result.stdout)\(result.stderr)")
        guard run.screens.count == keys.count + 1 else { return }
        #expect(run.screens[2].contains("ringing"), "\(run.screens[2].debugDescription)")
        let question = "timer \(short.id.prefix(8)) \"Short\" is ringing; stop timer \(long.id.prefix(8)) \"Long\" instead? y/n"
        #expect(run.screens[5].contains(question), "\(run.screens[5].debugDescription)")
        #expect(run.screens[7].contains("Not stopped."), "\(run.screens[7].debugDescription)")
        #expect(run.screens[10].contains("Stopped timer \(short.id.prefix(8)) \"Short\""), "\(run.screens[10].debugDescription)")
        let left = try session.cliJSON([Summary].self, "list")
        #expect(left.map(\.id) == [long.id] && left.first?.state == "countdown", "the long timer runs on: \(left)")
    }

    /// `s` on what rings is the alarm's own Stop, as in its alert: the app's stop intent runs.
    @Test func watchStopsARingingAlarmWithItsStopButton() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let ran = try session.scheduleTimerWithStopIntent("Intent", in: 3)
        let keys = ["wait:ringing", "s", "wait:Stopped timer"]
        let result = try Subprocess.run("/usr/bin/python3", [CLITests.watchDriver, session.binaries + "/reveille", "INT"] + keys,
                                        environment: session.environment, timeout: 60)
        let run = try JSONDecoder().decode(CLITests.WatchRun.self, from: Data(result.stdout.utf8))
        #expect(run.screens.last?.contains("Stopped timer") == true, "\(result.stdout)\(result.stderr)")
        _ = try session.eventually(timeout: 10, "the alarm's stop intent to run") { FileManager.default.fileExists(atPath: ran) ? true : nil }
    }

    /// Renaming a running timer keeps its time left; renaming a skipped alarm keeps the skip,
    /// which list and show name and unskip undoes.
    @Test func anEditChangesOnlyWhatItNamesAndASkipCanBeUndone() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let tea = try session.cliJSON(Summary.self, "timer", "1h", "--title", "Tea")
        let renamed = try session.cliJSON(Summary.self, "edit", "tea", "--title", "Green tea")
        #expect(renamed.id == tea.id && renamed.title == "Green tea" && renamed.state == "countdown")
        #expect(renamed.fireDate == tea.fireDate, "the timer keeps its end: \(String(describing: tea.fireDate)) -> \(String(describing: renamed.fireDate))")

        let up = try session.cliJSON(Summary.self, "add", "7:00", "--days", "daily", "--title", "Up")
        let skipped = try session.cliJSON(Summary.self, "skip", String(up.id.prefix(8)))
        #expect(skipped.skipped == up.fireDate && skipped.fireDate != up.fireDate, "\(skipped)")
        let edited = try session.cliJSON(Summary.self, "edit", "up", "--title", "Get up")
        #expect(edited.title == "Get up" && edited.skipped == up.fireDate && edited.fireDate == skipped.fireDate, "\(edited)")

        let list = try session.cli("list")
        let row = list.stdout.split(separator: "\n").first { $0.contains("Get up") } ?? ""
        #expect(row.contains("skipping \(up.fireDate!.prefix(10)) 07:00"), "\(list.stdout)")
        let show = try session.cli("show", "get up")
        #expect(show.stdout.contains("skipped:") && show.stdout.contains("(reveille unskip \(up.id.prefix(8)))"), "\(show.stdout)")

        let unskipped = try session.cli("unskip", "get up")
        #expect(unskipped.status == 0 && unskipped.stdout.hasPrefix("Unskipped alarm \(up.id.prefix(8)) \"Get up\": rings "), "\(unskipped.stdout)\(unskipped.stderr)")
        let restored = try session.cliJSON(Summary.self, "show", String(up.id.prefix(8)))
        #expect(restored.fireDate == up.fireDate && restored.skipped == nil, "\(restored)")
        let again = try session.cli("unskip", String(up.id.prefix(8)))
        #expect(again.status != 0 && again.stderr.contains("has no skipped occurrence ahead"), "\(again.stderr)")
    }

    /// Issue 27: `reveille snooze ID 20m` and the alert's "Snooze 20 min" snooze for that long;
    /// a length out of bounds is a usage error naming what is accepted.
    @Test func aSnoozeTakesALengthFromTheCLIAndFromTheAlertsThirdButton() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let tea = try session.cliJSON(Summary.self, "timer", "1s", "--title", "Tea")
        let alert = try eventually(timeout: 20, "the Tea alert") { try session.alerts(titled: "Tea").first }
        #expect(alert.actions == ["stop", "Stop", "secondary", "Snooze", "secondary:1200", "Snooze 20 min"], "\(alert.actions ?? [])")
        for (wrong, said) in [("0s", "'0s': durations are positive: 5m, 90s"), ("25h", "'25h' is longer than 24h; accepted: 1s to 24h")] {
            let refused = try session.cli("snooze", "tea", wrong)
            #expect(refused.status == 64 && refused.stderr.contains(said), "\(refused.stderr)")
        }
        let snoozed = try session.cliJSON(Summary.self, "snooze", "tea", "20m")
        #expect(snoozed.id == tea.id && snoozed.state == "countdown" && (1195...1200).contains(snoozed.timeRemaining ?? 0), "\(snoozed)")

        let eggs = try session.cliJSON(Summary.self, "timer", "1s", "--title", "Eggs")
        let eggsAlert = try eventually(timeout: 20, "the Eggs alert") { try session.alerts(titled: "Eggs").first }
        try session.press(label: "Snooze 20 min", on: eggsAlert.id)
        let pressed = try eventually("the button's snooze") { () -> Summary? in
            let shown = try session.cliJSON(Summary.self, "show", eggs.id)
            return shown.state == "countdown" ? shown : nil
        }
        #expect((1190...1200).contains(pressed.timeRemaining ?? 0), "20 minutes, not the 9 of its own snooze: \(pressed)")
    }

    /// Issue 27: an app snoozes its ringing alarm for a length of its choosing through
    /// ReveilleKit's `snooze(id:for:)` (a Reveille extension); a length out of bounds is refused.
    @Test func anAppSnoozesForALengthThroughReveilleKit() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        #expect(try session.cli("auth", "allow", "org.test.Nap").status == 0)
        func app(_ command: String...) throws -> Subprocess.Result {
            try Subprocess.run(session.binaries + "/reveille-test-app", ["org.test.Nap", "Naps"] + command, environment: session.environment)
        }
        let id = try #require(try JSONDecoder().decode([String: String].self, from: Data(try app("timer", "1").stdout.utf8))["id"])
        _ = try eventually(timeout: 20, "the timer to ring") { try session.cliJSON(Summary.self, "show", id).state == "alerting" ? true : nil }
        let refused = try app("snooze-for", id, "0")
        #expect(refused.status == 3 && refused.stderr.contains("accepted: 1 second to 24 hours (86400 seconds)"), "\(refused.stderr)")
        #expect(try app("snooze-for", id, "1800").status == 0)
        let snoozed = try session.cliJSON(Summary.self, "show", id)
        #expect(snoozed.state == "countdown" && (1790...1800).contains(snoozed.timeRemaining ?? 0), "\(snoozed)")
    }

    /// Issue 27: a monthly alarm is stored, listed and shown in words, and the restarted agent
    /// has it still; edit turns it yearly, then every few days.
    @Test func aMonthlyAlarmIsStoredListedAndSurvivesARestart() throws {
        struct Repeating: Decodable {
            var id: String, time: String?, repeats: [String]?, recurrence: [String: Int]?
        }
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let rent = try session.cliJSON(Repeating.self, "add", "7:00", "--monthly", "31", "--title", "Rent")
        #expect(rent.recurrence == ["monthly": 31] && rent.repeats == nil, "\(rent)")
        let refused = try session.cli("add", "7:00", "--monthly", "15", "--days", "mon")
        #expect(refused.status == 64 && refused.stderr.contains("one of --days, --monthly, --yearly or --every"), "\(refused.stderr)")

        try session.killAgent(signal: SIGTERM)
        try session.startAgent()
        let list = try session.cli("list")
        let row = list.stdout.split(separator: "\n").first { $0.contains("Rent") } ?? ""
        #expect(row.contains("monthly on day 31 (or the month's last day)"), "\(list.stdout)")
        let show = try session.cli("show", "rent")
        #expect(show.stdout.contains("repeats:") && show.stdout.contains("monthly on day 31"), "\(show.stdout)")
        let again = try session.cliJSON(Repeating.self, "show", "rent")
        #expect(again.recurrence == ["monthly": 31] && again.id == rent.id, "\(again)")

        let yearly = try session.cli("edit", "rent", "--yearly", "2-29")
        #expect(yearly.status == 0, "\(yearly.stderr)")
        #expect(try session.cli("show", "rent").stdout.contains("yearly on February 29 (February 28 in other years)"))
        let everyFew = try session.cli("edit", "rent", "8:15", "--every", "3d")
        #expect(everyFew.status == 0, "\(everyFew.stderr)")
        let shown = try session.cli("show", "rent").stdout
        #expect(shown.contains("every 3 days from ") && shown.contains("08:15"), "\(shown)")
    }

    // Issue 27's Missed notice that says how long it rang (5 seconds, not "1 minute") is checked
    // on virtual time: ShellsOnVirtualTimeTests.anUnansweredAlarmStopsAtItsRingLimitAndTheMissedNoticeSaysHowLong.

    /// Titles stand for IDs; one two alarms share is refused, naming both.
    @Test func aTitleStandsForTheIDWhenOnlyOneAlarmHasIt() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let tea = try session.cliJSON(Summary.self, "timer", "10m", "--title", "Tea")
        let paused = try session.cli("pause", "TEA")
        #expect(paused.status == 0 && paused.stdout.hasPrefix("Paused timer \(tea.id.prefix(8)) \"Tea\""), "\(paused.stdout)\(paused.stderr)")
        let other = try session.cliJSON(Summary.self, "timer", "5m", "--title", "tea")
        let ambiguous = try session.cli("cancel", "tea", "--yes")
        #expect(ambiguous.status != 0 && ambiguous.stderr.contains("2 alarms have the title 'tea'")
                && ambiguous.stderr.contains(String(tea.id.prefix(8))) && ambiguous.stderr.contains(String(other.id.prefix(8))),
                "\(ambiguous.stderr)")
        #expect(try session.cliJSON([Summary].self, "list").count == 2, "nothing cancelled")
    }

    /// While an app waits for the user, the prompt's body says how to answer from a terminal
    /// (dunst without dmenu has no buttons) and `auth list` shows the app waiting.
    @Test func anAppWaitingForAnAnswerIsListedAndThePromptSaysHowToAnswer() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let output = session.directory + "/cook.out"
        let request = try Subprocess.start(session.binaries + "/reveille-test-app",
                                           ["org.test.Cook", "Kitchen timers for your recipes", "request-authorization"],
                                           environment: session.environment, stdout: output, stderr: output + ".err")
        defer { request.terminate() }
        let prompt = try eventually(timeout: 20, "the authorization prompt") {
            try session.notifications(titled: "org.test.Cook wants to schedule alarms").first
        }
        #expect((prompt.body ?? "").contains("To answer: reveille auth allow org.test.Cook (or deny)"), "\(prompt.body)")
        let list = try session.cli("auth", "list")
        let row = list.stdout.split(separator: "\n").first { $0.hasPrefix("org.test.Cook") } ?? ""
        #expect(row.contains("waiting for your answer") && row.contains("Kitchen timers for your recipes"), "\(list.stdout)\(list.stderr)")
        #expect(list.stdout.contains("To answer: reveille auth allow org.test.Cook (or deny)"), "\(list.stdout)")
        struct Entry: Decodable { var appID: String, state: String, decided: String? }
        let entries = try JSONDecoder().decode([Entry].self, from: Data(try session.cli("auth", "list", "--json").stdout.utf8))
        #expect(entries.map(\.appID) == ["org.test.Cook"] && entries.first?.state == "notDetermined" && entries.first?.decided == nil)

        #expect(try session.cli("auth", "allow", "org.test.Cook").status == 0)
        #expect(request.wait(timeout: 10) == 0)
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "authorized\n")
        #expect(try session.cli("auth", "list").stdout.contains("allowed"))
    }

    /// An unknown sound names the closest few; a missing file is said to be missing.
    @Test func anUnknownSoundNamesTheClosestAndAMissingFileIsMissing() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let unknown = try session.cli("add", "7:00", "--sound", "bel")
        #expect(unknown.status != 0 && unknown.stderr.contains("no sound named 'bel'; the closest: bell, "), "\(unknown.stderr)")
        let listed = try #require(unknown.stderr.firstMatch(of: /the closest: ([^(]*) \(/)).1.split(separator: ", ")
        #expect(listed.count == 3, "a few, not every name: \(unknown.stderr)")
        let missing = try session.cli("add", "7:00", "--sound", "/no/such/sound.wav")
        #expect(missing.status != 0 && missing.stderr.contains("sound file '/no/such/sound.wav' does not exist"), "\(missing.stderr)")
        #expect(!missing.stderr.contains("give an absolute path"))
    }

    /// lintian: the bash completion is sourced, so it has no hashbang; the package has a DEP-5 copyright.
    @Test func theInstalledBashCompletionHasNoHashbangAndThePackageItsCopyright() throws {
        let destdir = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-completion-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: destdir) }
        let install = try Subprocess.run(repository + "/scripts/install",
                                         ["--prefix", "/usr", "--destdir", destdir, "--bin-dir", try TestSession.findBinaries(), "--no-manifest"],
                                         environment: ProcessInfo.processInfo.environment)
        #expect(install.status == 0, "\(install.stderr)")
        let bash = try String(contentsOfFile: destdir + "/usr/share/bash-completion/completions/reveille", encoding: .utf8)
        #expect(!bash.hasPrefix("#!") && bash.contains("-F _reveille reveille"), "\(bash.prefix(200))")
        let zsh = try String(contentsOfFile: destdir + "/usr/share/zsh/site-functions/_reveille", encoding: .utf8)
        #expect(zsh.hasPrefix("#compdef"), "zsh keeps its first line")

        let copyright = try String(contentsOfFile: repository + "/debian/copyright", encoding: .utf8)
        #expect(copyright.hasPrefix("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"))
        #expect(copyright.contains("Files: *\nCopyright: 2026 The Reveille authors\nLicense: Expat\n"))
        // The licence text is the LICENSE file's, as DEP-5 writes it (indented, "." for blank lines).
        let license = try String(contentsOfFile: repository + "/LICENSE", encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).dropFirst(4).dropLast()
            .map { $0.isEmpty ? " ." : " " + $0 }.joined(separator: "\n")
        #expect(copyright.contains("License: Expat\n" + license), "the Expat paragraph matches LICENSE")
    }

    /// Issue 40: `import meeting.ics --yes` twice had added the event twice (only Reveille's own
    /// UIDs were recognised). Another program's event is found again by its UID, and the same
    /// event under another UID by ringing alike under the same title; `--dry-run` says so.
    @Test func anEventImportedOnceIsNotAddedAgain() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        func calendar(uid: String, start: String = "20350601T090000Z") -> String {
            let file = session.directory + "/\(uid).ics"
            let text = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Example//Calendar//EN", "BEGIN:VEVENT", "UID:\(uid)",
                        "DTSTAMP:20260101T000000Z", "DTSTART:\(start)", "SUMMARY:Planning meeting", "BEGIN:VALARM", "ACTION:DISPLAY",
                        "DESCRIPTION:Planning", "TRIGGER:-PT15M", "END:VALARM", "END:VEVENT", "END:VCALENDAR", ""].joined(separator: "\r\n")
            FileManager.default.createFile(atPath: file, contents: Data(text.utf8))
            return file
        }
        let meeting = calendar(uid: "meeting-42@example.com")
        let first = try session.cli("import", meeting, "--yes")
        #expect(first.status == 0 && first.stdout.contains("Added 1 of 1 alarm"), "\(first.stdout)\(first.stderr)")
        let preview = try session.cli("import", meeting, "--dry-run")
        #expect(preview.stdout.contains("Nothing to import") && preview.stderr.contains("is already here; left as it is"),
                "--dry-run names what is already here: \(preview.stdout)\(preview.stderr)")
        let again = try session.cli("import", meeting, "--yes")
        #expect(again.status == 0 && again.stderr.contains("an alarm with its id") && again.stderr.contains("is already here"), "\(again.stderr)")
        // Moved in the file, the same UID is still the alarm imported.
        let moved = try session.cli("import", calendar(uid: "meeting-42@example.com", start: "20350602T090000Z"), "--yes")
        #expect(moved.stderr.contains("is already here; left as it is"), "\(moved.stderr)")
        // Written again by another program, with another UID: the same reminder under the same title.
        let copy = try session.cli("import", calendar(uid: "0f4e-copy@elsewhere.example"), "--yes")
        #expect(copy.stderr.contains("rings alike under the same title, so it is already here"), "\(copy.stderr)")
        #expect(try session.cliJSON([Summary].self, "list").count == 1)
    }

    /// N13: the CLI in another zone than the agent: `add 7:00` had answered "rings 16:00" without a word.
    @Test func theCLISaysWhenTheAgentKeepsAnotherTimeZone() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent(environment: ["TZ": "America/Los_Angeles"])
        let far = try session.cli("add", "7:00", "--title", "Far", environment: ["TZ": "Europe/Berlin"])
        #expect(far.status == 0 && far.stderr.contains("The agent keeps another time zone than this terminal (Europe/Berlin): it rings this alarm at 07:00 on its clock"),
                "\(far.stdout)\(far.stderr)")
        let near = try session.cli("add", "7:00", "--title", "Near", environment: ["TZ": "America/Los_Angeles"])
        #expect(near.status == 0 && near.stderr.isEmpty, "\(near.stderr)")
    }

    /// Issue 49: `status` named a running timer as the next alarm when an alarm rang first (the
    /// list puts timers first); `--json` was right. Both name the one that rings first.
    @Test func statusNamesWhatRingsFirstByTime() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        _ = try session.cliJSON(Summary.self, "timer", "2h", "--title", "Bread")
        let soon = try session.cliJSON(Summary.self, "add", "in 30m", "--title", "Soon")
        let status = try session.cli("status")
        let first = status.stdout.split(separator: "\n").first.map(String.init) ?? ""
        #expect(status.status == 0 && first.hasPrefix("Next alarm: \(soon.id.prefix(8)) \"Soon\", rings "), "\(status.stdout)\(status.stderr)")
        let json = try session.cli("status", "--json")
        #expect(json.stdout.contains(#""alarmID":"\#(soon.id.uppercased())""#), "\(json.stdout)")
    }

    /// Issue 49: `reveille-app --help` opened the window and waited (without a display, it said
    /// it could not open one). Help and version are printed, with no display needed, and exit 0.
    @Test func theAppsHelpAndVersionNeedNoDisplay() throws {
        let session = try TestSession(notifications: .none, audio: .none)
        var environment = session.environment
        environment["DISPLAY"] = nil
        environment["WAYLAND_DISPLAY"] = nil
        let app = session.binaries + "/reveille-app"
        for option in ["--help", "-h"] {
            let help = try Subprocess.run(app, [option], environment: environment, timeout: 10)
            #expect(help.status == 0 && help.stdout.hasPrefix("Usage: reveille-app [--help] [--version]\n") && help.stderr.isEmpty,
                    "\(option): \(help.status) \(help.stdout)\(help.stderr)")
        }
        let version = try Subprocess.run(app, ["--version"], environment: environment, timeout: 10)
        #expect(version.status == 0 && version.stdout == "reveille-app \(ReveilleVersion.current)\n", "\(version.stdout)\(version.stderr)")
        let unknown = try Subprocess.run(app, ["--frobnicate"], environment: environment, timeout: 10)
        #expect(unknown.status == 64 && unknown.stderr.contains("unknown argument '--frobnicate'"), "\(unknown.status) \(unknown.stderr)")
    }

    /// Issue 49: with the agent in UTC, `TZ=Asia/Tokyo reveille add 7:00` answers "rings 16:00"
    /// and says why (as since N13); `status` and `show`, which name that time too, had said nothing.
    @Test func statusAndShowSayWhenTheAgentKeepsAnotherTimeZone() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent(environment: ["TZ": "UTC"])
        let tokyo = ["TZ": "Asia/Tokyo"]
        let said = "The agent keeps another time zone than this terminal (Asia/Tokyo): it rings this alarm at 07:00 on its clock, which is 16:00 here."
        let add = try session.cli("add", "7:00", "--title", "Wake", environment: tokyo)
        #expect(add.status == 0 && add.stdout.contains(" 16:00 ") && add.stderr.contains(said), "\(add.stdout)\(add.stderr)")
        for command in [["status"], ["show", "wake"]] {
            let result = try Subprocess.run(session.binaries + "/reveille", command, environment: session.environment.merging(tokyo) { $1 })
            #expect(result.status == 0 && result.stdout.contains("16:00") && result.stderr.contains(said), "\(command): \(result.stdout)\(result.stderr)")
            let here = try Subprocess.run(session.binaries + "/reveille", command, environment: session.environment.merging(["TZ": "UTC"]) { $1 })
            #expect(here.status == 0 && !here.stderr.contains("another time zone"), "\(command) in the agent's zone: \(here.stderr)")
        }
    }

    /// New-user trial: when an alarm rings, `reveille stop` alone stops it (it had asked for an ID).
    @Test func stopAloneStopsWhatRings() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let nothing = try session.cli("stop")
        #expect(nothing.status == 66 && nothing.stderr.contains("no alarm is ringing"), "\(nothing.status) \(nothing.stderr)")
        let tea = try session.cliJSON(Summary.self, "timer", "1s", "--title", "Tea")
        _ = try eventually(timeout: 20, "Tea to ring") { try session.cliJSON(Summary.self, "show", tea.id).state == "alerting" ? true : nil }
        let stopped = try session.cli("stop")
        #expect(stopped.status == 0 && stopped.stdout.hasPrefix("Stopped timer \(tea.id.prefix(8)) \"Tea\""), "\(stopped.stdout)\(stopped.stderr)")
        #expect(try session.cliJSON([Summary].self, "list").isEmpty)

        // And `snooze`, alone or with a length only.
        let eggs = try session.cliJSON(Summary.self, "timer", "1s", "--title", "Eggs")
        _ = try eventually(timeout: 20, "Eggs to ring") { try session.cliJSON(Summary.self, "show", eggs.id).state == "alerting" ? true : nil }
        let snoozed = try session.cliJSON(Summary.self, "snooze", "20", "min")
        #expect(snoozed.id == eggs.id && snoozed.state == "countdown" && (1190...1200).contains(snoozed.timeRemaining ?? 0), "\(snoozed)")
        let tooLong = try session.cli("snooze", "25h")
        #expect(tooLong.status == 64 && tooLong.stderr.contains("'25h' is longer than 24h"), "\(tooLong.stderr)")
    }
}
