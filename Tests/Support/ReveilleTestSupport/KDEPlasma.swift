import Foundation

/// KDE Plasma 5.27's notification server as a Plasma desktop runs it: plasmashell (which owns
/// org.freedesktop.Notifications itself) and kwin_x11 on the session's Xvfb, with Qt drawing
/// in software. Create the session with `notifications: .none`, then `startKDEPlasma()`.
extension TestSession {
    /// Starts kwin_x11 and plasmashell and waits until plasmashell serves notifications.
    public func startKDEPlasma() throws {
        let kwin = try Subprocess.find("kwin_x11", package: "kwin-x11")
        let plasmashell = try Subprocess.find("plasmashell", package: "plasma-workspace")
        // Without its desktop shell plasmashell starts an "invalid corona" and never serves notifications.
        let shell = "/usr/share/plasma/shells/org.kde.plasma.desktop/metadata.json"
        guard FileManager.default.fileExists(atPath: shell) else {
            throw Subprocess.Failure("KDE Plasma's desktop shell (\(shell)) is missing; plasmashell needs it (Debian package plasma-desktop-data; `make test` installs it)")
        }
        try startDisplay()
        let qt = ["QT_QPA_PLATFORM": "xcb", "QT_QUICK_BACKEND": "software", "LIBGL_ALWAYS_SOFTWARE": "1", "XDG_SESSION_TYPE": "x11"]
        // plasmashell gives up loading its shell without KDE's activity manager, which it starts
        // by activation; a Qt program the bus starts needs the display (it waits for one for ever).
        try makeActivatable("org.kde.ActivityManager")
        let activation = qt.merging(["DISPLAY": display ?? ""]) { $1 }.map { "'\($0.key)': '\($0.value)'" }.joined(separator: ", ")
        try busDaemon("UpdateActivationEnvironment", ["{\(activation)}"])
        try busDaemon("StartServiceByName", ["org.kde.ActivityManager", "0"])
        let plasmaEnvironment = environment.merging(qt) { $1 }
        adopt("kwin_x11", try Subprocess.start(kwin, ["--replace"], environment: plasmaEnvironment, stderr: directory + "/kwin.log"))
        adopt("plasmashell", try Subprocess.start(plasmashell, ["--no-respawn"], environment: plasmaEnvironment,
                                                  stderr: directory + "/plasmashell.log"))
        // About 10 s on an idle machine, several times that on a loaded one.
        try waitForName("org.freedesktop.Notifications", owned: true, timeout: 90,
                        logs: [directory + "/plasmashell.log", directory + "/kwin.log"])
    }

    /// Calls `method` of the session bus itself (org.freedesktop.DBus), failing when it fails.
    private func busDaemon(_ method: String, _ arguments: [String]) throws {
        let result = try gdbusCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                   method: "org.freedesktop.DBus." + method, arguments)
        guard result.status == 0 else { throw Subprocess.Failure("\(method) \(arguments) failed: \(result.stderr)") }
    }

    /// Turns Plasma's Do Not Disturb on as a client does (a presentation, a game): it calls
    /// `org.freedesktop.Notifications.Inhibit` and keeps the inhibition while it stays on the
    /// bus, here until the session ends. Waits until Plasma says it is inhibited.
    public func inhibitPlasmaNotifications() throws {
        let script = """
            import dbus
            from dbus.mainloop.glib import DBusGMainLoop
            from gi.repository import GLib
            DBusGMainLoop(set_as_default=True)
            server = dbus.SessionBus().get_object('org.freedesktop.Notifications', '/org/freedesktop/Notifications')
            dbus.Interface(server, 'org.freedesktop.Notifications').Inhibit('reveille-tests', 'Do Not Disturb', dbus.Dictionary({}, signature='sv'))
            GLib.MainLoop().run()
            """
        guard TestSession.python3Imports("dbus, gi") else {
            throw Subprocess.Failure("/usr/bin/python3 with dbus and gi is missing (Debian packages python3-dbus, python3-gi)")
        }
        adopt("inhibiting client", try Subprocess.start("/usr/bin/python3", ["-c", script], environment: environment,
                                                        stderr: directory + "/inhibit.log"))
        _ = try eventually("Plasma to be inhibited (Do Not Disturb)") {
            let inhibited = try gdbusCall(destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                                          method: "org.freedesktop.DBus.Properties.Get", ["org.freedesktop.Notifications", "Inhibited"])
            return inhibited.stdout.contains("true") ? true : nil
        }
    }

    /// Plasma's notification popups on screen, top to bottom (its desktop and panel are
    /// plasmashell's windows too; a popup is a window of the notification type).
    public func plasmaPopups() throws -> [Window] {
        let xprop = try Subprocess.find("xprop", package: "x11-utils")
        return try windows(classname: "plasmashell").filter {
            try Subprocess.run(xprop, ["-id", $0.id, "_NET_WM_WINDOW_TYPE"], environment: environment).stdout
                .contains("_NET_WM_WINDOW_TYPE_NOTIFICATION")
        }
    }

    /// The buttons of a Plasma popup, left to right, found in its picture: Breeze draws a
    /// button as a near-white box on the popup's grey, so a row through a button's padding
    /// (above or below its label) crosses one long white run per button. `[]` until drawn.
    public func plasmaButtons(on popup: Window) throws -> [Window] {
        let image = try xScreenshot(of: popup)
        // The rows, in the popup's lower half, that cross the most white runs: the buttons' padding.
        let rows = (image.height / 2..<image.height).map { y in (y, Self.whiteRuns(in: (0..<image.width).map { image.pixel(x: $0, y: y) })) }
        guard let most = rows.map(\.1.count).max(), most > 0 else { return [] }
        let padding = rows.filter { $0.1.count == most }
        let top = padding.map(\.0).min()!, bottom = padding.map(\.0).max()!
        return padding[0].1.map { Window(id: popup.id, x: popup.x + $0.lowerBound, y: popup.y + top, width: $0.count, height: bottom - top + 1) }
    }

    /// The stretches of at least 16 near-white pixels in a row of colours (red, green, blue).
    static func whiteRuns(in row: [[UInt8]]) -> [Range<Int>] {
        var runs: [Range<Int>] = [], start: Int?
        // One dark pixel past the end closes a run that reaches it.
        for (x, colour) in (row + [[0, 0, 0]]).enumerated() {
            if colour.allSatisfy({ $0 >= 240 }) { start = start ?? x; continue }
            if let first = start, x - first >= 16 { runs.append(first..<x) }
            start = nil
        }
        return runs
    }
}
