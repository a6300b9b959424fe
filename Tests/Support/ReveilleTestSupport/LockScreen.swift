import Foundation

/// KDE Plasma's lock screen, the real one: `kscreenlocker_greet --testing` draws it in a window
/// on the session's Xvfb, with the session's bus (no ksmserver, no password check), as a locked
/// Plasma session shows it. Its media controls are read through AT-SPI (Qt's accessibility
/// bridge, forced on), which says where each is on the screen, and clicked with xdotool.
extension TestSession {
    /// Where Debian installs the greeter: Plasma 5.27 (Debian 12, package libkscreenlocker5,
    /// which kscreenlocker and plasma-workspace pull in) and Plasma 6 (Debian 13, package
    /// kscreenlocker) both under the multiarch libexec folder; other layouts under /usr/libexec.
    /// The one list of places looked in.
    public static var lockScreenGreeterCandidates: [String] {
        let multiarch = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib")) ?? [])
            .filter { $0.hasSuffix("-linux-gnu") }.sorted().map { "/usr/lib/\($0)/libexec/kscreenlocker_greet" }
        return ["/usr/lib/x86_64-linux-gnu/libexec/kscreenlocker_greet"] + multiarch
            + ["/usr/libexec/kscreenlocker_greet", "/usr/lib/libexec/kscreenlocker_greet"]
    }

