import Foundation

/// The media peers of a session: a recording MPRIS player (music that plays), a stand-in screen
/// locker, and playerctl (Debian's package) as a person's media keys and phone use it.
extension TestSession {
    private static var mediaPeers: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("media-peers").path
    }

    /// Where the recording player `name` writes what it was asked, one JSON object per line.
    public func mediaPlayerLog(_ name: String) -> String { directory + "/player-\(name).jsonl" }

    /// Starts the recording player `org.mpris.MediaPlayer2.NAME`, Playing (`playing: false`: Paused),
    /// and waits until it asked for its name (`replacing`: with REPLACE_EXISTING, as a squatter
    /// would). Returns RequestName's answer: 1 when it owns the name.
    @discardableResult
    public func startMediaPlayer(_ name: String, canPause: Bool = true, playing: Bool = true, replacing: Bool = false,
                                 extraNames: Int = 0) throws -> Int {
        try requirePython()
        let arguments = [Self.mediaPeers + "/recording-player.py", mediaPlayerLog(name), name]
            + (canPause ? [] : ["--cannot-pause"]) + (playing ? [] : ["--paused"]) + (replacing ? ["--replace"] : [])
            + (extraNames > 0 ? ["--extra-names", String(extraNames)] : [])
        peers.append(("player \(name)", try Subprocess.start("/usr/bin/python3", arguments, environment: environment,
                                                             stderr: directory + "/player-\(name).log")))
        return try eventually(timeout: 10, "the player \(name) to ask for its name") {
            try mediaPlayerEvents(name).first { $0.event == "requested" }?.result
        }
    }

    public func stopMediaPlayer(_ name: String) throws {
        stop(named: "player \(name)")
        try waitForName("org.mpris.MediaPlayer2." + name, owned: false)
    }

    /// What the recording player heard: a method call (`call`), or a player name's new owner (`owner`).
    public struct PlayerEvent: Decodable {
        public var event: String
        public var method: String?
        public var status: String?
        public var name: String?
        public var owner: String?
        /// RequestName's answer, on `requested`.
        public var result: Int?
        public var time: Double
    }

    /// What the recording player `name` heard, in order.
    public func mediaPlayerEvents(_ name: String) throws -> [PlayerEvent] {
        guard let text = try? String(contentsOfFile: mediaPlayerLog(name), encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map { try JSONDecoder().decode(PlayerEvent.self, from: Data($0.utf8)) }
    }

    /// The methods the recording player `name` was called with, in order.
    public func mediaPlayerCalls(_ name: String) throws -> [String] {
        try mediaPlayerEvents(name).filter { $0.event == "call" }.compactMap(\.method)
    }

    /// The screen lockers a stand-in can be: GNOME Shell's name, or the freedesktop one
    /// (KDE, xfce), or light-locker (the freedesktop name, from a process called light-locker).
    public enum ScreenLocker: String, Sendable {
        case gnome, freedesktop, lightLocker

        public var busName: String { self == .gnome ? "org.gnome.ScreenSaver" : "org.freedesktop.ScreenSaver" }
        public var path: String { self == .gnome ? "/org/gnome/ScreenSaver" : "/org/freedesktop/ScreenSaver" }
    }

    /// Starts a stand-in screen locker, locked when `locked`, and waits for it on the bus.
    public func startScreenLocker(_ locker: ScreenLocker, locked: Bool) throws {
        try requirePython()
        var program = Self.mediaPeers + "/screensaver.py"
        if locker == .lightLocker {
            // The process's name is the name it was started by: a link called light-locker.
            let link = directory + "/light-locker"
            try? FileManager.default.removeItem(atPath: link)
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: program)
            program = link
        }
        let arguments = [locker == .gnome ? "gnome" : "freedesktop"] + (locked ? ["--active"] : [])
        peers.append(("screen locker", try Subprocess.start(program, arguments, environment: environment,
                                                            stderr: directory + "/screen-locker.log")))
        try waitForName(locker.busName, owned: true)
    }

    /// Locks or unlocks the stand-in screen locker: it says so with ActiveChanged, as a locker does.
    public func setScreenLocked(_ locker: ScreenLocker, _ locked: Bool) throws {
        let result = try gdbusCall(destination: locker.busName, path: locker.path,
                                   method: "io.github.reveille.TestScreenSaver.SetActive", [locked ? "true" : "false"])
        guard result.status == 0 else { throw Subprocess.Failure("the stand-in screen locker did not \(locked ? "lock" : "unlock"): \(result.stderr)") }
    }

    /// GNOME's media keys: gnome-settings-daemon's media-keys plugin, which grabs the keys through
    /// GNOME Shell (start the session with `.gnomeShell`) and sends them to the MPRIS player it picks.
    public func startGnomeMediaKeys() throws {
        let plugin = "/usr/libexec/gsd-media-keys"
        guard FileManager.default.isExecutableFile(atPath: plugin) else {
            throw Subprocess.Failure("\(plugin) is not installed (Debian package gnome-settings-daemon)")
        }
        var pluginEnvironment = environment
        pluginEnvironment["GSETTINGS_BACKEND"] = "memory"
        peers.append(("gsd-media-keys", try Subprocess.start(plugin, [], environment: pluginEnvironment, stderr: directory + "/gsd-media-keys.log")))
        try waitForName("org.gnome.SettingsDaemon.MediaKeys", owned: true, timeout: 30)
    }

    /// Presses `key` (an X keysym such as XF86AudioPlay) on the session's display, as a keyboard does (XTEST).
    public func pressKey(_ key: String) throws {
        let pressed = try Subprocess.run(try Subprocess.find("xdotool", package: "xdotool"), ["key", key], environment: environment)
        guard pressed.status == 0 else { throw Subprocess.Failure("xdotool could not press \(key): \(pressed.stderr)") }
    }

    /// Adds the user's display session to the session's logind (python3-dbusmock's, started with
    /// a `.wake` system peer), as a desktop's login makes one; returns its object path.
    public func addLogindDisplaySession() throws -> String {
        func call(_ path: String, _ method: String, _ arguments: [String]) throws -> Subprocess.Result {
            let result = try gdbus(["call", "--system", "--dest", "org.freedesktop.login1", "--object-path", path, "--method", method] + arguments)
            guard result.status == 0 else { throw Subprocess.Failure("logind mock \(method) failed: \(result.stderr)") }
            return result
        }
        let uid = "\(getuid())"
        let session = try call("/org/freedesktop/login1", "org.freedesktop.DBus.Mock.AddSession", ["c1", "seat0", uid, "person", "true"]).stdout
            .firstMatch(of: /'([^']+)'/).map { String($0.1) } ?? ""
        // The mock's UpdateProperties cannot wrap a struct; Set can.
        _ = try call("/org/freedesktop/login1/user/" + uid, "org.freedesktop.DBus.Properties.Set",
                     ["org.freedesktop.login1.User", "Display", "<('c1', objectpath '\(session)')>"])
        return session
    }

    /// Sets the display session's `LockedHint` as a locker does (`SetLockedHint`), and logind tells it.
    public func setLockedHint(_ session: String, _ locked: Bool) throws {
        let result = try gdbus(["call", "--system", "--dest", "org.freedesktop.login1", "--object-path", session,
                                "--method", "org.freedesktop.login1.Session.SetLockedHint", locked ? "true" : "false"])
        guard result.status == 0 else { throw Subprocess.Failure("SetLockedHint failed: \(result.stderr)") }
    }

    /// Runs playerctl (Debian's package `playerctl`) on the session's bus.
    public func playerctl(_ arguments: String...) throws -> Subprocess.Result {
        try Subprocess.run(try Subprocess.find("playerctl", package: "playerctl"), arguments, environment: environment)
    }

    private func requirePython() throws {
        guard TestSession.python3Imports("dbus, gi") else {
            throw Subprocess.Failure("/usr/bin/python3 with dbus and gi is missing (Debian packages python3-dbus, python3-gi)")
        }
    }
}
