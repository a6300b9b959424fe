import Foundation
import ReveilleCore
import ReveilleModel
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import ReveilleTimeZone
import SystemPackage
import Testing

@Suite("Persistence and time end to end", .waitsOnItsOwnThread)
struct PersistenceTests {
    @Test func fixedAlarmSurvivesKill9AndRingsAfterRestart() throws {
        let session = try TestSession()
        // The restarted agent reads its clock from this file: time passes while none runs
        // without the test waiting for it.
        let clock = ["--test-clock-offset-file", session.directory + "/clock-offset"]
        try "0".write(toFile: clock[1], atomically: true, encoding: .utf8)
        try session.startAgent(clock)
        let later = try session.cliJSON(AlarmJSON.self, "add", "2030-01-01 08:00", "--title", "Far")
        let soon = ISO8601Local.string(from: Date().addingTimeInterval(3), in: UTCTimeZone())
        let near = try session.cliJSON(AlarmJSON.self, "add", String(soon.prefix(19)), "--title", "Near")
        try session.killAgent(signal: SIGKILL)
        // While no agent runs, the Near alarm comes due; the restarted agent rings it (within the late window).
        try "5".write(toFile: clock[1], atomically: true, encoding: .utf8)
        try session.startAgent(clock)
        let listed = try session.cliJSON([AlarmJSON].self, "list")
        #expect(listed.first { $0.id == later.id }?.fireDate == "2030-01-01T08:00:00.000+00:00", "milliseconds, as on the bus")
        #expect(listed.first { $0.id == near.id }?.state == "alerting")
        _ = try eventually(timeout: 20, "the Near alert after the restart") { try session.alerts(titled: "Near").first }
    }

    @Test func alarmMissedBeyondTheLateWindowIsReportedNotRung() throws {
        let session = try TestSession()
        let arguments = ["--late-window", "1s", "--test-clock-offset-file", session.directory + "/clock-offset"]
        try "0".write(toFile: arguments[3], atomically: true, encoding: .utf8)
        try session.startAgent(arguments)
        // A minute ahead: a loaded machine may take seconds to run the CLI.
        let soon = ISO8601Local.string(from: Date().addingTimeInterval(60), in: UTCTimeZone())
        _ = try session.cliJSON(AlarmJSON.self, "add", String(soon.prefix(19)), "--title", "Gone")
        try session.killAgent(signal: SIGKILL)
        // Two minutes pass (on the test clock) while no agent runs: the alarm is about a minute
        // late, beyond the 1 s window.
        try "120".write(toFile: arguments[3], atomically: true, encoding: .utf8)
        try session.startAgent(arguments)
        let missed = try eventually(timeout: 20, "the missed notice") { try session.notifications(titled: "Missed: Gone").first }
        #expect(missed.hints?["urgency"] == .number(1))
        #expect(try session.notifications(titled: "Gone").isEmpty, "a missed alarm does not ring late")
        #expect(try session.cliJSON([AlarmJSON].self, "list").isEmpty)
    }

