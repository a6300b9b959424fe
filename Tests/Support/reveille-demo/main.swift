import Dispatch
import Foundation
import Glibc
import ReveilleCore
import ReveilleRules
import ReveilleTestSupport

// reveille-demo: what `make run` shows where there is no desktop session. A private desktop
// (dbus-daemon, Xvfb, dunst started by D-Bus activation, PulseAudio with a null sink), the
// agent started by the CLI as in a user's session, a timer that rings in 5 s; then the proof:
// a screenshot of the alert, a recording of the sound, the delays from the agent's, the bus's
// and dunst's own records, Stop pressed in dunst, and everything stopped by PID.
//
//   reveille-demo --output DIR --screenshot-tool PATH

/// What the demo is asked to do, from its arguments.
struct DemoOptions {
    var output: String
    var screenshotTool: String

    init(_ arguments: [String]) throws {
        let refused = Subprocess.Failure("usage: reveille-demo --output DIR --screenshot-tool PATH (got \(arguments))")
        var values: [String: String] = [:]
        var rest = arguments[...]
        while let name = rest.popFirst() {
            guard ["--output", "--screenshot-tool"].contains(name), let value = rest.popFirst() else { throw refused }
            values[name] = value
        }
        guard let output = values["--output"], let tool = values["--screenshot-tool"] else { throw refused }
        self.output = output
        screenshotTool = tool
    }
}

let title = "Reveille demo"
/// The whole demo ends within this, whatever happens (a stuck peer, a lost event).
let deadline: TimeInterval = 120
let started = StartedProcesses()

/// A line on stdout at once (the demo's output interleaves with the programs it runs).
/// A closed stdout is no reason to trap or to stop halfway: the demo runs on and cleans up.
func say(_ line: String) { try? FileHandle.standardOutput.write(contentsOf: Data((line + "\n").utf8)) }

/// Copies `source` to `target`, replacing what a previous run left there.
func replaceCopy(of source: String, at target: String) throws {
    try? FileManager.default.removeItem(atPath: target)
    try FileManager.default.copyItem(atPath: source, toPath: target)
}

/// Milliseconds from `start` to `end`, signed, for the report.
func milliseconds(_ start: Date, _ end: Date) -> String {
    let value = Int((end.timeIntervalSince(start) * 1000).rounded())
    return (value >= 0 ? "+" : "") + "\(value) ms"
}

/// `reveille ARGS` as a user types it: the command line, then what it printed.
func showCLI(_ session: TestSession, _ arguments: String...) throws {
    say("$ reveille " + arguments.map { $0.contains(" ") ? "\"\($0)\"" : $0 }.joined(separator: " "))
    let result = try Subprocess.run(session.binaries + "/reveille", arguments, environment: session.environment)
    for text in [result.stderr, result.stdout] where !text.isEmpty { say(text.hasSuffix("\n") ? String(text.dropLast()) : text) }
    guard result.status == 0 else { throw Subprocess.Failure("reveille \(arguments.joined(separator: " ")) failed (\(result.status))") }
}

/// The CLI's instants: ISO 8601 with milliseconds.
func iso8601() -> ISO8601DateFormatter {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter
}

/// `reveille show ID --json`'s instant: the due time of a countdown, the start of an alert.
func instant(_ alarm: AlarmJSON) throws -> Date {
    guard let text = alarm.fireDate, let date = iso8601().date(from: text) else {
        throw Subprocess.Failure("the alarm's fireDate is missing or unreadable: \(alarm.fireDate ?? "none")")
    }
    return date
}

/// The wall-clock time of a CLOCK_MONOTONIC reading in microseconds (dunst's timestamps).
func wallClock(monotonicMicroseconds: Int64) -> Date {
    var monotonic = timespec(), real = timespec()
    clock_gettime(CLOCK_MONOTONIC, &monotonic)
    clock_gettime(CLOCK_REALTIME, &real)
    let nowMonotonic = Double(monotonic.tv_sec) + Double(monotonic.tv_nsec) / 1e9
    let nowReal = Double(real.tv_sec) + Double(real.tv_nsec) / 1e9
    return Date(timeIntervalSince1970: nowReal - (nowMonotonic - Double(monotonicMicroseconds) / 1e6))
}

