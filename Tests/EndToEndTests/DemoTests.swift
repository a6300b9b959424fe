import Foundation
import ReveilleCore
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// `make run`, the README's first command: with no desktop session it shows the alarm on a
/// private demo desktop and stops everything again; in a session it says how to stop the
/// agent it started and where that agent logs. Run with the binaries already built
/// (`REVEILLE_BUILD_DIR`): a release build inside the test run would take minutes.
@Suite("make run", .waitsOnItsOwnThread)
struct DemoTests {
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// `make run` from the repository with `environment`.
    func makeRun(_ environment: [String: String], timeout: TimeInterval) throws -> Subprocess.Result {
        let make = try Subprocess.find("make", package: "make")
        return try Subprocess.run(make, ["--no-print-directory", "-C", repository, "run"], environment: environment, timeout: timeout)
    }

    /// Whether `pid` runs. A process that has exited but waits to be reaped does not: the
    /// demo's daemons end as orphans, and a container's first process may reap them late.
    func isRunning(_ pid: String) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        return stat.split(separator: ")").last?.trimmingCharacters(in: .whitespaces).first != "Z"
    }

    /// Whether the main thread of `pid` blocks SIGTERM (SigBlk in /proc/PID/status).
    /// Whether `pid` keeps SIGTERM blocked: seen blocked at each of ten looks over a second.
    /// GLib blocks every signal for a moment while it starts its worker thread (dunst does at
    /// start-up), which only delays a signal; a mask inherited from the launcher stays.
    func blocksSIGTERM(_ pid: String) -> Bool {
        for look in 0..<10 {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            let mask = status.firstMatch(of: /SigBlk:\s*([0-9a-f]+)/).flatMap { UInt64($0.1, radix: 16) } ?? 0
            if mask & (1 << UInt64(SIGTERM - 1)) == 0 { return false }
            if look < 9 { usleep(100_000) }
        }
        return true
    }

    func command(of pid: String) -> String {
        ((try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? "?").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The PIDs of running processes whose environment holds `marker`: what a run left behind.
    func processes(carrying marker: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.filter { Int32($0) != nil && isRunning($0) }.filter { pid in
            let environment = FileManager.default.contents(atPath: "/proc/\(pid)/environ") ?? Data()
            return environment.split(separator: 0).contains { $0.elementsEqual(marker.utf8) }
        }
    }

    /// The size of a PNG and the box of what is not background, read back by the repository's tool.
    func describe(_ png: String) throws -> [Int] {
        let result = try Subprocess.run("/usr/bin/python3", [repository + "/scripts/screenshot", "describe", png],
                                        environment: ProcessInfo.processInfo.environment)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
    }

    /// The largest absolute sample of a 16-bit PCM WAV file, and its length in seconds.
    func loudness(ofWAV path: String) throws -> (peak: Int, seconds: Double) {
        let data = try #require(FileManager.default.contents(atPath: path))
        let bytes = [UInt8](data)
        #expect(bytes.count > 44 && String(decoding: bytes[0..<4], as: UTF8.self) == "RIFF"
                && String(decoding: bytes[8..<12], as: UTF8.self) == "WAVE", "a WAV file")
        let word = { (at: Int) in Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        var offset = 12, rate = 0, channels = 1
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self), size = word(offset + 4)
            if id == "fmt " {
                channels = Int(bytes[offset + 10]) | Int(bytes[offset + 11]) << 8
                rate = word(offset + 12)
                #expect(Int(bytes[offset + 22]) == 16, "16-bit samples")
            }
            if id == "data" {
                // parecord may leave the length unwritten (0 or 0xFFFFFFFF) when stopped: read to the end.
                let end = size > 0 && offset + 8 + size <= bytes.count ? offset + 8 + size : bytes.count
                var peak = 0
                for at in stride(from: offset + 8, to: end - 1, by: 2) {
                    peak = max(peak, abs(Int(Int16(bitPattern: UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8))))
                }
                return (peak, Double((end - offset - 8) / 2 / max(channels, 1)) / Double(max(rate, 1)))
            }
            offset += 8 + size + size % 2
        }
        Issue.record("\(path) has no data chunk")
        return (0, 0)
    }

    /// A machine without a desktop session: no bus address, no display, a runtime folder
    /// without a bus socket (in `folder`, made here), and a marker every process of the run
    /// inherits, to find whatever it leaves behind.
    func withoutSession(in folder: String) throws -> (environment: [String: String], marker: String) {
        try FileManager.default.createDirectory(atPath: folder + "/runtime", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        var environment = ProcessInfo.processInfo.environment
        for key in ["DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY"] { environment.removeValue(forKey: key) }
        environment["XDG_RUNTIME_DIR"] = folder + "/runtime"
        environment["REVEILLE_BUILD_DIR"] = try TestSession.findBinaries()
        environment["REVEILLE_DEMO_DIR"] = folder + "/demo"
        let value = UUID().uuidString
        environment["REVEILLE_DEMO_TEST_RUN"] = value
        return (environment, "REVEILLE_DEMO_TEST_RUN=\(value)")
    }

    func temporaryFolder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("reveille-demo-\(UUID().uuidString.prefix(8))").path
    }

    @Test func withoutADesktopSessionMakeRunShowsTheAlertOnAPrivateDesktopAndLeavesNothingRunning() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (environment, marker) = try withoutSession(in: folder)

        let started = Date()
        let run = try makeRun(environment, timeout: 150)
        let seconds = Date().timeIntervalSince(started)
        #expect(run.status == 0, "make run failed:\n\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.hasPrefix("No desktop session here"), "one line says so first: \(run.stdout)")
        #expect(seconds < 60, "bounded: \(seconds) s")

        // The alert on screen, each a box of its own on the black screen: dunst's bubble at the
        // top right, and the agent's alert window (dunst reaches its buttons only through a menu)
        // at the top left, where X puts a window no window manager places.
        let picture = try describe(folder + "/demo/alert.png")
        try #require(picture.count == 10, "a screenshot with two things on it: \(picture)")
        #expect(picture[0] == 1024 && picture[1] == 768, "the whole screen: \(picture)")
        let (window, bubble) = (Array(picture[2..<6]), Array(picture[6..<10]))
        #expect(window[0] == 0 && window[1] == 0 && window[2] >= 300 && window[3] >= 150 && window[2] < 1024 / 2 + 100,
                "the alert window at the top left: \(window)")
        #expect(bubble[2] >= 200 && bubble[3] >= 40 && bubble[2] < 700 && bubble[3] < 400, "a bubble's size: \(bubble)")
        #expect(bubble[0] + bubble[2] / 2 > 512 && bubble[1] < 200, "at the top right, where dunst puts it: \(bubble)")
        #expect(run.stdout.contains("the alert window at 0,0"), "the demo says what it saw: \(run.stdout)")

        let sound = try loudness(ofWAV: folder + "/demo/alarm.wav")
        #expect(sound.peak >= SinkRecorder.audible, "the recording is not silent: peak \(sound.peak)")
        #expect(sound.seconds >= 2, "seconds of it: \(sound.seconds)")

        let output = run.stdout
        #expect(output.contains("Stop (stop), Snooze (secondary)"), "the buttons dunst received: \(output)")
        for record in ["the agent began alerting", "the alert's Notify reached dunst", "dunst created the notification",
                       "the first sound left the null sink"] {
            #expect(output.contains(record), "measured: \(record)")
        }
        #expect(output.contains("reveille: no agent was running; started reveille-agent"), "the CLI started the agent: \(output)")
        #expect(output.contains("/usr/bin/dunst) was started by the bus (D-Bus activation"), "as Debian's file says: \(output)")
        #expect(output.contains("The sound stopped: last heard"), "Stop silenced it: \(output)")
        #expect(output.contains("No alarms."), "the list after Stop is empty: \(output)")

        // Nothing left: neither what the demo names nor anything else the run started.
        let named = output.firstMatch(of: /none of these runs: (.*)\./).map { String($0.1) } ?? ""
        let pids = named.matches(of: /(\d+)(,|$)/).map { String($0.1) }
        #expect(pids.count >= 7, "the demo names what it started: \(named)")
        for pid in pids { #expect(!isRunning(pid), "\(pid) is gone") }
        #expect(processes(carrying: marker).isEmpty, "no process of the run is left: \(processes(carrying: marker))")
    }

    /// Starts the demo as `make run` does, reads its output up to `text`, then does `interrupt`;
    /// the demo must end with `status` (within its own deadline), and leave nothing it started.
    func interruptedDemo(until text: String, status expected: Int32, saying note: String?,
                         _ interrupt: (Subprocess.Child, Int32) -> Void) throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (environment, marker) = try withoutSession(in: folder)
        let binaries = try TestSession.findBinaries()
        let (demo, output) = try Subprocess.startPiped(
            binaries + "/reveille-demo", ["--output", folder + "/demo", "--screenshot-tool", repository + "/scripts/screenshot"],
            environment: environment, stderr: folder + "/stderr")
        var seen = "", buffer = [UInt8](repeating: 0, count: 4096)
        while !seen.contains(text) {
            let count = read(output, &buffer, buffer.count)
            guard count > 0 else { break }
            seen += String(decoding: buffer[0..<count], as: UTF8.self)
        }
        try #require(seen.contains(text), "the demo got as far as \(text): \(seen)")
        // This test's thread blocks signals, as some launchers do; what the demo starts must not
        // inherit that, or SIGTERM would not stop it.
        let running = processes(carrying: marker)
        #expect(running.count >= 5, "the demo desktop runs: \(running)")
        for pid in running { #expect(!blocksSIGTERM(pid), "\(pid) (\(command(of: pid))) blocks SIGTERM") }
        interrupt(demo, output)
        #expect(demo.wait(timeout: 130) == expected)
        let stderr = (try? String(contentsOfFile: folder + "/stderr", encoding: .utf8)) ?? ""
        if let note { #expect(stderr.contains(note), "\(stderr)") } else { #expect(stderr.isEmpty, "\(stderr)") }
        #expect(processes(carrying: marker).isEmpty, "no process of the run is left: \(processes(carrying: marker))")
        let session = try #require(seen.firstMatch(of: /logging to (\/[^ ]*reveille-e2e-[^\/]*)\//).map { String($0.1) })
        #expect(!FileManager.default.fileExists(atPath: session), "the session's folder is removed")
    }

    @Test func ctrlCDuringTheDemoStopsEverythingItStarted() throws {
        // From a terminal, Ctrl-C also reaches Xvfb, PulseAudio and the recorders; the bus, dunst and the agent it does not.
        try interruptedDemo(until: "waiting for it to ring", status: 128 + SIGINT,
                            saying: "interrupted (signal \(SIGINT)); stopping what it started") { demo, _ in kill(demo.pid, SIGINT) }
    }

    @Test func theReaderOfItsOutputGoingAwayNeitherKillsTheDemoNorLeavesWhatItStarted() throws {
        // `make run | head`: every later line fails to be written (SIGPIPE, EPIPE); the demo runs to its end.
        try interruptedDemo(until: "waiting for it to ring", status: 0, saying: nil) { _, output in close(output) }
    }

    @Test func withoutADesktopSessionAMissingProgramIsNamedWithItsPackageBeforeAnythingStarts() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-demo-path-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A PATH with every program the demo desktop runs but dunst's.
        for program in ["Xvfb", "dbus-daemon", "dbus-monitor", "gdbus", "pulseaudio", "pactl", "parec", "parecord", "id", "dirname"] {
            let found = try Subprocess.find(program, package: program)
            try FileManager.default.createSymbolicLink(atPath: folder + "/" + program, withDestinationPath: found)
        }
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        environment["XDG_RUNTIME_DIR"] = folder
        environment["PATH"] = folder
        let run = try Subprocess.run("/bin/bash", [repository + "/scripts/run", "--announce"], environment: environment)
        #expect(run.status == 1)
        #expect(run.stdout.hasPrefix("No desktop session here"), "\(run.stdout)")
        #expect(run.stderr.contains("dunst (Debian package dunst)") && run.stderr.contains("dunstctl (Debian package dunst)"),
                "\(run.stderr)")
        #expect(!run.stderr.contains("Xvfb"), "only what is missing: \(run.stderr)")
    }

    @Test func inADesktopSessionMakeRunSaysHowToStopTheAgentItStartedAndWhereItLogs() throws {
        let session = try TestSession(notifications: .recording(), audio: .pulseAudio)
        var environment = session.environment
        environment["REVEILLE_BUILD_DIR"] = session.binaries
        let run = try makeRun(environment, timeout: 60)
        #expect(run.status == 0, "make run failed:\n\(run.stdout)\n\(run.stderr)")
        let pid = try #require(try session.ownerPID(of: AgentInterface.busName), "an agent runs")
        defer { kill(pid, SIGTERM) }
        #expect(!run.stdout.contains("No desktop session"), "\(run.stdout)")
        #expect(run.stdout.contains("The agent was started for this (pid \(pid), \(session.binaries)/reveille-agent)"), "\(run.stdout)")
        #expect(run.stdout.contains("Stop it: kill \(pid)"), "\(run.stdout)")
        #expect(run.stdout.contains("Its log: \(session.stateDirectory)/agent.log"), "\(run.stdout)")
        _ = try eventually(timeout: 10, "the demo timer's alert") { try session.alerts(titled: "Reveille demo").first }
    }
}
