import Foundation
import ReveilleCore
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// Waking from suspend, without a real suspend: a private system bus with logind and polkit
/// from python3-dbusmock, and the real wake helper writing to a stand-in RTC folder.
@Suite("Wake from suspend end to end", .waitsOnItsOwnThread)
struct WakeTests {
    let reveilleInhibitor = ["sleep", "Reveille", "Setting the wake-up time for the next alarm", "delay"]

    func fireDate(_ alarm: AlarmJSON) throws -> Date {
        try #require(alarm.fireDate.flatMap { ISO8601Local.parse($0, defaultTimeZone: UTCTimeZone()) })
    }

    /// Starts the agent without `CAP_WAKE_ALARM` (the tests run as root, which has it): the
    /// kernel refuses it an alarm timer (EPERM), so it wakes the machine through the helper.
    func startAgentWithoutAlarmTimers(_ session: TestSession) throws {
        try session.startAgent(launcher: ["/usr/bin/setpriv", "--bounding-set", "-wake_alarm"])
    }

    /// Once the agent holds its sleep inhibitor, makes logind announce a suspend, and returns
    /// when the agent lets it go on (releases the inhibitor).
    func suspendOnceInhibited(_ session: TestSession) throws {
        _ = try eventually("the sleep inhibitor") { try session.inhibitors() == [reveilleInhibitor] ? true : nil }
        try session.prepareForSleep(true)
        _ = try eventually("the inhibitor released") { try session.inhibitors().isEmpty ? true : nil }
    }

    /// Whether the wake helper is on the system bus (it leaves when idle).
    func helperIsRunning(_ session: TestSession) throws -> Bool {
        try session.gdbus(["call", "--system", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                           "--method", "org.freedesktop.DBus.NameHasOwner", WakeHelperInterface.busName]).stdout.contains("true")
    }

