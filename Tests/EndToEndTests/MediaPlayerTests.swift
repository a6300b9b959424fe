import Foundation
import ReveilleCore
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// The ringing alarm as a media player (MPRIS), against real peers: playerctl (as the media keys,
/// a sway binding and a phone use it), a recording player playing music, a stand-in screen locker.
@Suite("Media player end to end", .waitsOnItsOwnThread)
struct MediaPlayerTests {
    static let player = "org.mpris.MediaPlayer2.reveille"

    /// The players playerctl finds, by name.
    func players(_ session: TestSession) throws -> [String] {
        try session.playerctl("--list-all").stdout.split(separator: "\n").map(String.init)
    }

    @Test func playerctlFindsTheRingingAlarmSnoozesItWithPlayPauseStopsItWithNextAndFindsNothingAfter() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        #expect(try !players(session).contains("reveille"), "no player while nothing rings")

        let tea = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Tea", "--snooze", "5m")
        _ = try session.eventually(timeout: 10, "the Tea alert") { try session.alerts(titled: "Tea").first }
        _ = try session.eventually(timeout: 10, "playerctl to list Reveille") { try players(session).contains("reveille") ? true : nil }
        #expect(try session.playerctl("--player=reveille", "status").stdout == "Playing\n")
        #expect(try session.playerctl("--player=reveille", "metadata", "title").stdout == "Tea\n")
        #expect(try session.playerctl("--player=reveille", "metadata", "artist").stdout == "Snooze · Stop\n")
        #expect(try session.playerctl("--player=reveille", "metadata", "album").stdout == "Play/Pause: Snooze · Next: Stop\n")
        let track = try session.playerctl("--player=reveille", "metadata", "mpris:trackid").stdout
        #expect(track.contains("/io/github/reveille/Alarm/"), "\(track)")

        // Play/Pause presses the recoverable button: Snooze.
        let snoozed = try session.playerctl("--player=reveille", "play-pause")
        #expect(snoozed.status == 0, "\(snoozed.stderr)")
        _ = try session.eventually("play-pause to snooze Tea") { try session.agentState(of: tea.id) == "countdown" ? true : nil }
        _ = try session.eventually("the player's name to go once nothing rings") { try players(session).contains("reveille") ? nil : true }

        // An alarm whose second button is custom: a key never runs it; Play/Pause stops the alarm.
        let ran = session.directory + "/custom-button-ran"
        let eggs = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Eggs", "--secondary", "run:/usr/bin/touch \(ran)")
        _ = try session.eventually(timeout: 10, "playerctl to list Reveille again") { try players(session).contains("reveille") ? true : nil }
        let artist = try session.playerctl("--player=reveille", "metadata", "artist").stdout
        #expect(artist == "Stop\n", "\(artist)")
        #expect(try session.playerctl("--player=reveille", "play-pause").status == 0)
        _ = try session.eventually("play-pause to stop Eggs") { try session.agentState(of: eggs.id) == nil ? true : nil }
        #expect(!FileManager.default.fileExists(atPath: ran), "the custom button did not run")
        _ = try session.eventually("the player's name to go after the stop") { try players(session).contains("reveille") ? nil : true }