/// When dunst created its latest notification titled `summary`, from its history (a closed
/// notification is kept there with its CLOCK_MONOTONIC timestamp).
func dunstCreated(_ session: TestSession, summary: String) throws -> Date? {
    let history = try session.dunstctl("history")
    guard history.status == 0,
          let root = try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [String: Any],
          let groups = root["data"] as? [[[String: Any]]] else { return nil }
    let field = { (entry: [String: Any], name: String) in (entry[name] as? [String: Any])?["data"] }
    let stamps = groups.joined().filter { field($0, "summary") as? String == summary }
        .compactMap { (field($0, "timestamp") as? NSNumber)?.int64Value }
    return stamps.max().map { wallClock(monotonicMicroseconds: $0) }
}

/// The screenshot tool's answer: the picture's size and a box for each thing on the screen.
struct Screenshot {
    struct Box { var x: Int, y: Int, width: Int, height: Int }
    var width: Int, height: Int
    var boxes: [Box]

    /// Runs `tool capture PATH` on the session's display.
    static func capture(tool: String, to path: String, session: TestSession) throws -> Screenshot {
        let result = try Subprocess.run("/usr/bin/python3", [tool, "capture", path], environment: session.environment)
        guard result.status == 0 else { throw Subprocess.Failure("the screenshot failed: \(result.stderr)") }
        let numbers = result.stdout.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard numbers.count >= 2, numbers.count % 4 == 2 else { throw Subprocess.Failure("the screenshot tool said: \(result.stdout)") }
        let boxes = stride(from: 2, to: numbers.count, by: 4).map { Box(x: numbers[$0], y: numbers[$0 + 1], width: numbers[$0 + 2], height: numbers[$0 + 3]) }
        return Screenshot(width: numbers[0], height: numbers[1], boxes: boxes)
    }

    /// What is drawn on the right half (dunst's bubble) and on the left (the alert window,
    /// which X puts at the top left when no window manager places it).
    var right: Box? { boxes.last { $0.x + $0.width / 2 > width / 2 } }
    var left: Box? { boxes.first { $0.x + $0.width / 2 <= width / 2 } }
}

func run(_ options: DemoOptions) throws {
    try FileManager.default.createDirectory(atPath: options.output, withIntermediateDirectories: true)
    // The session is released when `show` returns or throws: its peers are stopped by PID.
    try show(on: try TestSession(notifications: .dunst, audio: .pulseAudio), options)
    started.sessionFolder = nil
    let left = started.running
    guard left.isEmpty else {
        throw Subprocess.Failure("still running after the demo: \(left.map { "\($0.name) \($0.pid)" }.joined(separator: ", "))")
    }
    say("")
    say("Stopped everything the demo started; none of these runs: "
        + started.all.map { "\($0.name) \($0.pid)" }.joined(separator: ", ") + ".")
}

/// Debian's own activation file for dunst, as a desktop's bus reads it.
let debianDunstService = "/usr/share/dbus-1/services/org.knopwob.dunst.service"

/// Has the bus start dunst as on a Debian desktop: from dunst's own activation file
/// (`Exec=/usr/bin/dunst`), with its settings where a user keeps them
/// (`$XDG_CONFIG_HOME/dunst/dunstrc`), instead of the session's file naming a config.
func activateDunstAsDebianDoes(_ desktop: TestSession) throws {
    guard FileManager.default.fileExists(atPath: debianDunstService) else {
        throw Subprocess.Failure("\(debianDunstService) is missing (Debian package dunst)")
    }
    try FileManager.default.removeItem(atPath: desktop.serviceDirectory + "/org.freedesktop.Notifications.service")
    try FileManager.default.copyItem(atPath: debianDunstService, toPath: desktop.serviceDirectory + "/org.knopwob.dunst.service")
    let settings = (desktop.environment["XDG_CONFIG_HOME"] ?? desktop.directory + "/config") + "/dunst"
    try FileManager.default.createDirectory(atPath: settings, withIntermediateDirectories: true)
    // The one setting the demo needs: the menu program that presses a button (see TestSession.pressInDunst).
    try "[global]\ndmenu = /usr/bin/grep -m1 -F -f \(desktop.directory)/dunst-choice\n"
        .write(toFile: settings + "/dunstrc", atomically: true, encoding: .utf8)
    let reload = try desktop.gdbusCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                       method: "org.freedesktop.DBus.ReloadConfig", [])
    guard reload.status == 0 else { throw Subprocess.Failure("the bus did not reload its service files: \(reload.stderr)") }
}

