import Foundation
import ReveilleCore
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// AlarmKit's countdown and paused presentations as live notifications, against the recording server.
@Suite("Live presentation end to end", .waitsOnItsOwnThread)
struct LivePresentationTests {
    @Test func countdownPausesResumesAndTurnsIntoTheAlertInOneSlot() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "4s", "--title", "Pasta")
        let countdown = try eventually(timeout: 3, "the countdown notification") { try session.notifications(titled: "Pasta").first }
        #expect(countdown.hints?["urgency"] == .number(1))
        #expect(countdown.actions?.contains("Pause") == true && countdown.actions?.contains("Cancel") == true)
        guard case .number(let progress)? = countdown.hints?["value"] else {
            Issue.record("the countdown carries a value hint: \(String(describing: countdown.hints))"); return
        }
        #expect((0...100).contains(progress))
        #expect(countdown.body?.contains("Rings at") == true && countdown.body?.contains("left") == true)

        // Pause: the paused presentation takes the countdown's place, and the timer does not ring while paused.
        usleep(500_000)
        try session.press(label: "Pause", on: countdown.id)
        let paused = try eventually("the paused notification") {
            try session.notifications(titled: "Pasta").first { $0.actions?.contains("Resume") == true }
        }
        #expect(paused.id != countdown.id, "after a button press, a new notification: the server may have closed the old one")
        _ = try eventually("the countdown to be closed") { try session.events.first { $0.event == "closed" && $0.id == countdown.id } }
        #expect(paused.body?.contains("Paused") == true)
        let listed = try session.cliJSON(AlarmJSON.self, "show", timer.id)
        #expect(listed.state == "paused")
        let left = try #require(listed.timeRemaining)
        #expect(left > 2 && left < 3.8, "time ran before the pause, and the pause kept what was left")
        // That its instant passes without a ring is tested on virtual time (the runtime's
        // tests); here, the paused notification is what stays.
        #expect(try session.alerts(titled: "Pasta").isEmpty, "a paused timer does not ring")

        // Resume continues from the time left, and the alert comes as a fresh notification (a
        // server may keep a replaced banner collapsed, without its buttons).
        let resumed = Date().timeIntervalSince1970
        try session.press(label: "Resume", on: paused.id)
        let alert = try eventually(timeout: 20, "the alert after resuming") { try session.alerts(titled: "Pasta").first }
        #expect(alert.id != countdown.id && alert.id != paused.id, "a fresh notification")
        let resumedCountdown = try #require(try session.notifications(titled: "Pasta").first {
            $0.time >= resumed && $0.hints?["urgency"] == .number(1)
        })
        _ = try eventually("the resumed countdown to give way to the alert") {
            try session.events.first { $0.event == "closed" && $0.id == resumedCountdown.id }
        }
        #expect(alert.time - resumed > left - 0.6 && alert.time - resumed < left + 1.5,
                "rang \(alert.time - resumed) s after Resume with \(left) s left")
    }

    @Test func restartedServerGetsTheAlertAgainWithinASecondWithItsCapabilities() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Restart")
        _ = try eventually(timeout: 20, "the alert") { try session.alerts(titled: "Restart").first }
        try session.stopNotificationServer()
        let stopped = Date().timeIntervalSince1970
        // The new server has no action buttons: the agent must notice and explain in the body.
        try session.startNotificationServer(profile: "plain")
        let back = Date().timeIntervalSince1970
        let again = try eventually(timeout: 3, "the alert on the new server") {
            try session.alerts(titled: "Restart").first { $0.time > stopped }
        }
        #expect(again.time - back < 1, "shown again \(again.time - back) s after the server came back")
        // Once the agent knows the new server's buttons cannot answer, the body says how to
        // (as soon as the reach watch has asked the new server: seconds on a loaded machine).
        _ = try eventually(timeout: 10, "the alert to say how to stop it from a terminal") {
            try session.alerts(titled: "Restart").first {
                $0.time > stopped && $0.body?.contains("reveille stop \(timer.id.prefix(8))") == true
            }
        }
    }

    // An alarm due while no server runs, shown once one appears, is checked on virtual time:
    // ShellsOnVirtualTimeTests.anAlarmDueWithoutAServerIsShownWhenOneAppears.
}

@Suite("reveille watch in a terminal", .waitsOnItsOwnThread)
struct WatchTerminalTests {
    @Test func liveViewShowsProgressAndAnswersKeys() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let tmux = try Subprocess.find("tmux", package: "tmux")
        let server = ["-L", "reveille-\(UUID().uuidString.prefix(8))"]
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "10m", "--title", "Bread")
        let command = ["env"] + session.environment.filter { ["DBUS_SESSION_BUS_ADDRESS", "XDG_STATE_HOME", "HOME"].contains($0.key) }
            .map { "\($0.key)=\($0.value)" } + [session.binaries + "/reveille", "watch"]
        let started = try Subprocess.run(tmux, server + ["new-session", "-d", "-s", "watch", "-x", "100", "-y", "10"] + command,
                                         environment: session.environment)
        #expect(started.status == 0, "\(started.stderr)")
        defer { _ = try? Subprocess.run(tmux, server + ["kill-server"], environment: session.environment) }
        let screen = { try Subprocess.run(tmux, server + ["capture-pane", "-p", "-t", "watch"], environment: session.environment).stdout }
        let row = try eventually(timeout: 20, "the live row") { try screen().split(separator: "\n").first { $0.contains("Bread") } }
        #expect(row.contains("countdown") && row.contains("[") && row.contains("left"), "\(row)")

        _ = try Subprocess.run(tmux, server + ["send-keys", "-t", "watch", "p"], environment: session.environment)
        _ = try eventually(timeout: 20, "p to pause the timer") {
            try session.agentState(of: timer.id) == "paused" ? true : nil
        }
        _ = try eventually(timeout: 20, "the row to show paused") { try screen().contains("paused") ? true : nil }
        _ = try Subprocess.run(tmux, server + ["send-keys", "-t", "watch", "r"], environment: session.environment)
        _ = try eventually(timeout: 20, "r to resume it") {
            try session.agentState(of: timer.id) == "countdown" ? true : nil
        }
        _ = try Subprocess.run(tmux, server + ["send-keys", "-t", "watch", "q"], environment: session.environment)
        _ = try eventually(timeout: 20, "q to quit") {
            try Subprocess.run(tmux, server + ["has-session", "-t", "watch"], environment: session.environment).status != 0 ? true : nil
        }
    }
}
