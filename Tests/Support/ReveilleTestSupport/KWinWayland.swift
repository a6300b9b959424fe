import Foundation

/// KDE Plasma's Wayland compositor, KWin, headless and locked as a Plasma Wayland session locks:
/// `kwin_wayland` draws its one screen in a window of the session's Xvfb (its X11 backend, in
/// software: its screenshot interface needs OpenGL, so the picture is Xvfb's), with its Wayland
/// socket in the session's runtime folder; `org.freedesktop.ScreenSaver.Lock` on the session bus
/// locks it, and KWin starts the lock screen's greeter (kscreenlocker_greet) as a Wayland client
/// of its own. A click on Xvfb with xdotool reaches KWin's pointer, as a hand on the mouse does.
///
/// KWin lets a program use its restricted interfaces (`kde_lockscreen_overlay_v1` among them)
/// only when an installed desktop file names the program, its `Exec` the program's real path,
/// and lists them under `X-KDE-Wayland-Interfaces`; KWin looks it up in KDE's service cache
/// (sycoca), which kbuildsycoca builds from the applications menu's folders.
extension TestSession {
    /// KWin's major version (5: Plasma 5.27, Debian 12; 6: Plasma 6, Debian 13), from
    /// kwin-wayland's installed version; its KDE Frameworks tools match it.
    public static var kwinMajor: Int {
        DesktopRelease.version(of: "kwin-wayland", isAtLeast: [6]) ? 6 : 5
    }

    /// The session's own XDG_DATA_HOME, where a user's desktop files go.
    public var dataHome: String { environment["XDG_DATA_HOME"] ?? (environment["HOME"] ?? directory + "/home") + "/.local/share" }

    /// The log of the session's KWin.
    public var kwinLog: String { directory + "/kwin_wayland.log" }

    /// What KWin and kbuildsycoca share: the applications menu Plasma's session names
    /// (startplasma sets XDG_MENU_PREFIX; without a menu kbuildsycoca caches no application, and
    /// KWin finds no desktop file at all), Qt's logging of KWin's lookups, software drawing.
    var kdeEnvironment: [String: String] {
        // Plasma 6's menu is plasma-applications.menu; Plasma 5.27's in Debian 12, kf5-applications.menu.
        let prefix = ["plasma-", "kf5-"].first { FileManager.default.fileExists(atPath: "/etc/xdg/menus/\($0)applications.menu") } ?? "plasma-"
        return environment.merging(["XDG_MENU_PREFIX": prefix, "KWIN_COMPOSE": "Q", "LIBGL_ALWAYS_SOFTWARE": "1",
                                    "QT_LOGGING_RULES": "KWIN_UTILS.debug=true"]) { $1 }
    }

    /// Installs a desktop file naming `program` (its real path) with `X-KDE-Wayland-Interfaces`
    /// listing `interfaces`, in the session's XDG_DATA_HOME, as a package or `scripts/install`
    /// installs one (`NoDisplay=true`, as Reveille's), and builds KDE's service cache for it.
    /// Call before `startKWinWayland`.
    public func installDesktopFile(naming program: String, interfaces: [String], name: String = "reveille-test-alert") throws {
        // Which kbuildsycoca is KWin's: the missing KWin is what to name first.
        _ = try Subprocess.find("kwin_wayland", package: "kwin-wayland")
        let real = URL(fileURLWithPath: program).resolvingSymlinksInPath().path
        let applications = dataHome + "/applications"
        try FileManager.default.createDirectory(atPath: applications, withIntermediateDirectories: true)
        try """
            [Desktop Entry]
            Type=Application
            Name=\(name)
            Exec=\(real)
            NoDisplay=true
            X-KDE-Wayland-Interfaces=\(interfaces.joined(separator: ","))

            """.write(toFile: applications + "/\(name).desktop", atomically: true, encoding: .utf8)
        let tool = Self.kwinMajor >= 6 ? ("kbuildsycoca6", "libkf6service-bin") : ("kbuildsycoca5", "libkf5service-bin")
        let kbuildsycoca = try Subprocess.find(tool.0, package: tool.1)
        let built = try Subprocess.run(kbuildsycoca, ["--noincremental"], environment: kdeEnvironment, timeout: 60)
        guard built.status == 0 else { throw Subprocess.Failure("\(tool.0) failed (\(built.status)): \(built.stderr)") }
    }

    /// The Wayland display of the session's KWin: a socket in its runtime folder.
    public var kwinWaylandDisplay: String { "kwin-wayland-0" }

    /// The session's environment on KWin's Wayland display alone (`WAYLAND_DISPLAY`, no
    /// `DISPLAY`), as a program of a Plasma Wayland session finds it. The session's own
    /// environment stays on Xvfb: its pictures and clicks are X's (GDK would take a picture
    /// of the Wayland display where both are named, and it has none to give).
    public var onKWinWayland: [String: String] {
        var environment = environment
        environment["WAYLAND_DISPLAY"] = kwinWaylandDisplay
        environment["DISPLAY"] = nil
        return environment
    }