/// The demo on `desktop`, up to stopping the agent and the recorders.
func show(on desktop: TestSession, _ options: DemoOptions) throws {
    started.sessionFolder = desktop.directory
    // The bus answers for itself: its PID is that of the dbus-daemon (forked, not our child).
    guard let bus = try desktop.ownerPID(of: "org.freedesktop.DBus") else { throw Subprocess.Failure("the private bus has no PID") }
    started.add("dbus-daemon", bus)
    started.addChildren()
    try activateDunstAsDebianDoes(desktop)

    // The bus's record of every Notify, with the instant it was delivered.
    let monitorLog = desktop.directory + "/notify-calls.txt"
    let monitor = try Subprocess.start(try Subprocess.find("dbus-monitor", package: "dbus-bin"),
                                       ["--session", "type='method_call',interface='org.freedesktop.Notifications',member='Notify'"],
                                       environment: desktop.environment, stdout: monitorLog, stderr: desktop.directory + "/dbus-monitor.log")
    started.add("dbus-monitor", monitor.pid)
    _ = try eventually("dbus-monitor to watch the bus") {
        ((try? String(contentsOfFile: monitorLog, encoding: .utf8)) ?? "").contains("NameAcquired") ? true : nil
    }
    let recorder = try SinkRecorder(session: desktop)
    started.addChildren()
    say("Demo desktop: X display \(desktop.display ?? "?") (Xvfb), a private D-Bus session bus, PulseAudio with a null sink")
    say("(its monitor recorded), and dunst for the bus to start at the first notification, from \(debianDunstService).")
    say("Nothing of yours is touched: the session's folders are its own, removed at the end.")
    say("")

    try showCLI(desktop, "timer", "5s", "--title", title, "--snooze", "1m")
    guard let agent = try desktop.ownerPID(of: AgentInterface.busName) else {
        throw Subprocess.Failure("no reveille-agent owns \(AgentInterface.busName) after the CLI's first command")
    }
    started.add("reveille-agent", agent)
    let timer = try eventually("the timer in the list") { try desktop.cliJSON([AlarmJSON].self, "list").first }
    let due = try instant(timer)
    say("The timer is due at \(iso8601().string(from: due)); waiting for it to ring...")

    // The sound's first seconds, as a file: from half a second before the instant.
    Thread.sleep(until: due.addingTimeInterval(-0.5))
    let recording = desktop.directory + "/alarm.wav"
    let parecord = try Subprocess.start(try Subprocess.find("parecord", package: "pulseaudio-utils"),
                                        ["-d", "testsink.monitor", "--file-format=wav", "--format=s16le", "--rate=44100", "--channels=1", recording],
                                        environment: desktop.environment, stderr: desktop.directory + "/parecord.log")
    started.add("parecord", parecord.pid)

    let alerting = try eventually(timeout: 15, "the timer to ring") { () -> AlarmJSON? in
        let alarm = try desktop.cliJSON(AlarmJSON.self, "show", timer.id)
        return alarm.state == "alerting" ? alarm : nil
    }
    let alertCall = try eventually("the alert's Notify on the bus") {
        NotifyCall.parse((try? String(contentsOfFile: monitorLog, encoding: .utf8)) ?? "").last { $0.summary == title && $0.urgency == 2 }
    }
    guard let dunst = try desktop.ownerPID(of: "org.freedesktop.Notifications") else { throw Subprocess.Failure("nobody owns org.freedesktop.Notifications") }
    started.add("dunst", dunst)
    // The bus gives what it activates DBUS_STARTER_ADDRESS; nothing else in the demo sets it.
    let activated = StartedProcesses.environment(of: dunst).contains { $0.hasPrefix("DBUS_STARTER_ADDRESS=") }
    say("dunst (pid \(dunst), \(StartedProcesses.commandLine(of: dunst))) was started "
        + (activated ? "by the bus (D-Bus activation: it carries DBUS_STARTER_ADDRESS)" : "by something other than the bus"))
    _ = try eventually("dunst to show the alert") { try desktop.dunstctl("count", "displayed").stdout.trimmed() == "1" ? true : nil }
    let firstSound = try eventually(timeout: 5, "the alarm's sound at the null sink") { recorder.firstAudible(after: due.addingTimeInterval(-1)) }

    // dunst draws the bubble just after it counts it, and dunst reaches its buttons only through
    // a menu, so the agent also opens its alert window: take the picture once both show.
    let screenshotPath = options.output + "/alert.png"
    let screenshot = try eventually(timeout: 20, "dunst's bubble and the alert window in the screenshot") { () -> Screenshot? in
        let picture = try Screenshot.capture(tool: options.screenshotTool, to: screenshotPath, session: desktop)
        return picture.right != nil && picture.left != nil ? picture : nil
    }
    let place = { (box: Screenshot.Box?) in box.map { "\($0.x),\($0.y), \($0.width)x\($0.height)" } ?? "?" }
    say("")
    say("Ringing. The screen, taken while the alert was up: \(screenshotPath)")
    say("  (\(screenshot.width)x\(screenshot.height); dunst's bubble at \(place(screenshot.right)); "
        + "the alert window at \(place(screenshot.left)), opened because dunst's buttons need a menu)")
    say("The alert's buttons, as dunst received them: \(alertCall.buttons.joined(separator: ", "))"
        + "; urgency \(alertCall.urgency.map(String.init) ?? "none") (2: critical)")
    // Let it ring a little, so the recording holds more than its first instant.
    _ = try eventually(timeout: 10, "two seconds of ringing") {
        recorder.lastAudible().map { $0.timeIntervalSince(firstSound) >= 2 } == true ? true : nil
    }
    try showCLI(desktop, "list")

    say("")
    say("Pressing Stop in dunst's menu (dunstctl context, as the tests do)...")
    let pressed = Date()
    try desktop.pressInDunst(label: "Stop", summary: title)
    _ = try eventually("Stop to end the timer") { try desktop.cliJSON([AlarmJSON].self, "list").isEmpty ? true : nil }
    let silence: TimeInterval = 1
    let lastSound = try eventually(timeout: 10, "\(silence) s of silence at the null sink") { () -> Date? in
        guard let last = recorder.lastAudible(), let latest = recorder.chunks.last?.time,
              latest.timeIntervalSince(max(last, pressed)) >= silence else { return nil }
        return last
    }
    say("The sound stopped: last heard \(milliseconds(pressed, lastSound)) after the press, then \(Int(silence)) s of silence.")
    try showCLI(desktop, "list")
    kill(parecord.pid, SIGTERM) // parecord writes the WAV header's lengths as it ends
    parecord.wait()
    try replaceCopy(of: recording, at: options.output + "/alarm.wav")
    try replaceCopy(of: desktop.stateDirectory + "/agent.log", at: options.output + "/agent.log")
    let created = try eventually("the alert in dunst's history") { try dunstCreated(desktop, summary: title) }

    say("")
    say("Measured from the instant the timer was due (\(title), \(timer.id.prefix(8))), each from its own record:")
    let measured = [
        ("the agent began alerting (the agent: reveille show --json)", milliseconds(due, try instant(alerting))),
        ("the alert's Notify reached dunst (the bus: dbus-monitor)", milliseconds(due, alertCall.time)),
        ("dunst created the notification (dunst: dunstctl history)", milliseconds(due, created)),
        ("the first sound left the null sink (its monitor: parec)", milliseconds(due, firstSound)),
    ]
    let width = measured.map(\.0.count).max() ?? 0
    for (what, value) in measured { say("  " + what.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value) }
    say("  (this machine's clocks: dunst stamps CLOCK_MONOTONIC, converted here; the sound's instant is when parec")
    say("  delivered the first loud 10 ms chunk of the monitor, so it is at most that late)")
    say("")
    say("The alarm's sound: \(options.output)/alarm.wav (from 0.5 s before it was due until after Stop)")
    say("The agent's log:   \(options.output)/agent.log")

    // The agent first (it would otherwise see its bus go), then the recorders and the desktop.
    kill(agent, SIGTERM)
    try desktop.waitForName(AgentInterface.busName, owned: false)
    monitor.terminate()
    recorder.stop()
}

// A launcher that blocks signals (a test runner's thread, some desktops' launchers) passes its
// mask on to the demo and, through it, to every process the demo starts, which SIGTERM then
// cannot stop (each waits out a second for SIGKILL): the demo starts them with none blocked.
var noSignals = sigset_t()
sigemptyset(&noSignals)
pthread_sigmask(SIG_SETMASK, &noSignals, nil)
let signalSources = started.abandonOnSignalsAndAfter(deadline)
do {
    try run(try DemoOptions(Array(CommandLine.arguments.dropFirst())))
    withExtendedLifetime(signalSources) {}
} catch {
    started.abandon("\(error)", status: 1)
}
