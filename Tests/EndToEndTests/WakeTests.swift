import Foundation
import Testing
import ReveilleCore
import ReveilleTestSupport

/// Waking from suspend, without a real suspend: a private system bus with logind and polkit
/// from python3-dbusmock, and the real wake helper writing to a stand-in RTC folder.
@Suite("Wake from suspend end to end", .serialized, .waitsOnItsOwnThread)
struct WakeTests {
    let reveilleInhibitor = ["sleep", "Reveille", "Setting the wake-up time for the next alarm", "delay"]

    func fireDate(_ alarm: AlarmJSON) throws -> Date {
        try #require(alarm.fireDate.flatMap { ISO8601Local.parse($0, defaultTimeZone: UTCTimeZone()) })
    }

    @Test func theWakeUpIsSetBeforeTheInhibitorIsReleasedAndResumeTakesItAgain() throws {
        let session = try TestSession(audio: .none, system: .wake(polkitAllows: true))
        try session.startAgent()
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

    @Test func aWakeUpAMinuteEarlyDoesNotRingEarlyAndTheAlarmRingsOnTime() throws {
        let session = try TestSession(audio: .none, system: .wake(polkitAllows: true))
        try session.startAgent()
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "4s", "--title", "Early")
        _ = try eventually("the sleep inhibitor") { try session.inhibitors() == [reveilleInhibitor] ? true : nil }
        try session.prepareForSleep(true)
        _ = try eventually("the inhibitor released") { try session.inhibitors().isEmpty ? true : nil }
        try session.prepareForSleep(false)
        _ = try eventually("resumed") { try session.inhibitors() == [reveilleInhibitor] ? true : nil }
        #expect(try session.cliJSON(AlarmJSON.self, "show", timer.id).state == "countdown", "not rung early")
        let alert = try eventually(timeout: 8, "the alert") { try session.alerts(titled: "Early").first }
        #expect(alert.time >= (try fireDate(timer).timeIntervalSince1970) - 0.1, "rang on time, not before")
    }

    @Test func aPolkitRefusalIsSaidOnceAndTheSuspendGoesOn() throws {
        let session = try TestSession(audio: .none, system: .wake(polkitAllows: false))
        try session.startAgent()
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
        try session.startAgent()
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "No helper")
        let log = { (try? String(contentsOfFile: session.agentLog, encoding: .utf8)) ?? "" }
        _ = try eventually("the note") { log().contains("the wake helper is not installed") ? true : nil }
        #expect(try session.inhibitors().isEmpty, "no inhibitor without a helper to set the wake-up")
        #expect(log().components(separatedBy: "alarms will not wake the machine").count == 2, "one note")
        #expect(try session.cli("status").stdout.contains("Wakes the computer: no; the wake helper is not installed"))
        // And a session without a system bus at all says so, and rings as ever.
        let bare = try TestSession(audio: .none)
        try bare.startAgent()
        #expect(try bare.cli("status").stdout.contains("the system bus cannot be reached"))
    }

    @Test func anAlarmThatOptsOutDoesNotHoldTheInhibitor() throws {
        let session = try TestSession(audio: .none, system: .wake(polkitAllows: true))
        try session.startAgent()
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
        _ = try eventually(timeout: 10, "the helper to exit when idle") {
            let owned = try session.gdbus(["call", "--system", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                                           "--method", "org.freedesktop.DBus.NameHasOwner", WakeHelperInterface.busName])
            return owned.stdout.contains("false") ? true : nil
        }
        #expect(try call("GetWakeAlarm", []).status == 0)
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