    /// Starts Xvfb (if not running) and kwin_wayland drawing in it, and waits for its Wayland
    /// socket (`kwinWaylandDisplay`).
    public func startKWinWayland() throws {
        let kwin = try Subprocess.find("kwin_wayland", package: "kwin-wayland")
        try startDisplay()
        let socket = kwinWaylandDisplay
        let size = try Subprocess.run(try Subprocess.find("xdotool", package: "xdotool"), ["getdisplaygeometry"], environment: environment)
            .stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard size.count == 2 else { throw Subprocess.Failure("xdotool getdisplaygeometry said \(size)") }
        let arguments = ["--x11-display", display ?? "", "--socket", socket, "--width", "\(size[0])", "--height", "\(size[1])"]
        let child: Subprocess.Child
        do {
            child = try Subprocess.start(kwin, arguments, environment: kdeEnvironment, stderr: kwinLog)
        } catch let failure as Subprocess.Failure where failure.description.hasSuffix(String(cString: strerror(EPERM))) {
            // Debian's kwin_wayland carries a file capability (cap_sys_resource in Debian 12,
            // cap_sys_nice in 13: its limits and its priority), and the kernel refuses to run it
            // where the bounding set lacks that one (a container, as this machine is). A copy
            // carries none and runs the same, without the priority. Copied by cp, whose descriptor
            // open for writing no process forked by this one's other threads can inherit (the
            // kernel then refuses to run the copy: "Text file busy", seen under the whole suite).
            let copy = directory + "/kwin_wayland"
            guard try Subprocess.run("/bin/cp", [kwin, copy], environment: environment).status == 0 else { throw failure }
            child = try Subprocess.start(copy, arguments, environment: kdeEnvironment, stderr: kwinLog)
        }
        let path = directory + "/runtime/" + socket
        do {
            _ = try withKWinLog {
                try eventually(timeout: 60, "KWin's Wayland socket \(path)") { () -> Bool? in
                    guard child.isRunning else { throw Subprocess.Failure("kwin_wayland ended (\(child.status ?? -1))") }
                    return FileManager.default.fileExists(atPath: path) ? true : nil
                }
            }
        } catch {
            child.terminate()
            throw error
        }
        adopt("kwin_wayland", child)
        // KWin serves the screen locker on the bus once it is up.
        try waitForName("org.freedesktop.ScreenSaver", owned: true, timeout: 60, logs: [kwinLog])
    }

    /// Locks the session as Plasma does when a person locks it (`org.freedesktop.ScreenSaver.Lock`)
    /// and waits until KWin says it is locked and its greeter runs: KWin's lock screen is drawn
    /// over every window from then on.
    public func lockKWin() throws {
        _ = try Self.lockScreenGreeter()
        let locked = try gdbusCall(destination: "org.freedesktop.ScreenSaver", path: "/ScreenSaver",
                                   method: "org.freedesktop.ScreenSaver.Lock", [])
        guard locked.status == 0 else { throw Subprocess.Failure("org.freedesktop.ScreenSaver.Lock failed: \(locked.stderr)") }
        _ = try withKWinLog {
            try eventually(timeout: 60, "KWin to say the session is locked") {
                try gdbusCall(destination: "org.freedesktop.ScreenSaver", path: "/ScreenSaver",
                              method: "org.freedesktop.ScreenSaver.GetActive", []).stdout.contains("true") ? true : nil
            }
        }
        guard let kwin = peers.first(where: { $0.name == "kwin_wayland" })?.child.pid else { throw Subprocess.Failure("KWin is not running") }
        let greeter = try withKWinLog {
            try eventually(timeout: 60, "KWin's lock-screen greeter to run") {
                Self.children(of: kwin).first { (try? String(contentsOfFile: "/proc/\($0)/comm", encoding: .utf8))?.hasPrefix("kscreenlocker_g") == true }
            }
        }
        // Stopped before KWin, by its PID.
        adopt("kscreenlocker_greet", Subprocess.Child(pid: greeter))
    }

    /// `body`, and when it fails, KWin's log's last lines in the failure.
    public func withKWinLog<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let failure as Subprocess.Failure {
            throw Subprocess.Failure(failure.description + Self.lastLines(ofLog: kwinLog, count: 30))
        }
    }

    /// The processes whose parent is `pid`.
    static func children(of pid: pid_t) -> [pid_t] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry -> pid_t? in
            guard let child = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            // After the name: the state, then the parent's PID.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == pid ? child : nil
        }
    }

    /// The whole X screen (KWin's one output), as a PPM.
    func wholeXScreen() throws -> PPM {
        let xdotool = try Subprocess.find("xdotool", package: "xdotool")
        let size = try Subprocess.run(xdotool, ["getdisplaygeometry"], environment: environment).stdout
            .split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard size.count == 2 else { throw Subprocess.Failure("xdotool getdisplaygeometry said \(size)") }
        return try xScreenshot(of: Window(id: "root", x: 0, y: 0, width: size[0], height: size[1]))
    }

    /// Where the alert window's Stop button is on KWin's screen now, `nil` while none is drawn:
    /// the window's one red thing (GTK's destructive action: #e01b24 in libadwaita's light
    /// style, #c01c28 in its dark one), a button's area of it. Plasma's wallpapers and lock
    /// screen have no such red (their reddest: 179, 81, 14 in Plasma 6's).
    public func stopButtonOnKWin() throws -> Window? {
        let stopRed = { (colour: [UInt8]) in colour[0] >= 180 && colour[1] < 50 && colour[2] < 60 }
        return try wholeXScreen().bounds(minimum: 2_000, matching: stopRed)
            .map { Window(id: "Stop", x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
    }
}