        // Next stops an alarm that has Snooze.
        let toast = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Toast")
        _ = try session.eventually(timeout: 10, "playerctl to list Reveille for Toast") {
            try session.playerctl("--player=reveille", "metadata", "title").stdout == "Toast\n" ? true : nil
        }
        #expect(try session.playerctl("--player=reveille", "next").status == 0)
        _ = try session.eventually("next to stop Toast") { try session.agentState(of: toast.id) == nil ? true : nil }
        _ = try session.eventually("the name to go after next") { try players(session).contains("reveille") ? nil : true }
        #expect(try session.agentState(of: tea.id) == "countdown", "the snoozed Tea was left alone")
    }

    @Test func thePlayKeyThroughGnomeSettingsDaemonSnoozesTheAlarmNotTheMusic() throws {
        let session = try TestSession(notifications: .gnomeShell, audio: .none)
        try session.startGnomeMediaKeys()
        // The music is paused; the Play key starts it once the plugin holds the keys (its grab
        // through the shell takes a moment): a probe that the key arrives, instead of a wait.
        try session.startMediaPlayer("music", playing: false)
        var presses = 0
        _ = try session.eventually("the Play key to reach the music through gsd-media-keys") {
            try session.pressKey("XF86AudioPlay")
            presses += 1
            return try? ReveilleTestSupport.eventually(timeout: 1, "PlayPause") { try session.mediaPlayerCalls("music").contains("PlayPause") ? true : nil }
        }
        // A probe pressed before the grab is mostly lost, but under load one came late, after the
        // alarm's player appeared, and snoozed it before the test pressed anything: every press
        // is let arrive (or not) before the agent starts.
        _ = try? ReveilleTestSupport.eventually(timeout: 3, "every probe's PlayPause") {
            try session.mediaPlayerCalls("music").filter { $0 == "PlayPause" }.count >= presses ? true : nil
        }
        if try session.playerctl("--player=music", "status").stdout != "Playing\n" { try session.playerctl("--player=music", "play") }
        let keysToMusic = try session.mediaPlayerCalls("music").count
        try session.startAgent()
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Wake", "--snooze", "5m")
        _ = try session.eventually(timeout: 10, "Reveille's player to appear") {
            try session.mediaPlayerEvents("music").first { $0.event == "owner" && $0.name == Self.player && $0.owner != "" }
        }
        #expect(Array(try session.mediaPlayerCalls("music").dropFirst(keysToMusic)) == ["Pause"], "the music was paused first")

        try session.pressKey("XF86AudioPlay")
        _ = try session.eventually("the Play key to snooze the alarm") { try session.agentState(of: timer.id) == "countdown" ? true : nil }
        _ = try session.eventually("the music to play again") { try session.mediaPlayerCalls("music").last == "Play" ? true : nil }
        #expect(Array(try session.mediaPlayerCalls("music").dropFirst(keysToMusic)) == ["Pause", "Play"], "the key went to the alarm, not the music")
    }

    @Test func noOtherProgramCanPressTheRingingAlarmsButtonsOrTakeItsPlayerNameButTheUsersTools() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Mine")
        _ = try session.eventually(timeout: 10, "playerctl to list Reveille") { try players(session).contains("reveille") ? true : nil }
        let gdbus = try Subprocess.find("gdbus", package: "libglib2.0-bin")
        let call = [gdbus, "call", "--session", "--dest", Self.player, "--object-path", "/org/mpris/MediaPlayer2", "--method"]
        let next = try session.runSandboxed("org.test.Remote", call + ["org.mpris.MediaPlayer2.Player.Next"])
        #expect(next.status != 0 && next.stderr.contains("AccessDenied"), "\(next.stdout)\(next.stderr)")
        let read = try session.runSandboxed("org.test.Remote", call + ["org.freedesktop.DBus.Properties.Get", "org.mpris.MediaPlayer2.Player", "Metadata"])
        #expect(read.status != 0 && !read.stdout.contains("Mine"), "\(read.stdout)\(read.stderr)")
        #expect(try session.agentState(of: timer.id) == "alerting", "the alarm rings on")
        // The user's own tools are held to the bounds too: the one text a caller sends is short.
        let huge = try session.gdbusCall(destination: Self.player, path: "/org/mpris/MediaPlayer2", method: "org.mpris.MediaPlayer2.Player.OpenUri",
                                         ["'" + String(repeating: "a", count: 5000) + "'"])
        #expect(huge.status != 0 && huge.stderr.contains("LimitsExceeded"), "\(huge.stderr)")
        // Nor can another program take the player's name from it while it rings: the keys stay the alarm's.
        #expect(try session.startMediaPlayer("reveille", replacing: true) != 1, "RequestName with REPLACE_EXISTING did not take the name")
        #expect(try session.ownerPID(of: Self.player) == session.agent?.pid)
        // The same call from the user's own tools stops it.
        let mine = try session.gdbusCall(destination: Self.player, path: "/org/mpris/MediaPlayer2", method: "org.mpris.MediaPlayer2.Player.Next", [])
        #expect(mine.status == 0, "\(mine.stderr)")
        _ = try session.eventually("Next to stop the alarm") { try session.agentState(of: timer.id) == nil ? true : nil }
    }

    /// The player's changes (the ringing alarm's title) are told only to the connections that
    /// read it, which the gate admits as the user's own tools: a program that only listens, in a
    /// sandbox or not, hears none of them (before, PropertiesChanged was broadcast: "Secret
    /// medication" reached every listener).
    @Test func theRingingAlarmsTitleIsToldOnlyToTheToolsThatReadThePlayer() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let gdbus = try Subprocess.find("gdbus", package: "libglib2.0-bin")
        let monitor = ["monitor", "--session", "--dest", Self.player]
        let plain = session.directory + "/listener", boxed = session.directory + "/sandboxed-listener"
        let listeners = [try Subprocess.start(gdbus, monitor, environment: session.environment, stdout: plain),
                         try { let command = try session.sandbox("org.test.Listener") + [gdbus] + monitor
                               return try Subprocess.start(command[0], Array(command.dropFirst()), environment: session.environment, stdout: boxed) }()]
        defer { for listener in listeners { listener.terminate() } }
        func heard(_ file: String) -> String { (try? String(contentsOfFile: file, encoding: .utf8)) ?? "" }
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Tea")
        _ = try session.eventually(timeout: 10, "playerctl to list Reveille") { try players(session).contains("reveille") ? true : nil }
        for file in [plain, boxed] {
            _ = try session.eventually(timeout: 10, "\(file) to listen to the player") { heard(file).contains("is owned by") ? true : nil }
        }
        let followed = session.directory + "/followed"
        let follower = try Subprocess.start(try Subprocess.find("playerctl", package: "playerctl"), ["--player=reveille", "--follow", "metadata", "title"],
                                            environment: session.environment, stdout: followed)
        defer { follower.terminate() }
        _ = try session.eventually(timeout: 10, "playerctl to read the title") { heard(followed).contains("Tea") ? true : nil }
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Secret medication")
        _ = try session.eventually(timeout: 10, "playerctl to hear the new title") { heard(followed).contains("Secret medication") ? true : nil }
        for file in [plain, boxed] {
            #expect(!heard(file).contains("medication") && !heard(file).contains("PropertiesChanged"), "\(file) heard: \(heard(file))")
        }
    }

    @Test func musicThatPlaysIsPausedBeforeThePlayerAppearsAndPlaysAgainAfter() throws {
        let session = try TestSession(audio: .none)
        try session.startMediaPlayer("music")
        try session.startMediaPlayer("radio", canPause: false)
        try session.startMediaPlayer("podcast", playing: false)
        try session.startAgent()
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Wake")
        _ = try session.eventually(timeout: 10, "the music to be paused") { try session.mediaPlayerCalls("music") == ["Pause"] ? true : nil }
        _ = try session.eventually("the radio, which cannot pause, to be stopped") { try session.mediaPlayerCalls("radio") == ["Stop"] ? true : nil }
        // The media keys go to a new player only when none plays: the music was quiet first.
        let taken = try session.eventually("Reveille's player name to be taken") {
            try session.mediaPlayerEvents("music").first { $0.event == "owner" && $0.name == Self.player && $0.owner != "" }
        }
        let paused = try #require(try session.mediaPlayerEvents("music").first { $0.method == "Pause" })
        #expect(paused.time <= taken.time, "paused at \(paused.time), the name taken at \(taken.time)")

        try session.cli("stop", timer.id)
        _ = try session.eventually("the music to play again") { try session.mediaPlayerCalls("music") == ["Pause", "Play"] ? true : nil }
        _ = try session.eventually("the radio to play again") { try session.mediaPlayerCalls("radio") == ["Stop", "Play"] ? true : nil }
        _ = try session.eventually("the player's name to go") {
            try session.mediaPlayerEvents("music").first { $0.event == "owner" && $0.name == Self.player && $0.owner == "" }
        }
        #expect(try session.mediaPlayerCalls("podcast").isEmpty, "a paused player is left alone, before and after")

        // A player that left while the alarm rang is forgotten, not an error.
        let second = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Again")
        _ = try session.eventually(timeout: 10, "the music to be paused again") { try session.mediaPlayerCalls("music").count == 3 ? true : nil }
        try session.stopMediaPlayer("music")
        try session.cli("stop", second.id)
        try session.waitForAgentLog("has gone; nothing to play again")
        #expect(try session.agentState(of: second.id) == nil)
    }

    /// The person played the paused music and paused it again while the alarm rang: it is theirs
    /// now, and stays paused after the alarm (before, it was played again).
    @Test func musicThePersonTookOverDuringTheRingIsLeftAsTheyLeftIt() throws {
        let session = try TestSession(audio: .none)
        try session.startMediaPlayer("music")
        try session.startAgent()
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Wake")
        _ = try session.eventually(timeout: 10, "the music to be paused") { try session.mediaPlayerCalls("music") == ["Pause"] ? true : nil }
        _ = try session.eventually(timeout: 10, "playerctl to list Reveille") { try players(session).contains("reveille") ? true : nil }
        #expect(try session.playerctl("--player=music", "play").status == 0)
        #expect(try session.playerctl("--player=music", "pause").status == 0)
        try session.waitForAgentLog("was made Playing during the alarm")
        try session.cli("stop", timer.id)
        _ = try session.eventually("the alarm's player to go") { try players(session).contains("reveille") ? nil : true }
        try session.waitForAgentLog("nothing rings: released")
        #expect(try session.mediaPlayerCalls("music") == ["Pause", "Play", "Pause"], "played again by the agent after the person paused it")
    }

    /// One program holding 40 player names that sort before the music's hid it (32 were read):
    /// each owner is read once, up to 256 names, and the music is paused.
    @Test func manyPlayerNamesOfOneProgramDoNotHideTheMusic() throws {
        let session = try TestSession(audio: .none)
        try session.startMediaPlayer("aaa", playing: false, extraNames: 40)
        try session.startMediaPlayer("music")
        try session.startAgent()
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Wake")
        _ = try session.eventually(timeout: 10, "the music to be paused") { try session.mediaPlayerCalls("music") == ["Pause"] ? true : nil }
        #expect(try session.mediaPlayerCalls("aaa").isEmpty)
    }

    /// Another program that holds the player's name is named by `reveille status`: media keys
    /// would reach it, not the alarm (before, status said the media keys answer).
    @Test func statusNamesAProgramThatHoldsThePlayersName() throws {
        let session = try TestSession(audio: .none)
        try session.startMediaPlayer("reveille")
        try session.startAgent()
        let status = try session.eventually("status to name who holds the player's name") {
            let output = try session.cli("status").stdout
            return output.contains("holds the name org.mpris.MediaPlayer2.reveille") ? output : nil
        }
        #expect(status.contains("python3 (process "), "\(status)")
        #expect(!status.contains("a ringing alarm is a media player"), "\(status)")
        try session.waitForAgentLog("holds org.mpris.MediaPlayer2.reveille: media keys")
    }

    @Test func theSettingLeavesTheMusicPlaying() throws {
        let session = try TestSession(audio: .none)
        try FileManager.default.createDirectory(atPath: session.directory + "/config/reveille", withIntermediateDirectories: true)
        try Data(#"{"pauseMediaPlayers": false}"#.utf8).write(to: URL(fileURLWithPath: session.directory + "/config/reveille/settings.json"))
        try session.startMediaPlayer("music")
        try session.startAgent()
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Wake")
        _ = try session.eventually(timeout: 10, "Reveille's player to appear") {
            try session.mediaPlayerEvents("music").first { $0.event == "owner" && $0.name == Self.player && $0.owner != "" }
        }
        try session.cli("stop", timer.id)
        _ = try session.eventually("the player's name to go") {
            try session.mediaPlayerEvents("music").first { $0.event == "owner" && $0.name == Self.player && $0.owner == "" }
        }
        #expect(try session.mediaPlayerCalls("music").isEmpty, "the music was neither paused nor played")
    }

    @Test(arguments: [TestSession.ScreenLocker.gnome, .freedesktop])
    func anUnlockWhileItRingsShowsTheAlertAfresh(locker: TestSession.ScreenLocker) throws {
        let session = try TestSession(audio: .none)
        try session.startScreenLocker(locker, locked: true)
        try session.startAgent()
        try session.waitForAgentLog("the session is locked (\(locker.busName))")
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Wake")
        let first = try session.eventually(timeout: 10, "the Wake alert") { try session.alerts(titled: "Wake").first }

        let unlocked = Date().timeIntervalSince1970
        try session.setScreenLocked(locker, false)
        let fresh = try session.eventually("a fresh alert after the unlock") { try session.alerts(titled: "Wake").first { $0.time >= unlocked } }
        #expect(fresh.id != first.id, "a new notification, not the old one updated in place")
        _ = try session.eventually("the alert from before the unlock to be closed") { try session.events.first { $0.event == "closed" && $0.id == first.id } }
        #expect(try session.agentState(of: timer.id) == "alerting")

        // An unlock with nothing ringing shows nothing.
        try session.cli("stop", timer.id)
        try session.setScreenLocked(locker, true)
        try session.setScreenLocked(locker, false)
        try session.waitForAgentLog("the session is unlocked", count: 2)
        #expect(try session.alerts(titled: "Wake").count == 2)
    }

    /// Whoever owns a screen saver's name can toggle it as fast as the bus carries signals:
    /// four lock and unlock lines a burst are logged, then one line says how many were left out
    /// (before: a line each, 207 MB of log in 20 s), and the agent answers the user meanwhile.
    @Test func aScreenSaverToggledFastIsLoggedFourTimesABurstThenCounted() throws {
        let session = try TestSession(audio: .none)
        try session.startScreenLocker(.freedesktop, locked: false)
        try session.startAgent()
        for index in 0..<30 { try session.setScreenLocked(.freedesktop, index % 2 == 0) }
        try session.waitForAgentLog("lock and unlock changes were not logged", timeout: 20)
        let logged = session.agentLogLines(containing: "the session is locked").count + session.agentLogLines(containing: "the session is unlocked").count
        #expect(logged <= 4 * 2, "\(logged) lock and unlock lines for 30 changes in one or two bursts")
        let counted = session.agentLogLines(containing: "lock and unlock changes were not logged")
        #expect(counted.count == 1, "\(counted)")
        #expect(try session.cli("list").status == 0)
    }

    @Test func logindsLockedHintIsFollowedToo() throws {
        let session = try TestSession(audio: .none, system: .wake(polkitAllows: false, helper: false))
        let display = try session.addLogindDisplaySession()
        try session.setLockedHint(display, true)
        try session.startAgent()
        try session.waitForAgentLog("the session is locked (org.freedesktop.login1)")
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Hint")
        let first = try session.eventually(timeout: 10, "the Hint alert") { try session.alerts(titled: "Hint").first }
        try session.setLockedHint(display, false)
        let fresh = try session.eventually("a fresh alert after the unlock") { try session.alerts(titled: "Hint").first { $0.id != first.id } }
        #expect(fresh.time > first.time)
    }

    @Test func anUnlockWhileItRingsOpensTheAlertWindowAfresh() throws {
        let session = try TestSession(audio: .none)
        try session.startDisplay()
        try FileManager.default.createDirectory(atPath: session.directory + "/config/reveille", withIntermediateDirectories: true)
        try #"{"alertWindow": "always"}"#.write(toFile: session.directory + "/config/reveille/settings.json", atomically: true, encoding: .utf8)
        try session.startScreenLocker(.gnome, locked: true)
        try session.startAgent()
        try session.waitForAgentLog("the session is locked")
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Window")
        _ = try session.eventually(timeout: 60, "the alert window on screen") { try session.windows(titled: "Window").first }

        try session.setScreenLocked(.gnome, false)
        try session.waitForAgentLog("opened the alert window of", count: 2)
        // The window's process, as the agent logged each (X may give the new window the old one's id).
        let log = try String(contentsOfFile: session.agentLog, encoding: .utf8)
        let processes = log.matches(of: /opened the alert window of \S+ \(pid (\d+)\)/).compactMap { Int32($0.1) }
        #expect(processes.count == 2 && processes[0] != processes[1], "\(processes)")
        _ = try session.eventually(timeout: 60, "the old window's process gone, one window on screen, the new one's") {
            let oldGone = kill(processes[0], 0) != 0 && errno == ESRCH
            let onScreen = try session.windows(titled: "Window").count
            return oldGone && kill(processes[1], 0) == 0 && onScreen == 1 ? true : nil
        }
    }

    @Test func statusSaysHowARingingAlarmIsAnsweredAndWarnsOfALockerThatSilencesIt() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        // The notification server's capabilities come a moment after the agent's start (under
        // load, after its first answers): until then status cannot name its buttons.
        let plain = try eventually(timeout: 30, "status naming the notification's buttons") { () -> Subprocess.Result? in
            let status = try session.cli("status")
            return status.stdout.contains("A ringing alarm is answered here by:\n  - the notification's buttons\n") ? status : nil
        }
        #expect(plain.stdout.contains("media keys and headset buttons"), "\(plain.stdout)")
        #expect(plain.stdout.contains("Screen locker: none found"), "\(plain.stdout)")
        #expect(!plain.stdout.contains("Warning"), "\(plain.stdout)")

        try session.startScreenLocker(.lightLocker, locked: false)
        try session.waitForAgentLog("the screen locker is light-locker")
        let warned = try session.cli("status")
        #expect(warned.stdout.contains("Screen locker: light-locker (not locked now)"), "\(warned.stdout)")
        #expect(warned.stdout.contains("Warning: light-locker switches to another virtual terminal"), "\(warned.stdout)")
        struct Status: Decodable {
            struct Answering: Decodable { var notificationButtons: Bool; var mediaPlayer: Bool; var lockers: [String]; var silencingLocker: String? }
            var answering: Answering?
        }
        let json = try session.cliJSON(Status.self, "status")
        #expect(json.answering?.silencingLocker == "light-locker" && json.answering?.lockers == ["light-locker"])
        #expect(json.answering?.notificationButtons == true && json.answering?.mediaPlayer == true)
    }
}
