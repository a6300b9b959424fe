import Foundation
import ReveilleCore
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// Sound against a real PulseAudio with a null sink, heard through its monitor.
@Suite("Sound end to end", .waitsOnItsOwnThread)
struct SoundTests {
    /// A fixed instant `seconds` from now, on a whole second, as the CLI takes it.
    func wholeSecond(in seconds: Double) -> (text: String, date: Date) {
        let date = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + seconds).rounded(.up))
        return (String(ISO8601Local.string(from: date, in: UTCTimeZone()).prefix(19)), date)
    }

    @Test func alarmRingsAtItsInstantLoopsPastTheFileAndStopsAtOnce() throws {
        let session = try TestSession()
        try session.startAgent()
        let recorder = try SinkRecorder(session: session)
        let due = wholeSecond(in: 2)
        let alarm = try session.cliJSON(AlarmJSON.self, "add", due.text, "--title", "Ring")
        #expect(!recorder.heard(from: Date.distantPast, to: due.date.addingTimeInterval(-0.3)), "silent before it is due")
        let first = try eventually(timeout: 20, "the alarm to be heard") { recorder.firstAudible(after: due.date.addingTimeInterval(-0.3)) }
        #expect(first.timeIntervalSince(due.date) < 1, "it rings at its instant, not later")
        // alarm.wav is 1.1 s long: still ringing at 2.5 s means it loops.
        try recorder.waitUntilRecorded(due.date.addingTimeInterval(2.8))
        #expect(recorder.heard(from: due.date.addingTimeInterval(2.3), to: due.date.addingTimeInterval(2.8)))
        let notification = try #require(try session.alerts(titled: "Ring").first)
        #expect(notification.hints?["suppress-sound"] == .flag(true), "Reveille rings itself, so the server need not")
        let stopped = Date()
        #expect(try session.cli("stop", alarm.id).status == 0)
        try recorder.waitUntilRecorded(stopped.addingTimeInterval(1))
        let last = try #require(recorder.lastAudible())
        #expect(last.timeIntervalSince(stopped) < 0.5, "silent soon after Stop")
        #expect(!recorder.heard(from: stopped.addingTimeInterval(0.5), to: Date()))
    }

    @Test func pulseAudioKilledMidRingLeavesTheAlertUpAndRingingResumes() throws {
        let session = try TestSession()
        try session.startAgent()
        var recorder = try SinkRecorder(session: session)
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Outage")
        _ = try eventually(timeout: 20, "the timer to be heard") { recorder.firstAudible(after: Date.distantPast) }
        let alert = try eventually(timeout: 20, "the alert") { try session.alerts(titled: "Outage").first }
        recorder.stop()
        session.killPulseAudio()
        // The agent has heard the stream end, and what it does about it is done.
        try session.waitForAgentLog("PulseAudio is not reachable")
        #expect(session.agent?.isRunning == true, "the agent survives losing PulseAudio")
        #expect(try session.events.allSatisfy { $0.event != "closed" || $0.id != alert.id }, "the alert stays up")
        #expect(try session.cliJSON([AlarmJSON].self, "list").map(\.state) == ["alerting"])
        try session.startPulse()
        recorder = try SinkRecorder(session: session)
        let back = Date()
        _ = try eventually(timeout: 20, "ringing to resume on the new PulseAudio") { recorder.firstAudible(after: back) }
    }

    @Test func mutedSinkIsUnmutedForTheAlarmAndMutedAgainAfterStop() throws {
        let session = try TestSession()
        try session.startAgent()
        #expect(try session.pactl("set-sink-mute", "testsink", "1").status == 0)
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Muted")
        _ = try eventually(timeout: 20, "the sink to be unmuted for the alarm") {
            try session.pactl("get-sink-mute", "testsink").stdout.contains("no") ? true : nil
        }
        #expect(FileManager.default.fileExists(atPath: session.stateDirectory + "/sink-override.json"),
                "what was changed is on disk before the change, to survive a crash")
        #expect(try session.cli("stop", timer.id).status == 0)
        _ = try eventually(timeout: 20, "the sink to be muted again") {
            try session.pactl("get-sink-mute", "testsink").stdout.contains("yes") ? true : nil
        }
        #expect(!FileManager.default.fileExists(atPath: session.stateDirectory + "/sink-override.json"))
    }

    @Test func aSecondAgentThatLosesTheRaceLeavesTheSinkAndItsRecordAlone() throws {
        let session = try TestSession()
        try session.startAgent()
        #expect(try session.pactl("set-sink-mute", "testsink", "1").status == 0)
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Ringing")
        _ = try eventually(timeout: 20, "the sink to be unmuted for the alarm") {
            try session.pactl("get-sink-mute", "testsink").stdout.contains("no") ? true : nil
        }
        // Autostart racing D-Bus activation: a second agent starts, finds the name taken, exits.
        let second = try Subprocess.run(session.binaries + "/reveille-agent", [], environment: session.environment)
        #expect(second.status == 1 && second.stderr.contains("already owns"), "\(second.stderr)")
        #expect(try session.pactl("get-sink-mute", "testsink").stdout.contains("no"), "the ringing alarm's sink stays unmuted")
        #expect(FileManager.default.fileExists(atPath: session.stateDirectory + "/sink-override.json"),
                "the running agent's record of what to restore is kept")
    }

    @Test func aFrozenNotificationServerDelaysNeitherTheSoundNorTheAgent() throws {
        let session = try TestSession()
        try session.startAgent()
        let recorder = try SinkRecorder(session: session)
        let server = try #require(try session.ownerPID(of: "org.freedesktop.Notifications"))
        kill(server, SIGSTOP)
        defer { kill(server, SIGCONT) }
        // Three alarms due together: each Notify now waits for a server that never answers.
        let started = Date()
        for title in ["One", "Two", "Three"] { #expect(try session.cli("timer", "1s", "--title", title).status == 0) }
        let heard = try eventually(timeout: 20, "the alarms to be heard while the server is frozen") {
            recorder.firstAudible(after: started)
        }
        #expect(heard.timeIntervalSince(started) < 2.5, "rang \(heard.timeIntervalSince(started)) s after scheduling 1 s timers")
        // The agent still answers: every alarm rings, none waits for its notification.
        _ = try eventually(timeout: 3, "all three to ring") {
            try session.cliJSON([AlarmJSON].self, "list").allSatisfy { $0.state == "alerting" } ? true : nil
        }
        kill(server, SIGCONT)
        _ = try eventually(timeout: 10, "the alerts once the server answers again") {
            try session.alerts(titled: "Three").first
        }
    }

    @Test func aKilledStreamIsStartedAgainWhileTheAlarmRings() throws {
        let session = try TestSession()
        try session.startAgent()
        let recorder = try SinkRecorder(session: session)
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Killed")
        _ = try eventually(timeout: 20, "the alarm to be heard") { recorder.firstAudible(after: .distantPast) }
        let input = try eventually("the alarm's sink input") { () -> String? in
            try session.pactl("list", "short", "sink-inputs").stdout.split(separator: "\n").first?.split(separator: "\t").first.map(String.init)
        }
        try session.pulseCommand("kill-sink-input \(input)")
        let killed = Date()
        _ = try eventually(timeout: 20, "the alarm to ring again on a new stream") { () -> Bool? in
            let inputs = try session.pactl("list", "short", "sink-inputs").stdout
            return !inputs.isEmpty && !inputs.hasPrefix(input + "\t") && recorder.firstAudible(after: killed.addingTimeInterval(0.3)) != nil
                ? true : nil
        }
        let log = try String(contentsOfFile: session.agentLog, encoding: .utf8)
        #expect(!log.contains("not reachable"), "the log says what happened: \(log)")
    }

    /// A 16-bit stereo 48 kHz WAV of `bytes` bytes of audio: `loudSeconds` of a square wave
    /// of `amplitude`, then silence left sparse on disk. An existing file is written over in
    /// place (the same inode).
    static func writeWAV(_ path: String, bytes: Int, loudSeconds: Int, amplitude: Int = 12_000) throws {
        func le32(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt32(value).littleEndian, Array.init) }
        func le16(_ value: Int) -> [UInt8] { withUnsafeBytes(of: UInt16(value).littleEndian, Array.init) }
        var header: [UInt8] = Array("RIFF".utf8) + le32(36 + bytes) + Array("WAVEfmt ".utf8) + le32(16) + le16(1) + le16(2)
        header += le32(48_000) + le32(48_000 * 4) + le16(4) + le16(16) + Array("data".utf8) + le32(bytes)
        var loud: [UInt8] = []
        for frame in 0..<(48_000 * loudSeconds) {
            let sample = le16(frame / 50 % 2 == 0 ? amplitude : Int(UInt16(bitPattern: Int16(-amplitude))))
            loud += sample + sample
        }
        if !FileManager.default.fileExists(atPath: path) { FileManager.default.createFile(atPath: path, contents: nil) }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.write(contentsOf: Data(header + loud))
        try handle.truncate(atOffset: UInt64(header.count + loud.count))
        try handle.truncate(atOffset: UInt64(header.count + bytes))
        try handle.close()
    }

    /// The loudest the sink played in the first half second of a 2 s timer started at `started`.
    func peakOfRing(_ recorder: SinkRecorder, startedAt started: Date) throws -> Int {
        let heard = try eventually(timeout: 20, "the timer to be heard") { recorder.firstAudible(after: started.addingTimeInterval(1.5)) }
        _ = try eventually(timeout: 3, "half a second of it") { recorder.chunks.last.map { $0.time > heard.addingTimeInterval(0.5) } == true ? true : nil }
        return recorder.chunks.filter { $0.time >= heard && $0.time <= heard.addingTimeInterval(0.5) }.map(\.peak).max() ?? 0
    }

    @Test func aSoundFileChangedOrTruncatedBetweenRingsIsDecodedAgainAndNeverRingsSilence() throws {
        let session = try TestSession()
        try session.startAgent()
        let recorder = try SinkRecorder(session: session)
        let tone = session.directory + "/tone.wav"
        let second = 48_000 * 4
        try SoundTests.writeWAV(tone, bytes: second, loudSeconds: 1, amplitude: 12_000)
        /// Schedules a 2 s timer ringing the file, then `change`s the file; the loudest it rang.
        func ring(_ title: String, after change: () throws -> Void = {}) throws -> Int {
            let started = Date()
            let timer = try session.cliJSON(AlarmJSON.self, "timer", "2s", "--title", title, "--sound", tone)
            try change()
            let peak = try peakOfRing(recorder, startedAt: started)
            #expect(try session.cli("stop", timer.id).status == 0)
            return peak
        }
        // Rung once: decoded and kept in memory.
        let loud = try ring("Loud")
        #expect(loud > 9_000, "the tone itself: \(loud)")
        // The same file (inode, size) written over in place, quieter: the new sound rings, not the kept one.
        let quiet = try ring("Quiet") { try SoundTests.writeWAV(tone, bytes: second, loudSeconds: 1, amplitude: 3_000) }
        #expect(quiet > SinkRecorder.audible && quiet < 6_000, "the file as it is now: \(quiet)")
        // Written over with silence, or truncated to its header, after it was scheduled: the
        // default sound rings, never silence.
        let silenced = try ring("Silenced") { try SoundTests.writeWAV(tone, bytes: second, loudSeconds: 0) }
        #expect(silenced >= SinkRecorder.audible, "a file that decodes to silence rings the default")
        try SoundTests.writeWAV(tone, bytes: second, loudSeconds: 1)
        let truncated = try ring("Truncated") {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: tone))
            try handle.truncate(atOffset: 44)
            try handle.close()
        }
        #expect(truncated >= SinkRecorder.audible, "a truncated file rings the default")
        let log = try String(contentsOfFile: session.agentLog, encoding: .utf8)
        #expect(log.contains("\(tone) decodes to silence; ringing the default sound instead"), "\(log)")
        #expect(log.contains("\(tone) has 2 channels at 48000 Hz and 0 frames"), "\(log)")
        // The user is told at once when a file can only ring silence.
        try SoundTests.writeWAV(tone, bytes: second, loudSeconds: 0)
        let silent = try session.cli("timer", "1m", "--sound", tone)
        #expect(silent.status != 0 && silent.stderr.contains("\(tone) decodes to silence"), "\(silent.stderr)")
    }

    @Test func aLongSoundFileTruncatedWhileItRingsHandsOverToTheDefaultNotSilence() throws {
        let session = try TestSession()
        try session.startAgent()
        let recorder = try SinkRecorder(session: session)
        // 50 s of 48 kHz stereo, more than is kept in memory: read from the file as it plays.
        let song = session.directory + "/song.wav"
        try SoundTests.writeWAV(song, bytes: 48_000 * 4 * 50, loudSeconds: 5)
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Song", "--sound", song)
        let heard = try eventually(timeout: 20, "the song to be heard") { recorder.firstAudible(after: .distantPast) }
        _ = try eventually(timeout: 3, "a moment of it") { Date() > heard.addingTimeInterval(0.5) ? true : nil }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: song))
        try handle.truncate(atOffset: 44)
        try handle.close()
        let truncated = Date()
        _ = try eventually(timeout: 3, "two seconds after the truncation") {
            recorder.chunks.last.map { $0.time > truncated.addingTimeInterval(2) } == true ? true : nil
        }
        #expect(recorder.heard(from: truncated.addingTimeInterval(1), to: truncated.addingTimeInterval(2)), "the default sound, not silence")
        #expect(try session.cli("stop", timer.id).status == 0)
    }

    @Test func ringLimitStopsAnUnansweredAlarmAndReportsItMissed() throws {
        let session = try TestSession()
        try session.startAgent()
        let recorder = try SinkRecorder(session: session)
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Nobody", "--ring-limit", "5s")
        _ = try eventually(timeout: 20, "the timer to be heard") { recorder.firstAudible(after: Date.distantPast) }
        let missed = try eventually(timeout: 9, "the missed notice") { try session.notifications(titled: "Missed: Nobody").first }
        #expect(missed.body?.contains("without an answer") == true)
        #expect(try session.cliJSON([AlarmJSON].self, "list").isEmpty)
        usleep(500_000)
        #expect(!recorder.heard(from: Date(timeIntervalSince1970: missed.time + 0.4), to: Date()), "ringing stopped")
    }
}

