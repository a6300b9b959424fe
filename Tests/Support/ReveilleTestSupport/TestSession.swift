import Foundation
import ReveilleCore

/// A private desktop session for one test: a dbus-daemon, the recording notification
/// server and PulseAudio with a null sink, all on addresses inside a temporary folder,
/// all stopped by PID when the session ends. The agent and the CLI are the real binaries.
public final class TestSession {
    public let directory: String
    public private(set) var environment: [String: String]
    private var peers: [(name: String, child: Subprocess.Child)] = []
    public private(set) var agent: Subprocess.Child?
    public let binaries: String
    private let gdbusPath: String

    /// The notification server's record of events, one JSON object per line.
    public var notificationLog: String { directory + "/notifications.jsonl" }
    public var agentLog: String { directory + "/agent.log" }
    public var stateDirectory: String { directory + "/state/reveille" }

    /// `busEnvironment` is added to the dbus-daemon's environment only; it passes it on to the
    /// services it activates (`XDG_DATA_DIRS` chooses where it looks for .service files).
    public init(notificationCapabilities: [String]? = nil, startPulseAudio: Bool = true,
                busEnvironment: [String: String] = [:]) throws {
        binaries = try TestSession.findBinaries()
        gdbusPath = try Subprocess.find("gdbus", package: "libglib2.0-bin")
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-e2e-\(UUID().uuidString.prefix(8))").path
        for folder in ["", "/runtime", "/home", "/state", "/config"] {
            try FileManager.default.createDirectory(atPath: directory + folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = directory + "/home"
        environment["XDG_RUNTIME_DIR"] = directory + "/runtime"
        environment["XDG_STATE_HOME"] = directory + "/state"
        environment["XDG_CONFIG_HOME"] = directory + "/config"
        environment["PULSE_SERVER"] = "unix:\(directory)/pulse.sock"
        environment["PULSE_CLIENTCONFIG"] = directory + "/client.conf"
        environment["TZ"] = "UTC"
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        self.environment = environment
        do {
            try startBus(extra: busEnvironment)
            try startNotificationServer(capabilities: notificationCapabilities)
            if startPulseAudio { try startPulse() }
        } catch {
            stopAll()
            throw error
        }
    }

    deinit { stopAll() }

    // MARK: Peers

    private func startBus(extra: [String: String]) throws {
        let daemon = try Subprocess.find("dbus-daemon", package: "dbus-daemon")
        let result = try Subprocess.run(daemon, ["--session", "--fork", "--nopidfile", "--print-address=1", "--print-pid=1"],
                                        environment: environment.merging(extra) { $1 })
        let lines = result.stdout.split(separator: "\n").map(String.init)
        guard result.status == 0, lines.count >= 2, let pid = Int32(lines[1]) else {
            throw Subprocess.Failure("dbus-daemon did not start: \(result.stderr)")
        }
        // --fork: the daemon is a child of the process that ended; it is known by its PID alone.
        peers.append(("dbus-daemon", Subprocess.Child(pid: pid)))
        environment["DBUS_SESSION_BUS_ADDRESS"] = lines[0]
    }

    public func startNotificationServer(capabilities: [String]? = nil) throws {
        var arguments = ["--record", notificationLog]
        if let capabilities { arguments += ["--capabilities", capabilities.joined(separator: ",")] }
        let server = try Subprocess.start(binaries + "/reveille-test-notifyd", arguments, environment: environment,
                                          stderr: directory + "/notifyd.log")
        peers.append(("reveille-test-notifyd", server))
        try waitForName("org.freedesktop.Notifications", owned: true)
    }

    /// Stops the notification server, as a crash or restart of the desktop shell would.
    public func stopNotificationServer() throws {
        stop(named: "reveille-test-notifyd")
        try waitForName("org.freedesktop.Notifications", owned: false)
    }

    /// Kills PulseAudio (SIGKILL, as a crash would).
    public func killPulseAudio() {
        for peer in peers where peer.name == "pulseaudio" { kill(peer.child.pid, SIGKILL); peer.child.wait() }
        peers.removeAll { $0.name == "pulseaudio" }
    }

    /// Runs `pactl` against the session's PulseAudio.
    public func pactl(_ arguments: String...) throws -> Subprocess.Result {
        try Subprocess.run(try Subprocess.find("pactl", package: "pulseaudio-utils"), arguments, environment: environment)
    }

    public func startPulse() throws {
        let pulseaudio = try Subprocess.find("pulseaudio", package: "pulseaudio")
        let pactl = try Subprocess.find("pactl", package: "pulseaudio-utils")
        try "autospawn = no\n".write(toFile: directory + "/client.conf", atomically: true, encoding: .utf8)
        // A killed daemon leaves its socket behind.
        try? FileManager.default.removeItem(atPath: directory + "/pulse.sock")
        let pulse = try Subprocess.start(pulseaudio, [
            "-n", "--daemonize=no", "--system=false", "--exit-idle-time=-1", "--use-pid-file=false",
            "--realtime=false", "--high-priority=false", "--disallow-exit=false",
            "-L", "module-native-protocol-unix auth-anonymous=1 auth-cookie-enabled=0 socket=\(directory)/pulse.sock",
            "-L", "module-null-sink sink_name=testsink",
        ], environment: environment, stderr: directory + "/pulseaudio.log")
        peers.append(("pulseaudio", pulse))
        _ = try eventually("PulseAudio to answer on \(directory)/pulse.sock") {
            try Subprocess.run(pactl, ["info"], environment: environment, timeout: 5).status == 0 ? true : nil
        }
    }

    // MARK: Agent and CLI

    /// Starts reveille-agent and waits until it owns its bus name.
    public func startAgent(_ arguments: [String] = [], environment extra: [String: String?] = [:]) throws {
        var environment = self.environment
        for (key, value) in extra { environment[key] = value }
        let process = try Subprocess.start(binaries + "/reveille-agent", arguments, environment: environment,
                                           stderr: agentLog)
        agent = process
        try waitForName(AgentInterface.busName, owned: true)
    }

    /// Kills the agent with `signal` and waits until it is gone from the bus.
    public func killAgent(signal: Int32 = SIGKILL) throws {
        guard let agent else { return }
        kill(agent.pid, signal)
        agent.wait()
        self.agent = nil
        try waitForName(AgentInterface.busName, owned: false)
    }

    /// The PID of whoever owns `name` on the bus, if anyone does.
    public func ownerPID(of name: String) throws -> Int32? {
        let result = try gdbusCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                   method: "org.freedesktop.DBus.GetConnectionUnixProcessID", [name])
        return result.stdout.firstMatch(of: /uint32 (\d+)/).flatMap { Int32($0.1) }
    }

    /// Runs `reveille` with `arguments`.
    @discardableResult
    public func cli(_ arguments: String..., environment extra: [String: String] = [:]) throws -> Subprocess.Result {
        try Subprocess.run(binaries + "/reveille", arguments, environment: environment.merging(extra) { $1 })
    }

    /// Runs `reveille ARGS --json` and decodes its output.
    public func cliJSON<Value: Decodable>(_ type: Value.Type, _ arguments: String...) throws -> Value {
        let result = try Subprocess.run(binaries + "/reveille", arguments + ["--json"], environment: environment)
        guard result.status == 0 else {
            throw Subprocess.Failure("reveille \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
        }
        return try JSONDecoder().decode(type, from: Data(result.stdout.utf8))
    }

    /// Calls a method with gdbus, as any D-Bus client could.
    @discardableResult
    public func gdbusCall(destination: String, path: String, method: String, _ arguments: [String]) throws -> Subprocess.Result {
        try Subprocess.run(gdbusPath, ["call", "--session", "--dest", destination, "--object-path", path, "--method", method, "--"]
                           + arguments, environment: environment)
    }

    public func gdbus(_ arguments: [String]) throws -> Subprocess.Result {
        try Subprocess.run(gdbusPath, arguments, environment: environment)
    }

    // MARK: The notification server's record

    public struct Event: Decodable {
        public var event: String
        public var id: UInt32
        public var summary: String?
        public var body: String?
        public var actions: [String]?
        public var hints: [String: HintValue]?
        public var timeout: Int?
        public var reason: UInt32?
        public var key: String?
        public var time: Double
    }

    /// A hint's value as the server recorded it.
    public enum HintValue: Decodable, Equatable {
        case number(Double), text(String), flag(Bool), other

        public init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let flag = try? container.decode(Bool.self) { self = .flag(flag) }
            else if let number = try? container.decode(Double.self) { self = .number(number) }
            else if let text = try? container.decode(String.self) { self = .text(text) }
            else { self = .other }
        }
    }

    public var events: [Event] {
        get throws {
            guard let text = try? String(contentsOfFile: notificationLog, encoding: .utf8) else { return [] }
            return try text.split(separator: "\n").map { try JSONDecoder().decode(Event.self, from: Data($0.utf8)) }
        }
    }

    /// The Notify calls whose summary is `summary`, in order.
    public func notifications(titled summary: String) throws -> [Event] {
        try events.filter { $0.event == "notify" && $0.summary == summary }
    }

    /// The critical (alert) notifications whose summary is `summary`, in order.
    public func alerts(titled summary: String) throws -> [Event] {
        try notifications(titled: summary).filter { $0.hints?["urgency"] == .number(2) }
    }

    /// Presses the button labelled `label` on notification `id` as last shown, as a person would.
    public func press(label: String, on id: UInt32) throws {
        guard let shown = try events.last(where: { $0.event == "notify" && $0.id == id }), let actions = shown.actions,
              let index = stride(from: 1, to: actions.count, by: 2).first(where: { actions[$0] == label }) else {
            throw Subprocess.Failure("notification \(id) shows no button labelled \(label)")
        }
        try press(actions[index - 1], on: id)
    }

    /// Sends `ActionInvoked` for the action key `key` of notification `id`.
    public func press(_ key: String, on id: UInt32) throws {
        let result = try gdbusCall(destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                                   method: "io.github.reveille.TestNotifications.InvokeAction", ["\(id)", key])
        guard result.status == 0 else { throw Subprocess.Failure("InvokeAction failed: \(result.stderr)") }
    }

    // MARK: Plumbing

    public func waitForName(_ name: String, owned: Bool, timeout: TimeInterval = 10) throws {
        _ = try eventually(timeout: timeout, "\(name) to be \(owned ? "owned" : "released") on the test bus") {
            let result = try gdbusCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                       method: "org.freedesktop.DBus.NameHasOwner", [name])
            return result.stdout.contains(owned ? "true" : "false") ? true : nil
        }
    }

    private func stop(named name: String) {
        for peer in peers where peer.name == name { peer.child.terminate() }
        peers.removeAll { $0.name == name }
    }

    private func stopAll() {
        agent?.terminate()
        agent = nil
        for peer in peers.reversed() { peer.child.terminate() }
        peers = []
        if ProcessInfo.processInfo.environment["REVEILLE_KEEP_TEST_FILES"] == nil {
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Where `swift build` put the executables: beside this test bundle, or `REVEILLE_BUILD_DIR`.
    private static func findBinaries() throws -> String {
        let folder = ProcessInfo.processInfo.environment["REVEILLE_BUILD_DIR"]
            ?? URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path
        for name in ["reveille", "reveille-agent", "reveille-test-notifyd"]
        where !FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)") {
            throw Subprocess.Failure("\(folder)/\(name) is missing: build the executables first (`swift build --build-tests`, or `make test`)")
        }
        return folder
    }
}

/// `reveille --json`'s alarm object.
public struct AlarmJSON: Decodable, Equatable {
    public var id: String
    public var title: String
    public var state: String
    public var kind: String
    public var fireDate: String?
    public var timeRemaining: Double?
}