    /// The agent streams the journal: a 60 MB journal took 240 MB to load (the whole file,
    /// its lines, and a joined copy for decoding), now the agent's own memory and a batch.
    @Test func aLargeJournalLoadsInBoundedMemory() throws {
        let session = try TestSession(audio: .none)
        let request = AlarmRequest(schedule: .fixed(Date().addingTimeInterval(86_400)), countdownDuration: nil,
                                   presentation: AlarmPresentation(alert: .init(title: String(repeating: "t", count: 400))))
        let records = try (0..<300).map { _ in
            try AlarmRecord(id: UUID(), request: request, appID: ClientIdentity.userAppID, now: Date(), timeZone: UTCTimeZone())
        }
        let store = AlarmStore(directory: FilePath(session.stateDirectory))
        try store.save([])
        // Each alarm put again and again, as a long-running agent's journal would hold them.
        var round = Data()
        for record in records {
            round.append(try JSONCoding.compactEncoder.encode(["put": record]))
            round.append(UInt8(ascii: "\n"))
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: store.journalFile.string))
        try handle.seekToEnd()
        while try handle.offset() < 60_000_000 { try handle.write(contentsOf: round) }
        try handle.close()
        try session.startAgent()
        let agent = try #require(session.agent)
        // Answered once the alarms are loaded.
        #expect(try session.cliJSON([AlarmJSON].self, "list").count == 300)
        let status = try String(contentsOfFile: "/proc/\(agent.pid)/status", encoding: .utf8)
        let peakKiB = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
            .flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true)[1]) })
        #expect(peakKiB < 120 << 10, "the agent peaked at \(peakKiB >> 10) MiB loading a 60 MB journal")
    }

    @Test func relativeAlarmFollowsATimeZoneChange() throws {
        let session = try TestSession(audio: .none)
        let link = session.directory + "/localtime"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/usr/share/zoneinfo/Europe/Berlin")
        try session.startAgent(["--localtime", link], environment: ["TZ": nil])
        let alarm = try session.cliJSON(AlarmJSON.self, "add", "7:30", "--title", "Wake")
        let berlin = Alarm.Schedule.relative(.init(time: .init(hour: 7, minute: 30), repeats: .never))
            .nextFireDate(after: Date(), in: GLibTimeZone(identifier: "Europe/Berlin")!)!
        #expect(alarm.fireDate == ISO8601Local.millisecondString(from: berlin, in: UTCTimeZone()))

        // Replace the link as timedatectl does: a new link renamed over the old one.
        try FileManager.default.createSymbolicLink(atPath: link + ".new", withDestinationPath: "/usr/share/zoneinfo/America/New_York")
        guard rename(link + ".new", link) == 0 else { throw Subprocess.Failure("rename failed") }
        let newYork = Alarm.Schedule.relative(.init(time: .init(hour: 7, minute: 30), repeats: .never))
            .nextFireDate(after: Date(), in: GLibTimeZone(identifier: "America/New_York")!)!
        let expected = ISO8601Local.millisecondString(from: newYork, in: UTCTimeZone())
        _ = try eventually(timeout: 20, "the alarm to move to 07:30 New York time") {
            try session.cliJSON(AlarmJSON.self, "show", alarm.id).fireDate == expected ? true : nil
        }
    }
}