    /// The agent's timerfds on a wake-up clock (`CLOCK_REALTIME_ALARM` 8, `CLOCK_BOOTTIME_ALARM` 9),
    /// each as its fdinfo tells: the clock and the seconds left (`it_value`), 0 when disarmed.
    func alarmTimers(_ pid: pid_t) throws -> [(clock: Int, secondsLeft: Int)] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fdinfo").compactMap { fd in
            guard let info = try? String(contentsOfFile: "/proc/\(pid)/fdinfo/\(fd)", encoding: .utf8),
                  let clock = info.firstMatch(of: /clockid: (\d+)/).flatMap({ Int($0.1) }), clock == 8 || clock == 9,
                  let left = info.firstMatch(of: /it_value: \((\d+),/).flatMap({ Int($0.1) }) else { return nil }
            return (clock, left)
        }
    }

    /// What `reveille status --json` says of how the machine is woken.
    struct WakeMechanismJSON: Decodable {
        var wakes: Bool
        var mechanism: String?
    }

    @Test func withWakeAlarmCapabilityTheAgentArmsAKernelAlarmTimerAndNeedsNoHelper() throws {
        let session = try TestSession(audio: .none, system: .wake(polkitAllows: true))
        // As root the agent has CAP_WAKE_ALARM, as systemd 254 and later give a local session.
        try session.startAgent()
        let agent = try #require(session.agent?.pid)
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "Stew")
        let armed = try eventually("the alarm timer armed a minute before the alarm") { try alarmTimers(agent).first { $0.secondsLeft > 0 } }
        #expect(armed.clock == 8)
        #expect(abs(Double(armed.secondsLeft) - (try fireDate(timer).timeIntervalSinceNow - 60)) <= 2, "\(armed)")
        let status = try session.cli("status")
        #expect(status.stdout.contains("Wakes the computer: yes"), "\(status.stdout)\(status.stderr)")
        #expect(status.stdout.contains("Woken by: a kernel alarm timer"), "\(status.stdout)")
        let json = try session.cliJSON(WakeMechanismJSON.self, "status")
        #expect(json.mechanism == "alarm-timer" && json.wakes)
        // No helper, no inhibitor: a suspend goes on at once, and the kernel sets the RTC itself.
        #expect(try session.inhibitors().isEmpty)
        try session.prepareForSleep(true)
        try session.prepareForSleep(false)
        #expect(session.rtcWakeAlarm == "" || session.rtcWakeAlarm == "0", "the helper was not asked: \(session.rtcWakeAlarm)")
        // Each change re-arms it for the soonest alarm.
        let sooner = try session.cliJSON(AlarmJSON.self, "timer", "30m", "--title", "Tea")
        _ = try eventually("the alarm timer re-armed for the sooner alarm") {
            try alarmTimers(agent).first { abs(Double($0.secondsLeft) - (try fireDate(sooner).timeIntervalSinceNow - 60)) <= 2 }
        }
        // With no alarm left it is disarmed. (fdinfo keeps showing a disarmed alarm timer's old
        // instant, so the agent's own word is what can be read.)
        #expect(try session.cli("cancel", timer.id).status == 0 && session.cli("cancel", sooner.id).status == 0)
        _ = try eventually("the alarm timer disarmed") {
            try session.cli("status").stdout.contains("Wakes the computer: no; no alarm is due that should wake the machine") ? true : nil
        }
    }

    @Test func withoutTheCapabilityTheKernelRefusesAndTheHelperWakesTheMachine() throws {
        let session = try TestSession(audio: .none, system: .wake(polkitAllows: true))
        try startAgentWithoutAlarmTimers(session)
        let agent = try #require(session.agent?.pid)
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "Rice")
        _ = try eventually("the sleep inhibitor") { try session.inhibitors() == [reveilleInhibitor] ? true : nil }
        #expect(try alarmTimers(agent).isEmpty, "the kernel gave no alarm timer")
        #expect(try String(contentsOfFile: session.agentLog, encoding: .utf8).contains("no kernel alarm timer (Operation not permitted); waking through the wake helper"))
        let status = try session.cli("status")
        #expect(status.stdout.contains("Woken by: the wake helper"), "\(status.stdout)")
        #expect(try session.cliJSON(WakeMechanismJSON.self, "status").mechanism == "wake-helper")
    }

    @Test func theWakeUpIsSetBeforeTheInhibitorIsReleasedAndResumeTakesItAgain() throws {
        let session = try TestSession(audio: .none, system: .wake(polkitAllows: true))
        try startAgentWithoutAlarmTimers(session)
        #expect(try session.inhibitors().isEmpty, "no alarm, no inhibitor")
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "Bread")
        _ = try eventually("the sleep inhibitor") { try session.inhibitors() == [reveilleInhibitor] ? true : nil }

        try session.prepareForSleep(true)
        _ = try eventually("the inhibitor released") { try session.inhibitors().isEmpty ? true : nil }
        // Released only after the helper answered: the wake-up is already there.
        let written = try #require(Double(session.rtcWakeAlarm), "wakealarm holds '\(session.rtcWakeAlarm)'")
        #expect(abs(written - (try fireDate(timer).timeIntervalSince1970 - 60)) <= 1, "a minute before the alarm")

        try session.prepareForSleep(false)
        _ = try eventually("the inhibitor taken again on resume") { try session.inhibitors() == [reveilleInhibitor] ? true : nil }
        #expect(try String(contentsOfFile: session.agentLog, encoding: .utf8).contains("resumed from suspend; re-evaluating"))
        let status = try session.cli("status")
        #expect(status.stdout.contains("Wakes the computer: yes"), "\(status.stdout)\(status.stderr)")

        // No alarm left that should wake the machine: the inhibitor goes, and the next suspend clears the wake-up.
        #expect(try session.cli("cancel", timer.id).status == 0)
        _ = try eventually("the inhibitor released with the last alarm") { try session.inhibitors().isEmpty ? true : nil }
        try session.prepareForSleep(true)
        _ = try eventually("the wake-up cleared") { session.rtcWakeAlarm == "0" ? true : nil }
    }

    /// The agent's record of the wake-up it set.
    func wakeRecord(_ session: TestSession) -> String {
        (try? String(contentsOfFile: session.stateDirectory + "/wake-up.json", encoding: .utf8)) ?? ""
    }

    @Test func aRestartedAgentClearsTheWakeUpItSetBefore() throws {
        let session = try TestSession(audio: .none, system: .wake(polkitAllows: true))
        try startAgentWithoutAlarmTimers(session)
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "Cancelled later")
        try suspendOnceInhibited(session)
        let written = session.rtcWakeAlarm
        #expect(Double(written) != nil && written != "0", "wakealarm holds '\(written)'")
        #expect(wakeRecord(session) == "{\"wakeAlarm\":\(written)}", "recorded: \(wakeRecord(session))")
        let mode = (try? FileManager.default.attributesOfItem(atPath: session.stateDirectory + "/wake-up.json"))?[.posixPermissions] as? Int
        #expect(mode == 0o600)
        try session.prepareForSleep(false)

        // The agent stops, and comes back: it clears the wake-up it set, whose alarm may be gone.
        try session.killAgent()
        try startAgentWithoutAlarmTimers(session)
        _ = try eventually("the wake-up cleared at start") { session.rtcWakeAlarm == "0" ? true : nil }
        _ = try eventually("the record saying so") { wakeRecord(session) == "{\"wakeAlarm\":0}" ? true : nil }
        // The alarm cancelled now, a suspend leaves the machine asleep.
        #expect(try session.cli("cancel", timer.id).status == 0)
        _ = try eventually("the inhibitor released with the last alarm") { try session.inhibitors().isEmpty ? true : nil }
        try session.prepareForSleep(true)
        #expect(session.rtcWakeAlarm == "0")
    }

    @Test func aDamagedOrMissingWakeUpRecordCountsAsUnknownAndIsCleared() throws {
        for record in ["{\"wakeAlarm\": \"to", nil, "{\"wakeAlarm\":1800000000}"] {
            let session = try TestSession(notifications: .none, audio: .none, system: .wake(polkitAllows: true))
            try Data("1900000000\n".utf8).write(to: URL(fileURLWithPath: session.rtcDirectory + "/wakealarm"))
            if let record {
                try FileManager.default.createDirectory(atPath: session.stateDirectory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
                try Data(record.utf8).write(to: URL(fileURLWithPath: session.stateDirectory + "/wake-up.json"))
            }
            try startAgentWithoutAlarmTimers(session)
            _ = try eventually("the record rewritten (\(record ?? "no record"))") { wakeRecord(session) == "{\"wakeAlarm\":0}" ? true : nil }
            // Unknown: cleared. Recorded as another instant than the RTC holds: another's, left alone.
            #expect(session.rtcWakeAlarm == (record?.hasPrefix("{\"wakeAlarm\":1") == true ? "1900000000" : "0"), "\(record ?? "no record")")
        }
    }

    @Test func anAlarmBeyondTheWakeUpsReachIsSaidTrulyWithoutAFalseNotice() throws {
        let session = try TestSession(audio: .none, system: .wake(polkitAllows: true))
        try startAgentWithoutAlarmTimers(session)
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "yyyy-MM-dd HH:mm"
        _ = try session.cliJSON(AlarmJSON.self, "add", format.string(from: Date().addingTimeInterval(400 * 86_400)), "--title", "Far")
        try suspendOnceInhibited(session)
        let log = try String(contentsOfFile: session.agentLog, encoding: .utf8)
        #expect(log.contains("no wake-up set: the next alarm's"), "\(log)")
        #expect(!log.contains("was not set to wake"), "\(log)")
        #expect(try session.notifications(titled: "Alarms cannot wake this computer").isEmpty, "no false notice")
        #expect(session.rtcWakeAlarm.isEmpty, "nothing written")
        let status = try session.cli("status")
        #expect(status.stdout.contains("Wakes the computer: no; the next alarm is more than 366 days away, beyond the wake-up's reach; a suspend within 366 days of it sets the wake-up"),
                "\(status.stdout)")
        try session.prepareForSleep(false)
    }

    @Test func aWakeUpAMinuteEarlyDoesNotRingEarlyAndTheAlarmRingsOnTime() throws {
        let session = try TestSession(audio: .none, system: .wake(polkitAllows: true))
        try startAgentWithoutAlarmTimers(session)
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "4s", "--title", "Early")
        try suspendOnceInhibited(session)
        try session.prepareForSleep(false)
        _ = try eventually("resumed") { try session.inhibitors() == [reveilleInhibitor] ? true : nil }
        #expect(try session.cliJSON(AlarmJSON.self, "show", timer.id).state == "countdown", "not rung early")
        let alert = try eventually(timeout: 8, "the alert") { try session.alerts(titled: "Early").first }
        #expect(alert.time >= (try fireDate(timer).timeIntervalSince1970) - 0.1, "rang on time, not before")
    }

    @Test func aPolkitRefusalIsSaidOnceAndTheSuspendGoesOn() throws {
        let session = try TestSession(audio: .none, system: .wake(polkitAllows: false))
        try startAgentWithoutAlarmTimers(session)
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "Refused")
        for _ in 0..<2 {
            _ = try eventually("the sleep inhibitor") { try session.inhibitors() == [reveilleInhibitor] ? true : nil }
            try session.prepareForSleep(true)
            _ = try eventually("the inhibitor released all the same") { try session.inhibitors().isEmpty ? true : nil }
            try session.prepareForSleep(false)
        }
        let notices = try eventually("the notice") { () -> [TestSession.Event]? in
            let shown = try session.notifications(titled: "Alarms cannot wake this computer")
            return shown.isEmpty ? nil : shown
        }
        #expect(notices.count == 1, "said once, not at every suspend")
        #expect(notices.first?.body?.contains("not allowed to set the wake-up time") == true, "\(notices.first?.body ?? "")")
        #expect(session.rtcWakeAlarm.isEmpty, "nothing written")
        let status = try session.cli("status")
        #expect(status.stdout.contains("Wakes the computer: no; at the last suspend, you are not allowed"), "\(status.stdout)")
    }

    @Test func withoutTheHelperNothingChangesButAOneTimeNote() throws {
        let session = try TestSession(audio: .none, system: .wake(polkitAllows: true, helper: false))
        try startAgentWithoutAlarmTimers(session)
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "No helper")
        let log = { (try? String(contentsOfFile: session.agentLog, encoding: .utf8)) ?? "" }
        _ = try eventually("the note") { log().contains("the wake helper is not installed") ? true : nil }
        #expect(try session.inhibitors().isEmpty, "no inhibitor without a helper to set the wake-up")
        #expect(log().components(separatedBy: "alarms will not wake the machine").count == 2, "one note")
        #expect(try session.cli("status").stdout.contains("Wakes the computer: no; the wake helper is not installed"))
        // And a session without a system bus at all says so, and rings as ever.
        let bare = try TestSession(audio: .none)
        try startAgentWithoutAlarmTimers(bare)
        #expect(try bare.cli("status").stdout.contains("the system bus cannot be reached"))
    }

    @Test func anAlarmThatOptsOutDoesNotHoldTheInhibitor() throws {
        let session = try TestSession(audio: .none, system: .wake(polkitAllows: true))
        try startAgentWithoutAlarmTimers(session)
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "Quiet", "--no-wake")
        _ = try eventually("the agent to look at the system bus") {
            try session.cli("status").stdout.contains("no alarm is due that should wake the machine") ? true : nil
        }
        #expect(try session.inhibitors().isEmpty)
    }

    @Test func theHelperRefusesEveryBadArgumentAndExitsWhenIdle() throws {
        let session = try TestSession(notifications: .none, audio: .none, system: .wake(polkitAllows: true))
        let call = { (method: String, arguments: [String]) throws -> Subprocess.Result in
            try session.gdbus(["call", "--system", "--dest", WakeHelperInterface.busName, "--object-path", WakeHelperInterface.objectPath,
                               "--method", "\(WakeHelperInterface.interface).\(method)"] + arguments)
        }
        let now = Int(Date().timeIntervalSince1970)
        for bad in ["0", "\(now - 10)", "\(now + 367 * 86_400)", "18446744073709551615"] {
            let result = try call("SetWakeAlarm", ["uint64 \(bad)"])
            #expect(result.status != 0 && result.stderr.contains("Error.InvalidArgument") && result.stderr.contains("accepted:"),
                    "\(bad): \(result.stderr)")
        }
        #expect(try call("SetWakeAlarm", ["'tomorrow'"]).status != 0, "the wrong type never reaches the helper's code")
        #expect(try call("SetWakeAlarm", []).status != 0)
        #expect(session.rtcWakeAlarm.isEmpty, "nothing written for a bad argument")
        #expect(try call("SetWakeAlarm", ["uint64 \(now + 3600)"]).status == 0)
        #expect(session.rtcWakeAlarm == "\(now + 3600)")
        #expect(try call("GetWakeAlarm", []).stdout.contains("\(now + 3600)"))
        #expect(try call("ClearWakeAlarm", []).status == 0)
        #expect(session.rtcWakeAlarm == "0")
        // Idle for 5 s (its --idle-exit here): it leaves the bus, and the next call starts it again.
        _ = try eventually(timeout: 10, "the helper to exit when idle") { try helperIsRunning(session) ? nil : true }
        #expect(try call("GetWakeAlarm", []).status == 0)
    }

    // MARK: The helper while polkit takes its time

    /// Calls the wake helper's `method` in the background (the reply waits for polkit); its
    /// output and errors go to `name`.out / .err in the session's folder.
    func startHelperCall(_ session: TestSession, _ name: String, _ method: String, _ arguments: [String] = []) throws -> Subprocess.Child {
        try Subprocess.start(try Subprocess.find("gdbus", package: "libglib2.0-bin"),
                             ["call", "--system", "--timeout", "120", "--dest", WakeHelperInterface.busName,
                              "--object-path", WakeHelperInterface.objectPath, "--method", "\(WakeHelperInterface.interface).\(method)"]
                             + arguments, environment: session.environment,
                             stdout: session.directory + "/\(name).out", stderr: session.directory + "/\(name).err")
    }

    /// Calls a method of python3-dbusmock's polkit: `SimulateHang true`, `ReleaseHangingCalls`, `HaveHangingCalls`.
    @discardableResult
    func polkit(_ session: TestSession, _ method: String, _ arguments: [String] = []) throws -> String {
        let result = try session.gdbus(["call", "--system", "--dest", "org.freedesktop.PolicyKit1", "--object-path",
                                        "/org/freedesktop/PolicyKit1/Authority", "--method", "org.freedesktop.DBus.Mock.\(method)"] + arguments)
        guard result.status == 0 else { throw Subprocess.Failure("polkit mock \(method) failed: \(result.stderr)") }
        return result.stdout
    }

    /// Lets every local user reach the session's private system bus, as on a real machine:
    /// its folder becomes passable and the bus's policy admits any user (reloaded in place).
    func letOtherUsersIn(_ session: TestSession) throws {
        guard chmod(session.directory, 0o711) == 0 else { throw Subprocess.Failure("chmod \(session.directory) failed") }
        let configuration = session.directory + "/system-bus.conf"
        let text = try String(contentsOfFile: configuration, encoding: .utf8)
        try text.replacingOccurrences(of: "<allow own=\"*\"/>", with: "<allow own=\"*\"/>\n    <allow user=\"*\"/>")
            .write(toFile: configuration, atomically: true, encoding: .utf8)
        let reload = try session.gdbus(["call", "--system", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                                        "--method", "org.freedesktop.DBus.ReloadConfig"])
        guard reload.status == 0 else { throw Subprocess.Failure("ReloadConfig failed: \(reload.stderr)") }
    }

    /// Another local user (`nobody`) sending `count` SetWakeAlarm calls at once, over two
    /// connections (the bus lets one connection wait on at most 128 replies); each answer is a
    /// line of `name`.out: `ok` or the error's name.
    func startFlood(_ session: TestSession, count: Int, instant: Int, name: String) throws -> Subprocess.Child {
        let script = session.directory + "/flood.py"
        try """
            import sys, dbus
            from dbus.mainloop.glib import DBusGMainLoop
            from gi.repository import GLib
            DBusGMainLoop(set_as_default=True)
            helpers = [dbus.Interface(dbus.SystemBus(private=True).get_object('\(WakeHelperInterface.busName)', '\(WakeHelperInterface.objectPath)'),
                                      '\(WakeHelperInterface.interface)') for _ in range(2)]
            def answered(what):
                print(what, flush=True)
            for number in range(\(count)):
                helpers[number % 2].SetWakeAlarm(dbus.UInt64(\(instant)), timeout=300, reply_handler=lambda: answered('ok'),
                                    error_handler=lambda error: answered(error.get_dbus_name()))
            GLib.MainLoop().run()
            """.write(toFile: script, atomically: true, encoding: .utf8)
        guard chmod(script, 0o644) == 0 else { throw Subprocess.Failure("chmod \(script) failed") }
        return try Subprocess.start(try Subprocess.find("setpriv", package: "util-linux"),
                                    ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", script],
                                    environment: session.environment,
                                    stdout: session.directory + "/\(name).out", stderr: session.directory + "/\(name).err")
    }

    func lines(_ session: TestSession, _ name: String) -> [String] {
        ((try? String(contentsOfFile: session.directory + "/\(name).out", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    @Test func oneUsersWaitingChecksDoNotBlockAnotherUsersWakeUp() throws {
        let session = try TestSession(notifications: .none, audio: .none, system: .wake(polkitAllows: true))
        try letOtherUsersIn(session)
        try polkit(session, "SimulateHang", ["true"])
        let now = Int(Date().timeIntervalSince1970)
        // More requests than the 128 replies the system bus lets the helper wait on at once.
        let flood = try startFlood(session, count: 130, instant: now + 7200, name: "flood")
        defer { flood.terminate() }
        _ = try eventually("the first of the other user's requests answered at once") { lines(session, "flood").count >= 2 ? true : nil }

        // This test's user asks while the other user's checks still wait: polkit hears it and it is written.
        let mine = try startHelperCall(session, "mine", "SetWakeAlarm", ["uint64 \(now + 3600)"])
        defer { mine.terminate() }
        _ = try eventually(timeout: 20, "this user's request answered") { () -> Bool? in
            try polkit(session, "ReleaseHangingCalls")
            return mine.isRunning ? nil : true
        }
        let error = (try? String(contentsOfFile: session.directory + "/mine.err", encoding: .utf8)) ?? ""
        #expect(mine.status == 0, "\(error)")
        // The other user: its share admitted (and answered once polkit did), the rest refused by name at once.
        let answers = try eventually("all the other user's requests answered") { () -> [String]? in
            let answers = lines(session, "flood")
            return answers.count == 130 ? answers : nil
        }
        let perUser = WakeHelperInterface.pendingChecksPerUser
        #expect(answers.filter { $0 == "ok" }.count == perUser, "\(Set(answers))")
        #expect(answers.filter { $0.hasSuffix(".Error.TooManyPendingChecks") }.count == 130 - perUser, "\(Set(answers))")
    }

    @Test func theHelperWaitsForPolkitBeforeIdlingOutAndChecksTheInstantAgainAfterwards() throws {
        let session = try TestSession(notifications: .none, audio: .none, system: .wake(polkitAllows: true))
        try polkit(session, "SimulateHang", ["true"])
        let instant = Int(Date().timeIntervalSince1970) + 3
        let call = try startHelperCall(session, "late", "SetWakeAlarm", ["uint64 \(instant)"])
        defer { call.terminate() }
        _ = try eventually("the check waiting in polkit") { try polkit(session, "HaveHangingCalls").contains("true") ? true : nil }
        let asked = Date()
        // The helper's --idle-exit is 5 s here: it must outlast that while polkit has not answered,
        // and the instant (3 s ahead when asked) has passed by then.
        _ = try eventually(timeout: 15, "the idle time and the instant passed, the helper still there") { () throws -> Bool? in
            #expect(try helperIsRunning(session), "the helper exited with a check waiting, after \(Date().timeIntervalSince(asked)) s")
            return Date().timeIntervalSince(asked) > 6 && Date().timeIntervalSince1970 > Double(instant) + 1 ? true : nil
        }
        try polkit(session, "ReleaseHangingCalls")
        #expect(call.wait() != 0)
        let error = (try? String(contentsOfFile: session.directory + "/late.err", encoding: .utf8)) ?? ""
        #expect(error.contains("Error.InvalidArgument") && error.contains("not in the future"), "\(error)")
        #expect(session.rtcWakeAlarm.isEmpty, "a past instant is never written")
        // Then, with nothing waiting, it idles out as before.
        _ = try eventually(timeout: 10, "the helper to exit when idle") { try helperIsRunning(session) ? nil : true }
    }

    @Test func theHelperRefusesAnIdleExitOutOfRangeWithoutATrap() throws {
        // On a system bus, so that an accepted value would get as far as the idle timer.
        let session = try TestSession(notifications: .none, audio: .none, system: .wake(polkitAllows: true))
        for bad in ["5000000", "0", "4294967296", "99999999999999999999", "-1", "soon"] {
            let result = try Subprocess.run(session.binaries + "/reveille-wake-helper",
                                            ["--rtc", session.rtcDirectory, "--idle-exit=\(bad)"], environment: session.environment)
            #expect(result.status == 64 && result.stderr.contains("accepted: whole seconds from 1 to 86400"),
                    "\(bad): status \(result.status), \(result.stderr)")
        }
    }

    @Test func theHelperRefusesACallerPolkitRefuses() throws {
        let session = try TestSession(notifications: .none, audio: .none, system: .wake(polkitAllows: false))
        let now = Int(Date().timeIntervalSince1970)
        let result = try session.gdbus(["call", "--system", "--dest", WakeHelperInterface.busName, "--object-path", WakeHelperInterface.objectPath,
                                        "--method", "\(WakeHelperInterface.interface).SetWakeAlarm", "uint64 \(now + 3600)"])
        #expect(result.status != 0 && result.stderr.contains("Error.NotAuthorized"), "\(result.stderr)")
        #expect(session.rtcWakeAlarm.isEmpty)
    }
}