/// Which file a sound name rings, and what is refused as a sound.
@Suite("Sound names and files end to end", .waitsOnItsOwnThread)
struct SoundNameTests {
    @Test func freedesktopThemeSoundPlaysByName() throws {
        let session = try TestSession()
        try session.startAgent()
        let recorder = try SinkRecorder(session: session)
        let listed = try session.cliJSON([SoundEntry].self, "sounds")
        let bell = try #require(listed.first { $0.name == "bell" })
        #expect(bell.source == "theme" && bell.path.hasSuffix("freedesktop/stereo/bell.oga"))
        #expect(listed.contains { $0.name == "alarm" && $0.source == "bundled" })
        let started = Date()
        let play = try session.cli("play", "bell", "--duration", "1s")
        #expect(play.status == 0, "\(play.stderr)")
        #expect(play.stdout.contains("bell.oga"))
        _ = try eventually(timeout: 4, "the bell to be heard") { recorder.firstAudible(after: started) }
        // And an alarm may ring it.
        let alarm = try session.cli("add", "07:00", "--sound", "bell", "--json")
        #expect(alarm.status == 0, "\(alarm.stderr)")
    }

    @Test func unknownOrEscapingSoundNamesAreRefusedWithTheNamesThatExist() throws {
        let session = try TestSession()
        try session.startAgent()
        let missing = try session.cli("add", "07:00", "--sound", "no-such-sound")
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("no sound named 'no-such-sound'; the closest: "))
        #expect(missing.stderr.contains("(`reveille sounds` lists all "), "\(missing.stderr)")
        // The user's own tools may give a file, but only by an absolute path to a readable one.
        let relative = try session.gdbusCall(destination: AgentInterface.busName, path: AgentInterface.objectPath,
                                             method: "\(AgentInterface.interface).Schedule",
                                             ["", #"{"presentation":{"alert":{"title":"x"}},"countdownDuration":{"preAlert":60},"sound":{"named":"../../../etc/passwd"}}"#, "{}"])
        #expect(relative.status != 0)
        #expect(relative.stderr.contains("give an absolute path"))
        // An app may only name a sound: no path, relative or absolute, reaches outside the sound folders.
        #expect(try session.cli("auth", "allow", "org.test.Noisy").status == 0)
        for path in ["../../../etc/passwd", "/etc/passwd"] {
            let fromApp = try Subprocess.run(session.binaries + "/reveille-test-app", ["org.test.Noisy", "Timers", "timer", "60"],
                                             environment: session.environment.merging(["REVEILLE_TEST_SOUND": path]) { $1 })
            #expect(fromApp.status == 3 && fromApp.stderr.contains("is a path; apps may only name a sound"), "\(path): \(fromApp.stderr)")
        }
        #expect(try session.cliJSON([AlarmJSON].self, "list").isEmpty)
    }

    @Test func soundNamesMatchWhateverTheirCaseOrExtensionAndAnAppsUnknownNameRingsTheDefault() throws {
        let session = try TestSession()
        try session.startAgent()
        // WWDC's `.named("Chime")`, and names as files are named.
        for name in ["Chime", "chime.wav", "CHIME.caf", "Bell", "bell.oga"] {
            let added = try session.cli("add", "07:00", "--sound", name)
            #expect(added.status == 0, "\(name): \(added.stderr)")
        }
        #expect(try session.cli("play", "Chime", "--duration", "0.2s").stdout.contains("chime.wav"))
        // An app's name that is not installed: scheduled, logged, and the default sound rings.
        #expect(try session.cli("auth", "allow", "org.test.Tunes").status == 0)
        let recorder = try SinkRecorder(session: session)
        let started = Date()
        let fromApp = try Subprocess.run(session.binaries + "/reveille-test-app", ["org.test.Tunes", "Timers", "timer", "1"],
                                         environment: session.environment.merging(["REVEILLE_TEST_SOUND": "Fanfare"]) { $1 })
        #expect(fromApp.status == 0, "\(fromApp.stderr)")
        _ = try eventually(timeout: 20, "the default sound to be heard") { recorder.firstAudible(after: started) }
        let log = try String(contentsOfFile: session.agentLog, encoding: .utf8)
        #expect(log.contains("org.test.Tunes asked for sound 'Fanfare', which is not installed"), "\(log)")
        // The person at the CLI is told instead, with what exists.
        #expect(try session.cli("add", "07:00", "--sound", "Fanfare").stderr.contains("no sound named 'Fanfare'; the closest: "))
    }

    @Test func theDesktopsSoundThemeAndWhatItInheritsComeBeforeFreedesktop() throws {
        // A theme "Night" inheriting "Base", in a data folder of its own, as a desktop installs them.
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-themes-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sounds/chime.wav").path
        for (folder, files) in [("Night/stereo", ["alarm"]), ("Night/5.1", ["tick"]), ("Base/stereo", ["bell"])] {
            try FileManager.default.createDirectory(atPath: "\(data)/sounds/\(folder)", withIntermediateDirectories: true)
            for file in files { try FileManager.default.copyItem(atPath: sample, toPath: "\(data)/sounds/\(folder)/\(file).wav") }
        }
        try "[Sound Theme]\nName=Night\nInherits=Base\nDirectories=stereo,5.1\n\n[stereo]\nOutputProfile=stereo\n\n[5.1]\nOutputProfile=5.1\n"
            .write(toFile: "\(data)/sounds/Night/index.theme", atomically: true, encoding: .utf8)
        try "[Sound Theme]\nName=Base\nDirectories=stereo\n".write(toFile: "\(data)/sounds/Base/index.theme", atomically: true, encoding: .utf8)
        let session = try TestSession()
        try session.startAgent(environment: ["REVEILLE_SOUND_THEME": "Night", "XDG_DATA_DIRS": "\(data):/usr/share"])
        func played(_ name: String) throws -> String { try session.cli("play", name, "--duration", "0.1s").stdout }
        #expect(try played("bell").contains("\(data)/sounds/Base/stereo/bell.wav"), "an inherited theme before freedesktop")
        #expect(try played("alarm-night-owl").contains("\(data)/sounds/Night/stereo/alarm.wav"), "the name without its last parts")
        #expect(try played("complete").contains("/usr/share/sounds/freedesktop/stereo/complete.oga"), "freedesktop last")
        #expect(try session.cli("play", "tick").stderr.contains("no sound named 'tick'"), "5.1 folders are not for stereo")
        // Alarm sounds first; a theme's others (a plug unplugged) after them, under their own heading.
        let listed = try session.cli("sounds").stdout
        let heading = try #require(listed.range(of: "Other sounds of the theme"))
        #expect(listed[heading.upperBound...].contains("power-unplug") && !listed[..<heading.lowerBound].contains("power-unplug"))
        #expect(listed[..<heading.lowerBound].contains("alarm-clock-elapsed"))
    }

    @Test func aLongSoundPlaysFromItsFileInBoundedMemory() throws {
        let session = try TestSession()
        try session.startAgent()
        let song = session.directory + "/song.wav"
        // 400 MB of audio, 35 minutes: decoded whole it would take 800 MB.
        try SoundTests.writeWAV(song, bytes: 400_000_000, loudSeconds: 5)
        let recorder = try SinkRecorder(session: session)
        let timer = try session.cli("timer", "1s", "--title", "Song", "--sound", song)
        #expect(timer.status == 0, "\(timer.stderr)")
        _ = try eventually(timeout: 20, "the song to be heard") { recorder.firstAudible(after: .distantPast) }
        let agent = try #require(session.agent)
        let status = try String(contentsOfFile: "/proc/\(agent.pid)/status", encoding: .utf8)
        let rss = try #require(status.firstMatch(of: /VmRSS:\s+(\d+) kB/).flatMap { Int($0.1) })
        #expect(rss < 100_000, "the agent holds \(rss) kB while ringing a 35-minute sound")
    }

    @Test func aFIFOOrAnOversizedFileIsRefusedAsASoundAndNothingBlocks() throws {
        let session = try TestSession()
        try session.startAgent()
        let fifo = session.directory + "/fifo.wav"
        #expect(mkfifo(fifo, 0o600) == 0)
        let refused = try session.cli("timer", "1m", "--sound", fifo)
        #expect(refused.status != 0 && refused.stderr.contains("is not a regular file"), "\(refused.stderr)")
        let huge = session.directory + "/huge.wav"
        try SoundTests.writeWAV(huge, bytes: 600_000_000, loudSeconds: 0)
        let tooBig = try session.cli("timer", "1m", "--sound", huge)
        #expect(tooBig.status != 0 && tooBig.stderr.contains("accepted: at most 512 MiB"), "\(tooBig.stderr)")
        #expect(try session.cli("list").status == 0, "the agent still answers")
        #expect(try session.cliJSON([AlarmJSON].self, "list").isEmpty)
    }
}

/// `reveille sounds --json`'s entries.
struct SoundEntry: Decodable {
    var name: String
    var path: String
    var source: String
}

@Suite("Sound after a crash", .waitsOnItsOwnThread)
struct SoundCrashTests {
    /// An alarm rings on a muted sink (made audible for it), and the agent is killed.
    func crashWhileAMutedSinkRings() throws -> (TestSession, AlarmJSON) {
        let session = try TestSession()
        try session.startAgent()
        #expect(try session.pactl("set-sink-mute", "testsink", "1").status == 0)
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Crash")
        _ = try eventually(timeout: 20, "the sink to be unmuted for the alarm") {
            try session.pactl("get-sink-mute", "testsink").stdout.contains("no") ? true : nil
        }
        try session.killAgent(signal: SIGKILL)
        return (session, timer)
    }