/// Wall-clock jumps through the agent's test clock (the same recompute path as timerfd's
/// ECANCELED), and the real ECANCELED path through clock_settime(2).
@Suite("Clock jumps end to end", .waitsOnItsOwnThread)
struct ClockJumpTests {
    /// The kernel's own notice. Setting CLOCK_REALTIME, even to the value it has, cancels every
    /// timerfd armed with TFD_TIMER_CANCEL_ON_SET. The test moves the agent's test clock an
    /// hour ahead without telling it (no SIGUSR1), checks that nothing rings, then sets the
    /// real clock to itself (a step of microseconds, harmless to anything else running): the
    /// agent must hear the kernel, look at the clock again and ring within a second.
    /// Needs CAP_SYS_TIME (root in a VM, as CI is); REVEILLE_NO_CLOCK_SET=1 leaves it out.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["REVEILLE_NO_CLOCK_SET"] == nil,
                   "REVEILLE_NO_CLOCK_SET is set"))
    func settingTheSystemClockIsHeardThroughTimerfd() throws {
        var probe = timespec()
        clock_gettime(CLOCK_REALTIME, &probe)
        guard clock_settime(CLOCK_REALTIME, &probe) == 0 else {
            Issue.record("cannot set CLOCK_REALTIME (\(String(cString: strerror(errno)))): this test needs CAP_SYS_TIME, as root on a VM has; set REVEILLE_NO_CLOCK_SET=1 to leave it out")
            return
        }
        let session = try TestSession(audio: .none)
        let offsetFile = session.directory + "/clock-offset"
        try "0".write(toFile: offsetFile, atomically: true, encoding: .utf8)
        try session.startAgent(["--test-clock-offset-file", offsetFile])
        let due = Date().addingTimeInterval(3600)
        let alarm = try session.cliJSON(AlarmJSON.self, "add", String(ISO8601Local.string(from: due, in: UTCTimeZone()).prefix(19)),
                                        "--title", "Kernel")
        try "3605".write(toFile: offsetFile, atomically: true, encoding: .utf8)
        usleep(500_000)
        #expect(try session.alerts(titled: "Kernel").isEmpty, "the agent must not notice the file by itself")

        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let set = Date()
        #expect(clock_settime(CLOCK_REALTIME, &now) == 0)
        let alert = try eventually(timeout: 1, "the alert after clock_settime") { try session.alerts(titled: "Kernel").first }
        #expect(alert.time - set.timeIntervalSince1970 < 1)
        #expect(try session.cliJSON(AlarmJSON.self, "show", alarm.id).state == "alerting")
        #expect(try String(contentsOfFile: session.agentLog, encoding: .utf8).contains("the wall clock changed"))
    }

    @Test func aStoreBeyondTheLimitsIsCutToThemAtStartAndTheRestKeptAside() throws {
        let session = try TestSession(audio: .none)
        // 105 alarms of one app, written by something other than the agent (limit: 100 per app).
        let request = AlarmRequest(schedule: nil, countdownDuration: .init(preAlert: 3600, postAlert: nil),
                                   presentation: AlarmPresentation(alert: .init(title: "Many")))
        let records = try (0..<105).map { _ in
            try AlarmRecord(id: UUID(), request: request, appID: "org.test.Many", now: Date(), timeZone: UTCTimeZone())
        }
        try AlarmStore(directory: FilePath(session.stateDirectory)).save(records)
        try session.startAgent()
        #expect(try session.cliJSON([AlarmJSON].self, "list").count == 100)
        let aside = try #require(try FileManager.default.contentsOfDirectory(atPath: session.stateDirectory)
            .first { $0.hasPrefix("alarms.over-limit-") })
        let text = try String(contentsOfFile: session.stateDirectory + "/" + aside, encoding: .utf8)
        #expect(text.components(separatedBy: "\"org.test.Many\"").count - 1 == 5, "the five beyond the limit are kept aside")
    }

    @Test func aTimerRunsOnElapsedTimeWhenTheClockIsSetBackOrForward() throws {
        let session = try TestSession(audio: .none)
        let offsetFile = session.directory + "/clock-offset"
        try "0".write(toFile: offsetFile, atomically: true, encoding: .utf8)
        try session.startAgent(["--test-clock-offset-file", offsetFile])
        let agent = try #require(session.agent)
        let back = try session.cliJSON(AlarmJSON.self, "timer", "3s", "--title", "Back")
        let forward = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "Forward")
        let started = Date()
        // The clock is set back an hour: the 3 s timer still rings in 3 s, not in an hour and 3 s.
        try "-3600".write(toFile: offsetFile, atomically: true, encoding: .utf8)
        kill(agent.pid, SIGUSR1)
        let alert = try eventually(timeout: 20, "the 3 s timer after the clock went back") { try session.alerts(titled: "Back").first }
        #expect(alert.time - started.timeIntervalSince1970 < 4.5)
        // Set forward two hours: the one-hour timer does not ring now; it has an hour left.
        try "3600".write(toFile: offsetFile, atomically: true, encoding: .utf8)
        kill(agent.pid, SIGUSR1)
        _ = try eventually("the agent to take the jump") {
            try String(contentsOfFile: session.agentLog, encoding: .utf8).contains("changed by 7200 s") ? true : nil
        }
        // Left by the agent's (shifted) clock, which the CLI does not know of.
        let fireText = try #require(try session.cliJSON(AlarmJSON.self, "show", forward.id).fireDate)
        let fire = try #require(ISO8601Local.parse(fireText, defaultTimeZone: UTCTimeZone()))
        let left = fire.timeIntervalSince(Date().addingTimeInterval(3600))
        #expect(left > 3500 && left <= 3600, "\(left) s left")
        #expect(try session.cliJSON(AlarmJSON.self, "show", back.id).state == "alerting")
    }

    @Test func jumpsForwardRingOnceOrReportMissedAndJumpsBackNeverRingTwice() throws {
        let session = try TestSession(audio: .none)
        let offsetFile = session.directory + "/clock-offset"
        try "0".write(toFile: offsetFile, atomically: true, encoding: .utf8)
        try session.startAgent(["--test-clock-offset-file", offsetFile])
        let agent = try #require(session.agent)
        func jump(to seconds: Int) throws {
            try "\(seconds)".write(toFile: offsetFile, atomically: true, encoding: .utf8)
            kill(agent.pid, SIGUSR1)
        }
        let utc = UTCTimeZone()
        let inThirtyMinutes = ISO8601Local.string(from: Date().addingTimeInterval(30 * 60), in: utc)
        let time = String(inThirtyMinutes.dropFirst(11).prefix(5))
        let daily = try session.cliJSON(AlarmJSON.self, "add", time, "--days", "daily", "--title", "Daily")
        let farFixed = try session.cliJSON(AlarmJSON.self, "add", String(ISO8601Local.string(from: Date().addingTimeInterval(40 * 60), in: utc).prefix(19)),
                                           "--title", "Fixed")

        // Forward 31 minutes: the daily alarm came due a minute ago and rings, once.
        try jump(to: 31 * 60)
        _ = try eventually(timeout: 20, "the daily alarm after the jump") { try session.alerts(titled: "Daily").first }
        // A second alert would have been sent in the same turn as the first: let it arrive.
        usleep(300_000)
        #expect(try session.alerts(titled: "Daily").count == 1)
        #expect(try session.cli("stop", daily.id).status == 0)

        // Back to 25 minutes from the start: before today's occurrence again, which must not ring twice.
        try jump(to: 25 * 60)
        try session.waitForAgentLog("the wall clock changed", count: 2)
        try jump(to: 31 * 60 + 2)   // and past the wall time once more
        try session.waitForAgentLog("the wall clock changed", count: 3)
        usleep(300_000)
        #expect(try session.alerts(titled: "Daily").count == 1, "no double fire after the clock was set back")
        let tomorrow = try session.cliJSON(AlarmJSON.self, "show", daily.id)
        #expect(tomorrow.state == "scheduled")

        // Forward three hours: the fixed alarm is far past its late window, reported missed, not rung.
        try jump(to: 3 * 3600)
        _ = try eventually(timeout: 20, "the missed notice") { try session.notifications(titled: "Missed: Fixed").first }
        #expect(try session.alerts(titled: "Fixed").isEmpty)
        #expect(try session.cliJSON([AlarmJSON].self, "list").allSatisfy { $0.id != farFixed.id })
    }

    /// The agent starts with its clock 2 h ahead (a dual-boot machine's hardware clock keeping
    /// local time, before NTP answers), then the clock is set back: the one-time alarm that start
    /// made late is back, its missed notice withdrawn. Again with a crash between the two, and
    /// the same start forgetting what the last run saw (`clock.json` removed) leaves it missed.
    @Test(arguments: [false, true])
    func alarmsAStartWithTheClockAheadMadeLateComeBackWhenTheClockIsSetBack(crashInBetween: Bool) throws {
        let session = try TestSession(audio: .none)
        let offsetFile = session.directory + "/clock-offset"
        try "0".write(toFile: offsetFile, atomically: true, encoding: .utf8)
        try session.startAgent(["--test-clock-offset-file", offsetFile])
        let due = ISO8601Local.string(from: Date().addingTimeInterval(3600), in: UTCTimeZone())
        let once = try session.cliJSON(AlarmJSON.self, "add", String(due.prefix(19)), "--title", "Once")
        try session.killAgent(signal: SIGTERM)
        try "7200".write(toFile: offsetFile, atomically: true, encoding: .utf8)
        try session.startAgent(["--test-clock-offset-file", offsetFile])
        let missed = try session.eventually(timeout: 20, "the missed notice of the start ahead") { try session.notifications(titled: "Missed: Once").first }
        #expect(try session.agentState(of: once.id) == nil, "made late by the start ahead: missed")
        if crashInBetween {
            try session.killAgent(signal: SIGKILL)
            try session.startAgent(["--test-clock-offset-file", offsetFile])
            #expect(try session.agentState(of: once.id) == nil)
        }
        try "0".write(toFile: offsetFile, atomically: true, encoding: .utf8)
        kill(try #require(session.agent).pid, SIGUSR1)
        _ = try session.eventually(timeout: 20, "the alarm back after the set back") { try session.agentState(of: once.id) == "scheduled" ? true : nil }
        let shown = try session.cliJSON(AlarmJSON.self, "show", once.id)
        #expect(shown.title == "Once")
        if !crashInBetween {
            _ = try session.eventually(timeout: 20, "the missed notice withdrawn") {
                try session.events.contains { $0.event == "closed" && $0.id == missed.id } ? true : nil
            }
        }
    }

    @Test func notificationsReadTheAgentsClockNotTheMachines() throws {
        // The agent's clock runs two hours ahead of the machine's (a test offset): a countdown's
        // text must count from the agent's now, as its fire date does.
        let session = try TestSession(audio: .none)
        let offsetFile = session.directory + "/clock-offset"
        try "7200".write(toFile: offsetFile, atomically: true, encoding: .utf8)
        try session.startAgent(["--test-clock-offset-file", offsetFile])
        _ = try session.cliJSON(AlarmJSON.self, "timer", "10m", "--title", "Offset")
        let countdown = try eventually(timeout: 20, "the countdown") { try session.notifications(titled: "Offset").first }
        #expect(countdown.body?.contains("10 min left") == true, "\(countdown.body ?? "")")
    }
}