    /// The greeter's program, or a failure that says what to install.
    public static func lockScreenGreeter() throws -> String {
        guard let found = lockScreenGreeterCandidates.first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw Subprocess.Failure("KDE's lock-screen greeter (kscreenlocker_greet) is not installed in any of \(lockScreenGreeterCandidates); "
                                     + "the lock-screen tests need it (Debian package kscreenlocker, which plasma-workspace pulls in; `make test` installs it)")
        }
        return found
    }

    /// Whether the greeter is Plasma 5's (Debian 12: its package is libkscreenlocker5).
    public static func lockScreenGreeterIsPlasma5() throws -> Bool {
        let owner = try Subprocess.run("/usr/bin/dpkg-query", ["-S", try lockScreenGreeter()], environment: ProcessInfo.processInfo.environment)
        return owner.stdout.hasPrefix("libkscreenlocker5:")
    }

    /// Starts Xvfb (if not running), the accessibility bus and the lock-screen greeter in its
    /// testing mode, and waits until the greeter's Unlock button is on its accessibility tree.
    /// The tree it returns reads the lock screen.
    public func startLockScreenGreeter() throws -> AccessibleTree {
        let greeter = try Self.lockScreenGreeter()
        try startDisplay()
        let qt = ["QT_QPA_PLATFORM": "xcb", "QT_QUICK_BACKEND": "software", "LIBGL_ALWAYS_SOFTWARE": "1", "XDG_SESSION_TYPE": "x11",
                  // Qt serves the accessibility bus only when a screen reader asked for it, or these say so.
                  "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1", "QT_ACCESSIBILITY": "1",
                  // What Qt's bridge says of the accessibility bus (in the greeter's log).
                  "QT_LOGGING_RULES": "qt.accessibility.atspi=true"]
        try AccessibleTree.prepare(self)
        let tree = AccessibleTree(self, application: "kscreenlocker_greet")
        // Qt's bridge looks for the accessibility bus once, at start: the address the bus's
        // launcher wrote on the X root window (AT_SPI_BUS), else its answer on the session bus.
        // In some sessions here, under the whole suite's load, it found none ("Error in contacting
        // registry: … Not connected to D-Bus server" in its log) and never came on the tree. Such
        // a greeter is started again, after the accessibility bus is made sure of: its launcher
        // asked (D-Bus starts it again if it ended) and the root window's address made its answer.
        var seen: [String] = []
        for attempt in 1...4 {
            let bus = try ensureAccessibilityBus()
            let log = directory + "/greeter-\(attempt).log"
            adopt("kscreenlocker_greet", try Subprocess.start(greeter, ["--testing"], environment: environment.merging(qt) { $1 }, stderr: log))
            let started = Date()
            let onTree = try eventually(timeout: 60, "the lock screen's Unlock button on its accessibility tree (\(log))") { () -> Bool? in
                if try tree.nodes().contains(where: { $0.role == "push button" && $0.name == "Unlock" }) { return true }
                return ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("Error in contacting registry") ? false : nil
            }
            if onTree { return tree }
            stop(named: "kscreenlocker_greet")
            let said = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
                .filter { $0.contains("registry") || $0.contains("atspi") || $0.contains("D-Bus") }.suffix(4)
            seen.append("start \(attempt) (bus \(bus)), gave up after \(String(format: "%.1f", Date().timeIntervalSince(started))) s: " + said.joined(separator: " | "))
        }
        throw Subprocess.Failure("the lock screen never came on its accessibility tree in four starts:\n" + seen.joined(separator: "\n"))
    }

    /// Makes sure the session's accessibility bus runs and that the X root window names it, as
    /// Qt reads it there first: asks the launcher for the bus's address (D-Bus activation starts a
    /// launcher that ended) and writes that address on the root window when it says another.
    /// Returns the address.
    func ensureAccessibilityBus() throws -> String {
        let asked = try gdbusCall(destination: "org.a11y.Bus", path: "/org/a11y/bus", method: "org.a11y.Bus.GetAddress", [])
        guard asked.status == 0, let quote = asked.stdout.firstIndex(of: "'"),
              let end = asked.stdout[asked.stdout.index(after: quote)...].firstIndex(of: "'") else {
            throw Subprocess.Failure("the accessibility bus's launcher did not give its address: \(asked.stderr)")
        }
        let address = String(asked.stdout[asked.stdout.index(after: quote)..<end])
        let xprop = try Subprocess.find("xprop", package: "x11-utils")
        let named = try Subprocess.run(xprop, ["-root", "AT_SPI_BUS"], environment: environment)
        if !named.stdout.contains("\"\(address)\"") {
            let set = try Subprocess.run(xprop, ["-root", "-f", "AT_SPI_BUS", "8s", "-set", "AT_SPI_BUS", address], environment: environment)
            guard set.status == 0 else { throw Subprocess.Failure("xprop could not name the accessibility bus on the root window: \(set.stderr)") }
        }
        return address
    }

    /// Moves the pointer a little (at the screen's top left, far from every control), as a
    /// hand on the mouse does: the lock screen leaves its clock for the password field and the
    /// media controls, and stays so for ten seconds after the last move.
    public func wakeLockScreen() throws {
        let xdotool = try Subprocess.find("xdotool", package: "xdotool")
        for (x, y) in [(20, 20), (24, 22)] {
            let moved = try Subprocess.run(xdotool, ["mousemove", "--sync", "\(x)", "\(y)"], environment: environment)
            guard moved.status == 0 else { throw Subprocess.Failure("xdotool could not move the pointer: \(moved.stderr)") }
        }
    }

    /// The lock screen's media controls as its accessibility tree places them.
    public struct LockScreenMediaControls {
        /// The first line (the track's title) and the second (its artist), as the labels say them
        /// (the whole text: what is drawn may be cut short with an ellipsis, which `inkEnd` tells).
        public var title: AccessibleTree.Node, artist: AccessibleTree.Node
        /// The buttons right of the lines, left to right: Previous, Play/Pause, Next.
        public var buttons: [AccessibleTree.Node]
        public var playPause: AccessibleTree.Node { buttons[buttons.count - 2] }
        public var next: AccessibleTree.Node { buttons[buttons.count - 1] }
    }

    /// The media controls the lock screen shows now (the pointer moved first), `nil` while it
    /// shows none. Found by where they are, not by their words: the row under the password field
    /// with two lines of text and the buttons right of them.
    public func lockScreenMediaControls(_ tree: AccessibleTree) throws -> LockScreenMediaControls? {
        try wakeLockScreen()
        let showing = try tree.nodes(withExtents: true).filter { $0.showing && $0.area != nil }
        guard let password = showing.first(where: { $0.role == "password text" })?.area else { return nil }
        let below = showing.filter { $0.area!.y >= password.y + password.height }
        let buttons = below.filter { $0.role == "push button" }.sorted { $0.area!.x < $1.area!.x }
        guard let play = buttons.max(by: { $0.area!.height < $1.area!.height })?.area else { return nil }
        // The row: what lies across the biggest button's height (Play/Pause fills the row).
        let row = below.filter { $0.area!.y < play.y + play.height && $0.area!.y + $0.area!.height > play.y }
        let lines = row.filter { $0.role == "label" && !$0.name.isEmpty && $0.area!.x < play.x }.sorted { $0.area!.y < $1.area!.y }
        let rowButtons = row.filter { $0.role == "push button" }.sorted { $0.area!.x < $1.area!.x }
        guard lines.count == 2, rowButtons.count >= 2 else { return nil }
        return LockScreenMediaControls(title: lines[0], artist: lines[1], buttons: rowButtons)
    }

    /// Clicks the middle of `node` (a button the tree placed) on the session's X display.
    public func click(_ node: AccessibleTree.Node) throws {
        guard let area = node.area else { throw Subprocess.Failure("\(node) is not on the screen") }
        try click(x: area.x + area.width / 2, y: area.y + area.height / 2)
    }

    /// The whole X screen now, for `inkEnd` to compare.
    public func screenPicture() throws -> ScreenPicture {
        let xdotool = try Subprocess.find("xdotool", package: "xdotool")
        let size = try Subprocess.run(xdotool, ["getdisplaygeometry"], environment: environment).stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard size.count == 2 else { throw Subprocess.Failure("xdotool getdisplaygeometry said \(size)") }
        return ScreenPicture(image: try xScreenshot(of: Window(id: "root", x: 0, y: 0, width: size[0], height: size[1])))
    }

    /// The first picture of the screen whose `area` is drawn and settled: the same in two
    /// pictures in a row (Qt paints the lock screen as it fades in).
    public func settledPicture(of area: Window, _ what: String) throws -> ScreenPicture {
        var last: ScreenPicture?
        return try eventually("\(what) to settle on the screen") {
            try wakeLockScreen()
            let now = try screenPicture()
            defer { last = now }
            return last.map { $0.same(as: now, in: area) } == true ? now : nil
        }
    }

    /// Saves the X screen as a PNG, through GDK (python3-gi), for a person to look at.
    public func saveScreenshot(to path: String) throws {
        let script = """
            import sys, gi; gi.require_version('Gdk', '3.0'); from gi.repository import Gdk
            root = Gdk.get_default_root_window()
            Gdk.pixbuf_get_from_window(root, 0, 0, root.get_width(), root.get_height()).savev(sys.argv[1], 'png', [], [])
            """
        let saved = try Subprocess.run("/usr/bin/python3", ["-c", script, path], environment: environment)
        guard saved.status == 0 else { throw Subprocess.Failure("the screenshot \(path) failed: \(saved.stderr)") }
    }
}