    @Test func aSinkTheUserChangedAfterACrashIsLeftAsTheUserSetIt() throws {
        let (session, timer) = try crashWhileAMutedSinkRings()
        // Meanwhile the user sets the sink themselves: unmuted, at 30 %.
        #expect(try session.pactl("set-sink-volume", "testsink", "30%").status == 0)
        try session.startAgent()
        #expect(try session.cli("stop", timer.id).status == 0)
        _ = try eventually("the agent to settle the sink record") {
            FileManager.default.fileExists(atPath: session.stateDirectory + "/sink-override.json") ? nil : true
        }
        #expect(try session.pactl("get-sink-mute", "testsink").stdout.contains("no"), "not muted again over the user's change")
        #expect(try session.pactl("get-sink-volume", "testsink").stdout.contains("30%"))
        let log = try String(contentsOfFile: session.agentLog, encoding: .utf8)
        #expect(!log.contains("not reachable"), "starting with an alarm ringing is no outage: \(log)")
    }

    /// The agent crashes mid-ring and starts again while the same alarm still rings: the sink
    /// stays audible (the restore of the crash's change waits until nothing rings), and Stop then
    /// mutes it again.
    @Test func anAgentRestartedMidRingKeepsTheMutedSinkAudibleUntilStop() throws {
        let (session, timer) = try crashWhileAMutedSinkRings()
        try session.startAgent()
        // The restarted agent plays the alarm again; by then a restore asked for at connection
        // (the fault) has had its answer on the same connection.
        _ = try eventually(timeout: 20, "the alarm's stream again after the restart") {
            try session.pactl("list", "sink-inputs").stdout.contains("media.role = \"alarm\"") ? true : nil
        }
        _ = try session.cli("list")
        #expect(try session.pactl("get-sink-mute", "testsink").stdout.contains("no"), "the restarted agent left the sink muted under its alarm")
        #expect(FileManager.default.fileExists(atPath: session.stateDirectory + "/sink-override.json"), "what to restore is kept")
        #expect(try session.cli("stop", timer.id).status == 0)
        _ = try eventually(timeout: 20, "the sink muted again after Stop") {
            try session.pactl("get-sink-mute", "testsink").stdout.contains("yes") ? true : nil
        }
        #expect(!FileManager.default.fileExists(atPath: session.stateDirectory + "/sink-override.json"))
    }

