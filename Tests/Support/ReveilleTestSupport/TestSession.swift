import Foundation
import ReveilleCore
import ReveilleModel
import ReveilleRules

/// A private desktop session for one test: a dbus-daemon, a notification server and a sound
/// server, all on addresses inside a temporary folder, all stopped by PID when the session
/// ends. The agent and the CLI are the real binaries.
public final class TestSession {
    /// Who answers `org.freedesktop.Notifications`.
    public enum NotificationPeer: Sendable {
        /// The recording server, started by the test, answering as the named real server does
        /// (`gnome`, `kde`, `dunst`, `xfce`, `mako`, `plain`: see reveille-test-notifyd).
        case recording(profile: String = "gnome")
        /// The recording server, installed as a D-Bus service: started by the first call.
        case activatableRecording(profile: String = "gnome")
        /// Real dunst under Xvfb, started by D-Bus activation as on Debian; its action menu
        /// runs a stand-in for dmenu that picks the line `pressInDunst` asked for.
        case dunst
        /// Real xfce4-notifyd under Xvfb, started by D-Bus activation.
        case xfce4Notifyd
        /// Real GNOME Shell (X11) under Xvfb, with logind from python3-dbusmock on a private
        /// system bus; its notification daemon (gjs) is started by D-Bus activation as in GNOME.
        case gnomeShell
        /// GNOME Shell as `gnomeShell`, reading its settings through dconf (activatable on the
        /// bus) as in a desktop, so that `gsettings set` reaches the running shell.
        case gnomeShellOnDconf
        /// Real mate-notification-daemon, lxqt-notificationd or notification-daemon under Xvfb,
        /// started by D-Bus activation (RealServers.swift).
        case mate, lxqt, notificationDaemon
        /// Real mako or swaync on a headless sway, started by D-Bus activation.
        case mako, swaync
        /// Nobody, and nothing to activate.
        case none
    }

    /// Who plays sound: PulseAudio, or PipeWire with WirePlumber and pipewire-pulse; each with
    /// a null sink `testsink` as the default.
    public enum AudioPeer: Sendable { case pulseAudio, pipeWire, none }

    /// What answers on the system bus. Without one, `DBUS_SYSTEM_BUS_ADDRESS` names a socket
    /// that does not exist, so no test reaches the machine's own system bus.
    public enum SystemPeer: Sendable {
        case none
        /// A private system bus with logind and polkit from python3-dbusmock, and the wake
        /// helper (activatable) writing to `rtcDirectory`/wakealarm; polkit allows the
        /// helper's action when `polkitAllows`. `helper: false` leaves the helper out.
        case wake(polkitAllows: Bool, helper: Bool = true)
    }

    public let directory: String
    public private(set) var environment: [String: String]
    var peers: [(name: String, child: Subprocess.Child)] = []
    /// File systems mounted for the session, unmounted when it ends.
    private var mounts: [String] = []
    /// Services made activatable (`makeActivatable`): stopped by their bus names' owners.
    var activatedServices: [String] = []
    public private(set) var agent: Subprocess.Child?
    public let binaries: String
    private let gdbusPath: String
    private let notificationPeer: NotificationPeer
    /// The X display of the session's Xvfb, when a real notification server needs one.
    public private(set) var display: String?

    /// The notification server's record of events, one JSON object per line.
    public var notificationLog: String { directory + "/notifications.jsonl" }
    /// The session bus daemon's process (to freeze it: SIGSTOP).
    public var busDaemonPID: pid_t? { peers.first { $0.name == "dbus-daemon" }?.child.pid }
    public var agentLog: String { directory + "/agent.log" }
    public var stateDirectory: String { directory + "/state/reveille" }
    /// Where the bus looks for D-Bus service files.
    public var serviceDirectory: String { directory + "/dbus-services" }