/// A picture of the whole X screen.
public struct ScreenPicture {
    let image: PPM

    /// Whether `area` holds the same pixels in both pictures.
    func same(as other: ScreenPicture, in area: TestSession.Window) -> Bool {
        for y in area.y..<area.y + area.height {
            for x in area.x..<area.x + area.width where image.pixel(x: x, y: y) != other.image.pixel(x: x, y: y) { return false }
        }
        return true
    }

    /// The last mark drawn in `area` now that `before` did not show (a label's text on the
    /// wallpaper): the columns of the screen it spans and how tall its ink is; `nil` when
    /// nothing was drawn there. A line Qt cut short ends in an ellipsis, whose last dot is a
    /// mark a few pixels tall; a letter or a parenthesis is several times that.
    public func lastMark(in area: TestSession.Window, before: ScreenPicture) -> (columns: ClosedRange<Int>, height: Int)? {
        // The rows inked in each column.
        let inked: [(x: Int, rows: [Int])] = (area.x..<area.x + area.width).map { x in
            (x, (area.y..<area.y + area.height).filter { y in
                zip(image.pixel(x: x, y: y), before.image.pixel(x: x, y: y)).map { abs(Int($0) - Int($1)) }.reduce(0, +) > 60
            })
        }
        guard let last = inked.lastIndex(where: { !$0.rows.isEmpty }) else { return nil }
        let first = (inked[..<last].lastIndex { $0.rows.isEmpty } ?? -1) + 1
        let rows = inked[first...last].flatMap(\.rows)
        return (inked[first].x...inked[last].x, rows.max()! - rows.min()! + 1)
    }
}