    @Test func sinkChangedBeforeACrashIsRestoredAtTheNextStart() throws {
        let (session, _) = try crashWhileAMutedSinkRings()
        #expect(try session.pactl("get-sink-mute", "testsink").stdout.contains("no"), "the crash left it unmuted")
        // The restarted agent puts the sink back; the timer still alerts, but the setting now forbids unmuting.
        try FileManager.default.createDirectory(atPath: session.directory + "/config/reveille", withIntermediateDirectories: true)
        try Data(#"{"unmuteMutedSink": false}"#.utf8).write(to: URL(fileURLWithPath: session.directory + "/config/reveille/settings.json"))
        try session.startAgent()
        _ = try eventually(timeout: 20, "the sink to be muted again after the restart") {
            try session.pactl("get-sink-mute", "testsink").stdout.contains("yes") ? true : nil
        }
        #expect(!FileManager.default.fileExists(atPath: session.stateDirectory + "/sink-override.json"))
        // With the setting off, a ringing alarm leaves the muted sink alone.
        usleep(500_000)
        #expect(try session.pactl("get-sink-mute", "testsink").stdout.contains("yes"))
    }
}

/// Sound through PipeWire as desktops run it now: pipewire, WirePlumber and pipewire-pulse.
@Suite("Sound on PipeWire", .waitsOnItsOwnThread)
struct PipeWireSoundTests {
    @Test func mutedNotificationSoundsDoNotSilenceTheAlarmAndStayMuted() throws {
        let session = try TestSession(audio: .pipeWire)
        // What a desktop's "notification sounds" switch stores (pipewire-pulse files media.role
        // "event" under "Notification"), and a mute left on the alarm's own role.
        for role in ["Notification", "alarm"] {
            let set = try session.pwMetadata(["-n", "route-settings", "0", "restore.stream.Output/Audio.media.role:\(role)",
                                              #"{"mute":true,"volumes":[0.0,0.0],"channels":["FL","FR"]}"#, "Spa:String:JSON"])
            #expect(set.status == 0, "\(set.stderr)")
        }
        try session.startAgent()
        let recorder = try SinkRecorder(session: session)
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Loud")
        _ = try eventually(timeout: 20, "the alarm to be heard through muted notification sounds") {
            recorder.firstAudible(after: .distantPast)
        }
        #expect(try session.cli("stop", timer.id).status == 0)
        recorder.stop()

        // The user's setting is as it was: a new notification sound still comes up muted.
        let pacat = try Subprocess.find("pacat", package: "pulseaudio-utils")
        let event = try Subprocess.start(pacat, ["--playback", "--raw", "--property=media.role=event", "/dev/zero"],
                                         environment: session.environment)
        defer { event.terminate() }
        _ = try eventually("a notification sound to come up muted") { () -> Bool? in
            let inputs = try session.pactl("list", "sink-inputs").stdout
            let stream = inputs.components(separatedBy: "Sink Input #").first { $0.contains("media.role = \"event\"") }
            return stream?.contains("Mute: yes") == true ? true : nil
        }
    }
}