    /// `serviceDirectories` are added to where the bus looks for services to activate.
    public init(notifications: NotificationPeer = .recording(), audio: AudioPeer = .pulseAudio,
                serviceDirectories: [String] = [], system: SystemPeer = .none) throws {
        binaries = try TestSession.findBinaries()
        gdbusPath = try Subprocess.find("gdbus", package: "libglib2.0-bin")
        notificationPeer = notifications
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-e2e-\(UUID().uuidString.prefix(8))").path
        for folder in ["", "/runtime", "/home", "/state", "/config", "/dbus-services"] {
            try FileManager.default.createDirectory(atPath: directory + folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        }
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = directory + "/home"
        environment["XDG_RUNTIME_DIR"] = directory + "/runtime"
        environment["XDG_STATE_HOME"] = directory + "/state"
        environment["XDG_CONFIG_HOME"] = directory + "/config"
        environment["XDG_CACHE_HOME"] = directory + "/home/.cache"
        environment["PULSE_SERVER"] = "unix:\(directory)/pulse.sock"
        environment["PULSE_CLIENTCONFIG"] = directory + "/client.conf"
        environment["TZ"] = "UTC"
        for key in ["DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY"] { environment.removeValue(forKey: key) }
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=\(directory)/no-system-bus"
        self.environment = environment
        do {
            switch notifications {
            case .dunst, .xfce4Notifyd, .gnomeShell, .gnomeShellOnDconf, .mate, .lxqt, .notificationDaemon: try startXvfb()
            case .mako, .swaync: try startSway()
            default: break
            }
            try prepareNotificationService(notifications)
            try startBus(serviceDirectories: [serviceDirectory] + serviceDirectories)
            if case .wake(let allows, let helper) = system { try startWakePeers(polkitAllows: allows, helper: helper) }
            switch notifications {
            case .recording(let profile): try startNotificationServer(profile: profile)
            case .gnomeShell: try startGnomeShell()
            case .gnomeShellOnDconf: try startGnomeShell(settings: "dconf")
            default: break
            }
            switch audio {
            case .pulseAudio: try startPulse()
            case .pipeWire: try startPipeWire()
            case .none: break
            }
        } catch {
            stopAll()
            throw error
        }
    }

    deinit { stopAll() }

    // MARK: Peers

    /// A bus that activates services from `serviceDirectories` only (not the system's
    /// folders, where several notification servers may be installed side by side).
    private func startBus(serviceDirectories: [String], system: Bool = false) throws {
        let daemon = try Subprocess.find("dbus-daemon", package: "dbus-daemon")
        let name = system ? "system-bus" : "bus"
        let configuration = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>\(system ? "system" : "session")</type>
              <listen>unix:dir=\(directory)</listen>
              <auth>EXTERNAL</auth>
            \(serviceDirectories.map { "  <servicedir>\($0)</servicedir>" }.joined(separator: "\n"))
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        try configuration.write(toFile: directory + "/\(name).conf", atomically: true, encoding: .utf8)
        let result = try Subprocess.run(daemon, ["--config-file=\(directory)/\(name).conf", "--fork", "--nopidfile",
                                                 "--print-address=1", "--print-pid=1"],
                                        environment: environment)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        guard result.status == 0, lines.count >= 2, let pid = Int32(lines[1]) else {
            throw Subprocess.Failure("dbus-daemon did not start: \(result.stderr)")
        }
        // --fork: the daemon is a child of the process that ended; it is known by its PID alone.
        peers.append((system ? "system dbus-daemon" : "dbus-daemon", Subprocess.Child(pid: pid)))
        environment[system ? "DBUS_SYSTEM_BUS_ADDRESS" : "DBUS_SESSION_BUS_ADDRESS"] = lines[0]
    }

    /// GNOME Shell in X11 mode on the session's Xvfb, and what it needs of the system: a
    /// system bus with logind (python3-dbusmock's template).
    private func startGnomeShell(settings: String = "memory") throws {
        let shell = try Subprocess.find("gnome-shell", package: "gnome-shell")
        guard TestSession.python3Imports("dbusmock") else {
            throw Subprocess.Failure("python3-dbusmock is not installed; the GNOME Shell tests need it for logind (Debian package python3-dbusmock)")
        }
        try startBus(serviceDirectories: [], system: true)
        try startMock("logind", name: "org.freedesktop.login1")
        var shellEnvironment = environment
        shellEnvironment["XDG_SESSION_TYPE"] = "x11"
        shellEnvironment["GSETTINGS_BACKEND"] = settings
        if settings == "dconf" { try makeActivatable("ca.desrt.dconf") }
        peers.append(("gnome-shell", try Subprocess.start(shell, ["--x11", "--replace"], environment: shellEnvironment,
                                                          stderr: directory + "/gnome-shell.log")))
        // The shell starts its notification daemon (org.gnome.Shell.Notifications) by activation.
        try waitForName("org.freedesktop.Notifications", owned: true, timeout: 30, logs: [directory + "/gnome-shell.log"])
    }

    /// A python3-dbusmock template on the system bus, owning `name`.
    private func startMock(_ template: String, name: String) throws {
        guard TestSession.python3Imports("dbusmock") else {
            throw Subprocess.Failure("python3-dbusmock is not installed; it stands in for \(template) (Debian package python3-dbusmock)")
        }
        peers.append(("\(template) mock", try Subprocess.start("/usr/bin/python3", ["-m", "dbusmock", "--system", "--template", template],
                                                              environment: environment, stderr: directory + "/\(template).log")))
        _ = try eventually("\(template) (dbusmock) on the system bus") {
            let owner = try gdbus(["call", "--system", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                                   "--method", "org.freedesktop.DBus.NameHasOwner", name])
            return owner.stdout.contains("true") ? true : nil
        }
    }

    /// Where the wake helper writes: a stand-in for /sys/class/rtc/rtc0.
    public var rtcDirectory: String { directory + "/rtc" }

    /// The system bus of a suspendable machine: logind, polkit, and the wake helper.
    private func startWakePeers(polkitAllows: Bool, helper: Bool) throws {
        let services = directory + "/system-services"
        try FileManager.default.createDirectory(atPath: services, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: rtcDirectory, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: rtcDirectory + "/wakealarm", contents: Data("\n".utf8))
        if helper {
            try Data("""
                [D-BUS Service]
                Name=\(WakeHelperInterface.busName)
                Exec=\(binaries)/reveille-wake-helper --rtc \(rtcDirectory) --idle-exit 5

                """.utf8).write(to: URL(fileURLWithPath: services + "/\(WakeHelperInterface.busName).service"))
        }
        try startBus(serviceDirectories: [services], system: true)
        try startMock("logind", name: "org.freedesktop.login1")
        try startMock("polkitd", name: "org.freedesktop.PolicyKit1")
        if polkitAllows {
            let allowed = try gdbus(["call", "--system", "--dest", "org.freedesktop.PolicyKit1", "--object-path",
                                     "/org/freedesktop/PolicyKit1/Authority", "--method", "org.freedesktop.DBus.Mock.SetAllowed",
                                     "['\(WakeHelperInterface.polkitAction)']"])
            guard allowed.status == 0 else { throw Subprocess.Failure("polkitd mock SetAllowed failed: \(allowed.stderr)") }
        }
    }

    /// logind's inhibitors now: (what, who, why, mode) of each.
    public func inhibitors() throws -> [[String]] {
        let result = try gdbus(["call", "--system", "--dest", "org.freedesktop.login1", "--object-path", "/org/freedesktop/login1",
                                "--method", "org.freedesktop.login1.Manager.ListInhibitors"])
        guard result.status == 0 else { throw Subprocess.Failure("ListInhibitors failed: \(result.stderr)") }
        return result.stdout.matches(of: /\('([^']*)', '([^']*)', '([^']*)', '([^']*)'/).map {
            [String($0.1), String($0.2), String($0.3), String($0.4)]
        }
    }

    /// Makes logind announce a suspend (`true`) or a resume (`false`), as `systemctl suspend` would.
    public func prepareForSleep(_ going: Bool) throws {
        let result = try gdbus(["call", "--system", "--dest", "org.freedesktop.login1", "--object-path", "/org/freedesktop/login1",
                                "--method", "org.freedesktop.DBus.Mock.EmitSignal", "org.freedesktop.login1.Manager",
                                "PrepareForSleep", "b", "[<\(going)>]"])
        guard result.status == 0 else { throw Subprocess.Failure("EmitSignal PrepareForSleep failed: \(result.stderr)") }
    }

    /// What the wake helper wrote to the stand-in RTC: seconds since 1970, 0 or nothing.
    public var rtcWakeAlarm: String {
        ((try? String(contentsOfFile: rtcDirectory + "/wakealarm", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `-noreset`: an X server resets when its last client leaves, and a desktop always has one
    /// (its window manager, its panel); the bare test display has none between two `xdotool`
    /// searches, and a window that connected during such a reset could not open the display.
    /// `cookie` (hex): the server admits only clients that show it (MIT-MAGIC-COOKIE-1), and
    /// the session's `XAUTHORITY` holds it.
    private func startXvfb(cookie: String? = nil) throws {
        let xvfb = try Subprocess.find("Xvfb", package: "xvfb")
        let displayFile = directory + "/display", serverCookies = directory + "/xvfb.auth"
        // The server takes every cookie of its file, whatever display the entry names.
        if let cookie { try addCookie(cookie, display: ":0", to: serverCookies) }
        let server = try Subprocess.start(xvfb, ["-displayfd", "1", "-screen", "0", "1024x768x24", "-nolisten", "tcp", "-noreset"]
                                                + (cookie == nil ? [] : ["-auth", serverCookies]),
                                          environment: environment, stdout: displayFile, stderr: directory + "/xvfb.log")
        peers.append(("Xvfb", server))
        let number = try eventually("Xvfb to name its display") {
            (try? String(contentsOfFile: displayFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
                .nilIfEmpty
        }
        display = ":" + number
        environment["DISPLAY"] = display
        if let cookie {
            try addCookie(cookie, display: ":" + number, to: directory + "/home/.Xauthority")
            environment["XAUTHORITY"] = directory + "/home/.Xauthority"
        }
    }

    private func addCookie(_ cookie: String, display: String, to file: String) throws {
        let xauth = try Subprocess.find("xauth", package: "xauth")
        let added = try Subprocess.run(xauth, ["-q", "-f", file, "add", display, ".", cookie], environment: environment)
        guard added.status == 0 else { throw Subprocess.Failure("xauth could not write \(file): \(added.stderr)") }
    }

    /// Whether the session's Xvfb still runs, and what it logged: why a display went away.
    func displayState() -> String {
        guard let xvfb = peers.first(where: { $0.name == "Xvfb" })?.child else { return "" }
        let log = (try? String(contentsOfFile: directory + "/xvfb.log", encoding: .utf8)) ?? ""
        return "; Xvfb (pid \(xvfb.pid)) \(xvfb.isRunning ? "runs" : "ended with \(xvfb.status ?? -1)"), its log ends:\n"
            + log.split(separator: "\n").suffix(20).joined(separator: "\n")
    }

    /// Writes the D-Bus service file that starts the chosen notification server on demand.
    private func prepareNotificationService(_ peer: NotificationPeer) throws {
        let exec: String
        switch peer {
        case .activatableRecording(let profile):
            exec = "\(binaries)/reveille-test-notifyd --record \(notificationLog) --profile \(profile)"
        case .dunst:
            let dunst = try Subprocess.find("dunst", package: "dunst")
            _ = try Subprocess.find("dunstctl", package: "dunst")
            // dunst feeds its menu's lines ("#Label (summary) [id,key]") to this command and invokes the one it prints.
            try """
                [global]
                dmenu = /usr/bin/grep -m1 -F -f \(directory)/dunst-choice
                """.write(toFile: directory + "/dunstrc", atomically: true, encoding: .utf8)
            exec = "\(dunst) -config \(directory)/dunstrc"
        case .xfce4Notifyd:
            let candidates = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib", "/usr/libexec"]
                .map { $0 + "/xfce4/notifyd/xfce4-notifyd" }
            guard let found = candidates.first(where: FileManager.default.isExecutableFile(atPath:)) else {
                throw Subprocess.Failure("xfce4-notifyd is not installed; the end-to-end tests need it (Debian package xfce4-notifyd; `make test` installs it)")
            }
            exec = found
        case .gnomeShell, .gnomeShellOnDconf:
            _ = try Subprocess.find("gjs", package: "gjs")
            let file = "/usr/share/dbus-1/services/org.gnome.Shell.Notifications.service"
            guard FileManager.default.fileExists(atPath: file) else {
                throw Subprocess.Failure("\(file) is missing; the GNOME Shell tests need it (Debian package gnome-shell)")
            }
            try FileManager.default.copyItem(atPath: file, toPath: serviceDirectory + "/org.gnome.Shell.Notifications.service")
            return
        case .mate, .lxqt, .notificationDaemon, .mako, .swaync:
            exec = try realServerCommand(peer) ?? ""
        case .recording, .none:
            return
        }
        try """
            [D-BUS Service]
            Name=org.freedesktop.Notifications
            Exec=\(exec)
            """.write(toFile: serviceDirectory + "/org.freedesktop.Notifications.service", atomically: true, encoding: .utf8)
    }

    public func startNotificationServer(profile: String = "gnome") throws {
        let server = try Subprocess.start(binaries + "/reveille-test-notifyd", ["--record", notificationLog, "--profile", profile],
                                          environment: environment, stderr: directory + "/notifyd.log")
        peers.append(("reveille-test-notifyd", server))
        try waitForName("org.freedesktop.Notifications", owned: true, logs: [directory + "/notifyd.log"])
    }

    /// Stops the notification server, as a crash or restart of the desktop shell would, and
    /// waits until that process no longer owns the name (the agent may start a new one at once).
    public func stopNotificationServer() throws {
        let pid = try ownerPID(of: "org.freedesktop.Notifications")
        if peers.contains(where: { $0.name == "reveille-test-notifyd" }) {
            stop(named: "reveille-test-notifyd")
        } else if let pid {
            // Started by activation: known by the bus only.
            Subprocess.Child(pid: pid).terminate()
        }
        _ = try eventually("the notification server \(pid.map(String.init) ?? "") to leave the bus") {
            try ownerPID(of: "org.freedesktop.Notifications") != pid || pid == nil ? true : nil
        }
    }

    /// What the recording StatusNotifierWatcher saw, one JSON object per line.
    public var statusNotifierLog: String { directory + "/status-notifier.jsonl" }

    /// A panel on the bus: the recording StatusNotifierWatcher (Tests/Support/status-notifier-watcher),
    /// started now and waited for; `stopStatusNotifierWatcher` ends it as a panel that quits.
    public func startStatusNotifierWatcher() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("status-notifier-watcher/recording-watcher.py").path
        guard TestSession.python3Imports("dbus, gi") else {
            throw Subprocess.Failure("/usr/bin/python3 with dbus and gi is missing (Debian packages python3-dbus, python3-gi)")
        }
        peers.append(("status-notifier-watcher", try Subprocess.start("/usr/bin/python3", [script, statusNotifierLog], environment: environment,
                                                                      stderr: directory + "/status-notifier-watcher.log")))
        try waitForName("org.kde.StatusNotifierWatcher", owned: true)
    }

    public func stopStatusNotifierWatcher() throws {
        stop(named: "status-notifier-watcher")
        try waitForName("org.kde.StatusNotifierWatcher", owned: false)
    }

    /// KDE Plasma's own StatusNotifierWatcher: the module daemon's (kded5 on Plasma 5, kded6 on
    /// Plasma 6; `DesktopRelease`), loaded as plasmashell has it loaded, headless (Qt's offscreen
    /// platform, no display).
    public func startKDEStatusNotifierWatcher() throws {
        let daemon = DesktopRelease.moduleDaemon
        let kded = try Subprocess.find(daemon.executable, package: daemon.package)
        guard FileManager.default.fileExists(atPath: daemon.statusNotifierModule) else {
            throw Subprocess.Failure("KDE's statusnotifierwatcher kded module is missing (\(daemon.statusNotifierModule); Debian package plasma-workspace)")
        }
        var kdeEnvironment = environment
        kdeEnvironment["QT_QPA_PLATFORM"] = "offscreen"
        // No data folders: kded runs kconf_update at start, whose krunnerhistory script waits for
        // KDE's activity manager for ever (kded5 gives up after 30 s and leaves it running); with
        // no update files there is nothing to run. Modules are Qt plugins, found without them.
        kdeEnvironment["XDG_DATA_DIRS"] = directory + "/kde-data"
        let log = directory + "/\(daemon.executable).log"
        peers.append(("kded", try Subprocess.start(kded, [], environment: kdeEnvironment, stderr: log)))
        try waitForName(daemon.busName, owned: true, timeout: 20, logs: [log])
        let loaded = try gdbusCall(destination: daemon.busName, path: "/kded", method: daemon.interface + ".loadModule", ["statusnotifierwatcher"])
        guard loaded.stdout.contains("true") else { throw Subprocess.Failure("\(daemon.executable) did not load statusnotifierwatcher: \(loaded.stdout) \(loaded.stderr)") }
        try waitForName("org.kde.StatusNotifierWatcher", owned: true)
    }

    public func stopKDEStatusNotifierWatcher() throws {
        stop(named: "kded")
        try waitForName("org.kde.StatusNotifierWatcher", owned: false)
    }

    /// Kills the session bus (SIGKILL), as a crashed or ended session would.
    public func killBus() {
        for peer in peers where peer.name == "dbus-daemon" { kill(peer.child.pid, SIGKILL); peer.child.wait() }
        peers.removeAll { $0.name == "dbus-daemon" }
        environment["DBUS_SESSION_BUS_ADDRESS"] = nil
    }

    /// Kills PulseAudio (SIGKILL, as a crash would).
    public func killPulseAudio() {
        for peer in peers where peer.name == "pulseaudio" { kill(peer.child.pid, SIGKILL); peer.child.wait() }
        peers.removeAll { $0.name == "pulseaudio" }
    }

    /// Sends one line to PulseAudio's command-line interface (`module-cli-protocol-unix`,
    /// loaded on first use), for what pactl cannot do, such as `kill-sink-input N`.
    public func pulseCommand(_ line: String) throws {
        let socketPath = directory + "/pulse-cli.sock"
        if !FileManager.default.fileExists(atPath: socketPath) {
            let load = try pactl("load-module", "module-cli-protocol-unix", "socket=\(socketPath)")
            guard load.status == 0 else { throw Subprocess.Failure("cannot load PulseAudio's CLI: \(load.stderr)") }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Subprocess.Failure("socket failed") }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(socketPath.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes + [0])
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw Subprocess.Failure("cannot connect to \(socketPath)") }
        // One line, then end-of-file ("exit" would end the daemon, not the session).
        let command = Array((line + "\n").utf8)
        guard write(fd, command, command.count) == command.count else { throw Subprocess.Failure("cannot send \(line)") }
        shutdown(fd, Int32(SHUT_WR))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while read(fd, &buffer, buffer.count) > 0 {}
    }

    /// Runs `pactl` against the session's sound server.
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

    /// PipeWire, WirePlumber and pipewire-pulse as a desktop runs them, with their state in
    /// the session's folders; the pulse socket replaces PulseAudio's.
    public func startPipeWire() throws {
        let pipewire = try Subprocess.find("pipewire", package: "pipewire-bin")
        let wireplumber = try Subprocess.find("wireplumber", package: "wireplumber")
        let pipewirePulse = try Subprocess.find("pipewire-pulse", package: "pipewire-pulse")
        let pactl = try Subprocess.find("pactl", package: "pulseaudio-utils")
        try "autospawn = no\n".write(toFile: directory + "/client.conf", atomically: true, encoding: .utf8)
        environment["PULSE_SERVER"] = "unix:\(directory)/runtime/pulse/native"
        peers.append(("pipewire", try Subprocess.start(pipewire, [], environment: environment, stderr: directory + "/pipewire.log")))
        _ = try eventually("PipeWire's socket") {
            FileManager.default.fileExists(atPath: directory + "/runtime/pipewire-0") ? true : nil
        }
        peers.append(("wireplumber", try Subprocess.start(wireplumber, [], environment: environment, stderr: directory + "/wireplumber.log")))
        peers.append(("pipewire-pulse", try Subprocess.start(pipewirePulse, [], environment: environment,
                                                             stderr: directory + "/pipewire-pulse.log")))
        _ = try eventually("pipewire-pulse to answer") {
            try Subprocess.run(pactl, ["info"], environment: environment, timeout: 5).status == 0 ? true : nil
        }
        let load = try Subprocess.run(pactl, ["load-module", "module-null-sink", "sink_name=testsink"], environment: environment)
        guard load.status == 0 else { throw Subprocess.Failure("pipewire-pulse did not load a null sink: \(load.stderr)") }
        _ = try eventually("the null sink to appear") {
            try Subprocess.run(pactl, ["set-default-sink", "testsink"], environment: environment).status == 0 ? true : nil
        }
    }

    /// Runs `pw-metadata` against the session's PipeWire.
    public func pwMetadata(_ arguments: [String]) throws -> Subprocess.Result {
        try Subprocess.run(try Subprocess.find("pw-metadata", package: "pipewire-bin"), arguments, environment: environment)
    }

    /// Runs `dunstctl` against the session's dunst.
    @discardableResult
    public func dunstctl(_ arguments: String...) throws -> Subprocess.Result {
        try Subprocess.run(try Subprocess.find("dunstctl", package: "dunst"), arguments, environment: environment)
    }

    /// Presses the button labelled `label` on the first notification dunst lists with it, as a
    /// person does through dunst's context menu (`dunstctl context`).
    public func pressInDunst(label: String, summary: String) throws {
        try "#\(label) (\(summary))".write(toFile: directory + "/dunst-choice", atomically: true, encoding: .utf8)
        let result = try dunstctl("context")
        guard result.status == 0 else { throw Subprocess.Failure("dunstctl context failed: \(result.stderr)") }
    }

    /// A notification server's window (a bubble) on the session's X display.
    public struct Window: Equatable {
        public var id: String
        public var x: Int, y: Int, width: Int, height: Int
        public init(id: String, x: Int, y: Int, width: Int, height: Int) {
            (self.id, self.x, self.y, self.width, self.height) = (id, x, y, width, height)
        }
    }

    /// xfce4-notifyd's bubbles on screen, top to bottom.
    public func xfceBubbles() throws -> [Window] { try windows(classname: "xfce4-notifyd") }

    /// Clicks a button of an xfce4-notifyd bubble as a person would: `fromRight` 0 is the last
    /// button (the secondary, or Cancel), 1 the one before it (Stop, Pause). The buttons sit
    /// right-aligned in the bubble's bottom row, 92 px apart (Debian 12's GTK theme).
    public func clickXfceButton(_ bubble: Window, fromRight index: Int) throws {
        try click(x: bubble.x + bubble.width - 57 - 92 * index, y: bubble.y + bubble.height - 31)
    }

    // MARK: Windows (the alert window)

    /// Starts Xvfb for the session's windows (once; a real notification server's may run
    /// already). Call before `startAgent`, which then has `DISPLAY`.
    public func startDisplay() throws {
        if display == nil { try startXvfb() }
    }

    /// Starts the session's display admitting only clients that show its cookie, which the
    /// session's `XAUTHORITY` holds: a client given another file is refused, as X refuses one
    /// whose cookie is not written yet.
    public func startDisplayRequiringCookie() throws {
        guard display == nil else { throw Subprocess.Failure("the session's display already runs") }
        try startXvfb(cookie: (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0 ... 255)) }.joined())
    }

    /// The visible windows on the session's display whose title is exactly `title`.
    public func windows(titled title: String) throws -> [String] {
        let xdotool = try Subprocess.find("xdotool", package: "xdotool")
        let pattern = "^" + NSRegularExpression.escapedPattern(for: title) + "$"
        let found = try Subprocess.run(xdotool, ["search", "--onlyvisible", "--name", pattern], environment: environment)
        // Exit status 1: no such window (an X error may be said too: a window went away as it
        // was searched). A display that cannot be opened is said so.
        guard !found.stderr.contains("Can't open display") else {
            throw Subprocess.Failure("xdotool cannot search \(display ?? "no display"): \(found.stderr)\(displayState())")
        }
        let ids = found.stdout.split(separator: "\n").map(String.init)
        guard ids.count > 0 else { return [] }
        // mutter 44 and later (GNOME Shell 48 on Debian 13) draws X11 decorations in a client of
        // its own, mutter-x11-frames, whose frame windows carry the client's title: not the
        // program's window.
        let xprop = try Subprocess.find("xprop", package: "x11-utils")
        return try ids.filter {
            !(try Subprocess.run(xprop, ["-id", $0, "WM_CLASS"], environment: environment).stdout.contains("\"mutter-x11-frames\""))
        }
    }

    /// Types `key` (an X key name: Return, Escape, s) into `window`, as a person at the keyboard
    /// does: the window is activated (through the window manager, or focused where none runs),
    /// then the key goes through the X server (XTEST).
    public func type(_ key: String, into window: String) throws {
        let xdotool = try Subprocess.find("xdotool", package: "xdotool")
        if try Subprocess.run(xdotool, ["windowactivate", "--sync", window], environment: environment).status != 0 {
            _ = try Subprocess.run(xdotool, ["windowfocus", "--sync", window], environment: environment)
        }
        let typed = try Subprocess.run(xdotool, ["key", "--clearmodifiers", key], environment: environment)
        guard typed.status == 0 else { throw Subprocess.Failure("xdotool could not type \(key) into \(window): \(typed.stderr)") }
    }

    // MARK: Agent and CLI

    /// Starts reveille-agent and waits until it owns its bus name. `launcher`: a command that
    /// executes the agent in its place (its PID stays the agent's), e.g. `setpriv` dropping a capability.
    public func startAgent(_ arguments: [String] = [], environment extra: [String: String?] = [:], launcher: [String] = []) throws {
        var environment = self.environment
        for (key, value) in extra { environment[key] = value }
        let command = launcher + [binaries + "/reveille-agent"] + arguments
        let process = try Subprocess.start(command[0], Array(command.dropFirst()), environment: environment,
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

    /// `eventually`, and when it times out, the agent's log's last lines in the failure: what
    /// the agent did meanwhile is what a wait on it needs to be understood.
    public func eventually<T>(timeout: TimeInterval = 30, _ what: String, _ condition: () throws -> T?) throws -> T {
        do {
            return try ReveilleTestSupport.eventually(timeout: timeout, what, condition)
        } catch let failure as Subprocess.Failure {
            let log = (try? String(contentsOfFile: agentLog, encoding: .utf8)) ?? "(no log)"
            throw Subprocess.Failure(failure.description + "; the agent's log ends:\n"
                                     + log.split(separator: "\n").suffix(40).joined(separator: "\n"))
        }
    }

    /// Waits until the agent's log holds `line` at least `count` times: the agent has handled
    /// what the line reports (a barrier, instead of waiting a fixed time).
    public func waitForAgentLog(_ line: String, count: Int = 1, timeout: TimeInterval = 10) throws {
        _ = try eventually(timeout: timeout, "\(count)× \"\(line)\" in the agent's log") {
            let log = (try? String(contentsOfFile: agentLog, encoding: .utf8)) ?? ""
            return log.components(separatedBy: line).count - 1 >= count ? true : nil
        }
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

    /// The state of alarm `id` (its full id) as the agent holds it now: `scheduled`,
    /// `countdown`, `paused` or `alerting`; `nil` when it holds none by that id. For waits that
    /// ask again and again: one dbus-send (2 ms of CPU) where the CLI takes 15 ms in a debug
    /// build. Tests that assert what the user is shown keep asking the CLI.
    public func agentState(of id: String) throws -> String? {
        let dbusSend = try Subprocess.find("dbus-send", package: "dbus-bin")
        let reply = try Subprocess.run(dbusSend, ["--session", "--print-reply=literal", "--dest=" + AgentInterface.busName,
                                                  AgentInterface.objectPath, AgentInterface.interface + ".Get", "string:" + id],
                                       environment: environment)
        guard reply.status == 0 else {
            if reply.stderr.contains(".Error.NotFound") { return nil }
            throw Subprocess.Failure("Get \(id) failed: \(reply.stderr)")
        }
        return try JSONCoding.decoder.decode(AlarmRecord.self, from: Data(reply.stdout.trimmingCharacters(in: .whitespacesAndNewlines).utf8))
            .state.rawValue
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

    /// Schedules through D-Bus a timer titled `title` that rings in `seconds`, whose stop intent
    /// creates a file: returns that file's path, which exists once the intent ran.
    public func scheduleTimerWithStopIntent(_ title: String, in seconds: TimeInterval) throws -> String {
        let ran = directory + "/stop-intent-ran"
        var request = AlarmRequest(schedule: nil, countdownDuration: .init(preAlert: seconds, postAlert: 300),
                                   presentation: AlarmPresentation(alert: .init(title: title)))
        request.stopIntent = .run(arguments: [try Subprocess.find("touch", package: "coreutils"), ran])
        let configuration = String(decoding: try JSONCoding.compactEncoder.encode(request), as: UTF8.self)
        let scheduled = try gdbusCall(destination: AgentInterface.busName, path: AgentInterface.objectPath,
                                      method: "\(AgentInterface.interface).Schedule", ["", configuration, "{}"])
        guard scheduled.status == 0 else { throw Subprocess.Failure("Schedule \(title) failed: \(scheduled.stderr)") }
        return ran
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

    /// `logs`: the log files of the peers meant to take the name, whose last lines a timeout quotes.
    public func waitForName(_ name: String, owned: Bool, timeout: TimeInterval = 10, logs: [String] = []) throws {
        if owned {
            // One process the bus tells when the name gets an owner, instead of a NameHasOwner call per poll.
            let seconds = Int(timeout.rounded(.up))
            let waited = try Subprocess.run(gdbusPath, ["wait", "--session", "--timeout", "\(seconds)", name], environment: environment,
                                            timeout: timeout + 10)
            guard waited.status == 0 else {
                let said = waited.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
                throw Subprocess.Failure("timed out after \(seconds) s waiting for \(name) to be owned on the test bus"
                    + (said.isEmpty ? "" : ": \(said)") + logs.map { Self.lastLines(ofLog: $0) }.joined())
            }
            return
        }
        _ = try eventually(timeout: timeout, "\(name) to be released on the test bus") {
            let result = try gdbusCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                       method: "org.freedesktop.DBus.NameHasOwner", [name])
            return result.stdout.contains("false") ? true : nil
        }
    }

    /// The last lines of the log file at `path`, to quote in a failure ("" when there is none).
    static func lastLines(ofLog path: String, count: Int = 12) -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return "\n(\(path): no log)" }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true).suffix(count)
        return "\nlast lines of \(path):\n" + (lines.isEmpty ? "(empty)" : lines.joined(separator: "\n"))
    }

    /// Keeps `child` as a peer, stopped by PID with the session; the environment gains `extra`.
    func adopt(_ name: String, _ child: Subprocess.Child, environment extra: [String: String] = [:]) {
        peers.append((name, child))
        environment.merge(extra) { $1 }
    }

    func stop(named name: String) {
        for peer in peers where peer.name == name { peer.child.terminate() }
        peers.removeAll { $0.name == name }
    }

    /// Mounts a tmpfs at `path` with `options` (`mount -t tmpfs`: root with CAP_SYS_ADMIN, as CI
    /// runs the tests); the session unmounts it when it ends, once its agent has let go of it (a
    /// test's own `defer` ran while the agent still held files there: every run left a mount).
    public func mountTmpfs(at path: String, options: String) throws -> Subprocess.Result {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let result = try Subprocess.run(try Subprocess.find("mount", package: "mount"), ["-t", "tmpfs", "-o", options, "tmpfs", path],
                                        environment: environment)
        if result.status == 0 { mounts.append(path) }
        return result
    }

    /// Stops the agent and every peer now, as the session's end does (for a program that exits
    /// rather than letting the session go).
    public func stopAll() {
        agent?.terminate()
        agent = nil
        // A server the bus started is no child of ours: find it by its bus name while the bus is up.
        for name in ["org.freedesktop.Notifications"] + activatedServices {
            if environment["DBUS_SESSION_BUS_ADDRESS"] != nil, let pid = try? ownerPID(of: name),
               !peers.contains(where: { $0.child.pid == pid }) {
                Subprocess.Child(pid: pid).terminate()
            }
        }
        for peer in peers.reversed() { peer.child.terminate() }
        peers = []
        for path in mounts.reversed() {
            let umount = try? Subprocess.find("umount", package: "mount")
            // Lazily detached if something still holds it: never left mounted.
            if let umount, (try? Subprocess.run(umount, [path], environment: environment))?.status != 0 {
                _ = try? Subprocess.run(umount, ["-l", path], environment: environment)
            }
        }
        mounts = []
        if ProcessInfo.processInfo.environment["REVEILLE_KEEP_TEST_FILES"] == nil {
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    private static let importsLock = NSLock()
    nonisolated(unsafe) private static var imports: [String: Bool] = [:]

    /// Whether /usr/bin/python3 imports `modules` (such as `dbus, gi`). Asked once per test run:
    /// each asking starts an interpreter (70 ms of CPU to import dbusmock), and the answer stays.
    static func python3Imports(_ modules: String) -> Bool {
        importsLock.withLock {
            if let known = imports[modules] { return known }
            let answer = FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
                && (try? Subprocess.run("/usr/bin/python3", ["-c", "import " + modules], environment: ProcessInfo.processInfo.environment).status) == 0
            imports[modules] = answer
            return answer
        }
    }

    /// Where `swift build` put the executables: beside this test bundle, or `REVEILLE_BUILD_DIR`.
    public static func findBinaries() throws -> String {
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

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
