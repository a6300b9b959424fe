import Foundation
import Glibc

/// The real notification servers beyond dunst, xfce4-notifyd and GNOME Shell, as Debian 12
/// installs them: MATE's, LXQt's and notification-daemon under the session's Xvfb, mako and
/// swaync on a headless sway; each started by D-Bus activation, as a desktop starts them.
extension TestSession {
    /// The command the bus runs to start `peer`, or `nil` when `peer` is not one of these.
    func realServerCommand(_ peer: NotificationPeer) throws -> String? {
        switch peer {
        case .mate: try Self.installed(DesktopRelease.mateNotificationDaemon, package: "mate-notification-daemon")
        case .lxqt: try Self.installed("/usr/bin/lxqt-notificationd", package: "lxqt-notificationd")
        case .notificationDaemon: try Self.installed("/usr/lib/notification-daemon/notification-daemon", package: "notification-daemon")
        case .mako: try Subprocess.find("mako", package: "mako-notifier")
        case .swaync: try Subprocess.find("swaync", package: "sway-notification-center")
        default: nil
        }
    }

    private static func installed(_ path: String, package: String) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw Subprocess.Failure("\(path) is missing; the end-to-end tests need it (Debian package \(package); `make test` installs it)")
        }
        return path
    }

    /// sway with no screen (wlroots' headless backend, pixman), alone in a user namespace (it
    /// refuses to run as root); its Wayland socket in the session's runtime folder, named in
    /// the environment the bus hands to what it activates (mako exits at once without it).
    func startSway() throws {
        let unshare = try Subprocess.find("unshare", package: "util-linux")
        let sway = try Subprocess.find("sway", package: "sway")
        _ = try Subprocess.find("grim", package: "grim")
        try "".write(toFile: directory + "/sway.conf", atomically: true, encoding: .utf8)
        var environment = self.environment
        environment["WLR_BACKENDS"] = "headless"
        environment["WLR_LIBINPUT_NO_DEVICES"] = "1"
        environment["WLR_RENDERER"] = "pixman"
        let child = try Subprocess.start(unshare, ["--user", "--map-user=1000", "--map-group=1000", sway, "-c", directory + "/sway.conf"],
                                         environment: environment, stderr: directory + "/sway.log")
        let runtime = directory + "/runtime"
        let socket = try eventually("sway's Wayland socket in \(runtime)") {
            try FileManager.default.contentsOfDirectory(atPath: runtime).first { $0.hasPrefix("wayland-") && !$0.hasSuffix(".lock") }
        }
        adopt("sway", child, environment: ["WAYLAND_DISPLAY": socket])
    }

    /// Copies the system's D-Bus service file `name` (dconf, xfconf) to where the session's
    /// bus activates services from, so a server's settings can be changed as a person would.
    public func makeActivatable(_ name: String) throws {
        let file = "/usr/share/dbus-1/services/\(name).service"
        guard FileManager.default.fileExists(atPath: file) else { throw Subprocess.Failure("\(file) is missing") }
        try? FileManager.default.removeItem(atPath: serviceDirectory + "/\(name).service")
        try FileManager.default.copyItem(atPath: file, toPath: serviceDirectory + "/\(name).service")
        // dconf-service outlives the bus (and a SIGTERM): stopped with the session.
        activatedServices.append(name)
    }

    /// Writes `text` to `path` in the session's `XDG_CONFIG_HOME` (a server's own settings file).
    public func writeConfig(_ path: String, _ text: String) throws {
        let file = URL(fileURLWithPath: directory + "/config/" + path)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: file, atomically: true, encoding: .utf8)
    }

    /// Sets a GSettings key through dconf, as `gsettings set` in a desktop does.
    public func gsettings(set schema: String, _ key: String, _ value: String) throws {
        let gsettings = try Subprocess.find("gsettings", package: "libglib2.0-bin")
        var environment = self.environment
        environment["GSETTINGS_BACKEND"] = "dconf"
        let result = try Subprocess.run(gsettings, ["set", schema, key, value], environment: environment)
        guard result.status == 0 else { throw Subprocess.Failure("gsettings set \(schema) \(key) \(value) failed: \(result.stderr)") }
    }

    /// The visible top-level windows of X class `classname` on the session's display, top to bottom.
    public func windows(classname: String) throws -> [Window] {
        let xdotool = try Subprocess.find("xdotool", package: "xdotool")
        let ids = try Subprocess.run(xdotool, ["search", "--onlyvisible", "--classname", classname], environment: environment)
        return try ids.stdout.split(separator: "\n").compactMap { id -> Window? in
            let shell = try Subprocess.run(xdotool, ["getwindowgeometry", "--shell", String(id)], environment: environment).stdout
            var values: [String: Int] = [:]
            for line in shell.split(separator: "\n") {
                let parts = line.split(separator: "=")
                if parts.count == 2, let value = Int(parts[1]) { values[String(parts[0])] = value }
            }
            guard let x = values["X"], let y = values["Y"], let width = values["WIDTH"], let height = values["HEIGHT"],
                  width > 20 else { return nil } // a server's hidden helper windows
            return Window(id: String(id), x: x, y: y, width: width, height: height)
        }.sorted { $0.y < $1.y }
    }

    /// What `area` of the session's X screen shows now, through GDK (python3-gi).
    /// The colour (red, green, blue) of the X screen's pixel at `x`, `y`.
    public func pixel(x: Int, y: Int) throws -> [UInt8] {
        try xScreenshot(of: Window(id: "root", x: x, y: y, width: 1, height: 1)).pixel(x: 0, y: 0)
    }

    /// Saves what `area` of the session's X screen shows now as a PNG at `path` (to look at).
    public func savePicture(of area: Window, to path: String) throws {
        let script = """
            import sys, gi; gi.require_version('Gdk', '3.0'); from gi.repository import Gdk
            x, y, width, height = map(int, sys.argv[1:5])
            Gdk.pixbuf_get_from_window(Gdk.get_default_root_window(), x, y, width, height).savev(sys.argv[5], 'png', [], [])
            """
        let shot = try Subprocess.run("/usr/bin/python3", ["-c", script, "\(area.x)", "\(area.y)", "\(area.width)", "\(area.height)", path],
                                      environment: environment)
        guard shot.status == 0 else { throw Subprocess.Failure("the X screenshot failed: \(shot.stderr)") }
    }

    public func xScreenshot(of area: Window) throws -> PPM {
        let script = """
            import sys, gi; gi.require_version('Gdk', '3.0'); from gi.repository import Gdk
            x, y, width, height = map(int, sys.argv[1:5])
            image = Gdk.pixbuf_get_from_window(Gdk.get_default_root_window(), x, y, width, height)
            pixels, stride, channels = image.get_pixels(), image.get_rowstride(), image.get_n_channels()
            rows = (pixels[row * stride:row * stride + width * channels] for row in range(height))
            with open(sys.argv[5], 'wb') as file:
                file.write(b'P6 %d %d 255\\n' % (width, height) + b''.join(
                    bytes(row[i] for i in range(len(row)) if i % channels < 3) for row in rows))
            """
        let file = directory + "/x-screen.ppm"
        let shot = try Subprocess.run("/usr/bin/python3", ["-c", script, "\(area.x)", "\(area.y)", "\(area.width)", "\(area.height)", file],
                                      environment: environment)
        guard shot.status == 0 else { throw Subprocess.Failure("the X screenshot failed: \(shot.stderr)") }
        return try PPM(Data(contentsOf: URL(fileURLWithPath: file)))
    }

    /// Clicks at `x`, `y` on the session's X display.
    public func click(x: Int, y: Int) throws {
        let xdotool = try Subprocess.find("xdotool", package: "xdotool")
        let click = try Subprocess.run(xdotool, ["mousemove", "\(x)", "\(y)", "click", "1"], environment: environment)
        guard click.status == 0 else { throw Subprocess.Failure("xdotool could not click: \(click.stderr)") }
    }

    /// How many pixels of the sway screen's top-right quarter (where mako and swaync pop up)
    /// differ from the empty screen's colour, taken with grim.
    public func popupPixels() throws -> Int {
        let image = try swayScreenshot()
        return image.count(differingFrom: image.pixel(x: 0, y: image.height - 1), rows: 0..<image.height / 2,
                           columns: image.width / 2..<image.width)
    }

    /// The sway screen, or the part of it `area` covers, taken with grim.
    func swayScreenshot(of area: Window? = nil) throws -> PPM {
        let grim = try Subprocess.find("grim", package: "grim")
        let file = directory + "/screen.ppm"
        let region = area.map { ["-g", "\($0.x),\($0.y) \($0.width)x\($0.height)"] } ?? []
        let result = try Subprocess.run(grim, ["-t", "ppm"] + region + [file], environment: environment)
        guard result.status == 0 else { throw Subprocess.Failure("grim failed: \(result.stderr)") }
        return try PPM(Data(contentsOf: URL(fileURLWithPath: file)))
    }

    /// The window sway shows for the Wayland app id `appID`, where its tree (`swaymsg -t
    /// get_tree`) places it on the screen; `nil` while sway has none.
    public func swayWindow(appID: String) throws -> Window? {
        let swaymsg = try Subprocess.find("swaymsg", package: "sway")
        let runtime = directory + "/runtime"
        // sway names its IPC socket after its user and PID: the one in the session's runtime folder is this session's.
        guard let socket = try FileManager.default.contentsOfDirectory(atPath: runtime).first(where: { $0.hasPrefix("sway-ipc.") }) else {
            throw Subprocess.Failure("sway's IPC socket is missing from \(runtime)")
        }
        let tree = try Subprocess.run(swaymsg, ["-s", runtime + "/" + socket, "-t", "get_tree", "-r"], environment: environment)
        guard tree.status == 0 else { throw Subprocess.Failure("swaymsg -t get_tree failed: \(tree.stderr)") }
        func find(_ node: [String: Any]) -> Window? {
            if node["app_id"] as? String == appID, let rect = node["rect"] as? [String: Int],
               let x = rect["x"], let y = rect["y"], let width = rect["width"], let height = rect["height"], width > 0, height > 0 {
                return Window(id: "\(node["id"] ?? "")", x: x, y: y, width: width, height: height)
            }
            let children = (node["nodes"] as? [[String: Any]] ?? []) + (node["floating_nodes"] as? [[String: Any]] ?? [])
            return children.lazy.compactMap(find).first
        }
        let root = try JSONSerialization.jsonObject(with: Data(tree.stdout.utf8)) as? [String: Any]
        return root.flatMap(find)
    }

    /// The smallest rectangle on the sway screen holding every pixel of `area` whose colour
    /// (red, green, blue) `matches`, at least `minimum` of them; `nil` when fewer match.
    func swayPixels(in area: Window, minimum: Int = 100, matching matches: ([UInt8]) -> Bool) throws -> Window? {
        try swayScreenshot(of: area).bounds(minimum: minimum, matching: matches).map { area.offset(by: $0) }
    }

    /// The same on the session's X screen.
    func xPixels(in area: Window, minimum: Int = 100, matching matches: ([UInt8]) -> Bool) throws -> Window? {
        try xScreenshot(of: area).bounds(minimum: minimum, matching: matches).map { area.offset(by: $0) }
    }

    /// Clicks at `x`, `y` on the sway screen, as a person with a mouse would: through wayvnc's
    /// virtual pointer (started on first use), spoken to over its Unix socket.
    public func clickOnSway(x: Int, y: Int) throws {
        let socket = directory + "/runtime/vnc.sock"
        if !FileManager.default.fileExists(atPath: socket) {
            let wayvnc = try Subprocess.find("wayvnc", package: "wayvnc")
            adopt("wayvnc", try Subprocess.start(wayvnc, ["-u", socket], environment: environment, stderr: directory + "/wayvnc.log"))
        }
        // The socket's file exists once wayvnc bound it, a moment before it listens on it.
        let pointer = try eventually("wayvnc to accept a connection on its socket") { try? VNCPointer(socket: socket) }
        try pointer.click(x: x, y: y)
    }

    /// The screens a window can be on: the session's X display (Xvfb), or its headless sway.
    public enum Screen: Sendable { case x, sway }

    /// Clicks the Stop button of the alert window `window` as a person with a mouse does, until
    /// `done` holds: a click before the window takes input does nothing, so it is clicked again.
    /// Stop is the window's one red thing (GTK's destructive action), wherever the layout puts it.
    public func clickStop(in window: Window, on screen: Screen, until what: String, _ done: () throws -> Bool) throws {
        let red = { (colour: [UInt8]) in colour[0] > 150 && colour[1] < 90 && colour[2] < 90 }
        _ = try eventually(timeout: 20, what) { () -> Bool? in
            guard let stop = try screen == .x ? xPixels(in: window, matching: red) : swayPixels(in: window, matching: red) else { return nil }
            let (x, y) = (stop.x + stop.width / 2, stop.y + stop.height / 2)
            try screen == .x ? click(x: x, y: y) : clickOnSway(x: x, y: y)
            return (try? eventually(timeout: 2, what) { try done() ? true : nil }) ?? nil
        }
    }

    /// Whether the session's sound server plays a stream now (the agent's, while an alarm rings).
    public func playsSound() throws -> Bool {
        // Uncorked: the agent opens an alarm's stream corked 1.5 s before it is due, and such
        // a stream is silent; a test asking whether the alarm sounds must not count it.
        struct SinkInput: Decodable { var corked: Bool }
        let listing = try pactl("--format=json", "list", "sink-inputs").stdout
        return try JSONDecoder().decode([SinkInput].self, from: Data(listing.utf8)).contains { !$0.corked }
    }

    /// Whether the session's sound server has any stream now, playing or corked: an alarm's
    /// sound has ended only when it has none.
    public func hasSoundStream() throws -> Bool {
        try !pactl("list", "short", "sink-inputs").stdout.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }

    /// Records the notification server's signals from now on (`gdbus monitor`); the function
    /// returned reads what was recorded.
    public func monitorNotificationSignals() throws -> () -> String {
        let file = directory + "/signals-\(UUID().uuidString.prefix(8)).txt"
        let gdbus = try Subprocess.find("gdbus", package: "libglib2.0-bin")
        adopt("gdbus monitor", try Subprocess.start(gdbus, ["monitor", "--session", "--dest", "org.freedesktop.Notifications"],
                                                    environment: environment, stdout: file))
        _ = try eventually("gdbus monitor to start") { FileManager.default.fileExists(atPath: file) ? true : nil }
        return { (try? String(contentsOfFile: file, encoding: .utf8)) ?? "" }
    }

    /// Runs `swaync-client` against the session's swaync.
    @discardableResult
    public func swayncClient(_ arguments: String...) throws -> Subprocess.Result {
        try Subprocess.run(try Subprocess.find("swaync-client", package: "sway-notification-center"), arguments, environment: environment)
    }

    /// Runs `makoctl` against the session's mako.
    @discardableResult
    public func makoctl(_ arguments: String...) throws -> Subprocess.Result {
        try Subprocess.run(try Subprocess.find("makoctl", package: "mako-notifier"), arguments, environment: environment)
    }

    /// Starts `reveille timer LENGTH --title TITLE OPTIONS` and waits until it rings.
    public func ringTimer(_ length: String, _ title: String, _ options: String...) throws -> AlarmJSON {
        let timer = try Subprocess.run(binaries + "/reveille", ["timer", length, "--title", title] + options + ["--json"], environment: environment)
        guard timer.status == 0 else { throw Subprocess.Failure("reveille timer failed: \(timer.stderr)") }
        let alarm = try JSONDecoder().decode(AlarmJSON.self, from: Data(timer.stdout.utf8))
        _ = try eventually(timeout: 10, "the timer \(title) to ring") { try agentState(of: alarm.id) == "alerting" ? true : nil }
        return alarm
    }

    /// The agent's log lines that contain `text`.
    public func agentLogLines(containing text: String) -> [String] {
        ((try? String(contentsOfFile: agentLog, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init).filter { $0.contains(text) }
    }

    /// The reach the agent logged last (`answerable`, `seenOnly`, `unseen`).
    public var loggedReach: String? {
        agentLogLines(containing: "notifications reach the user: ").last?.components(separatedBy: "notifications reach the user: ").last
    }
}

/// A binary PPM (P6, 8 bits per channel), as grim writes it.
public struct PPM {
    public let width: Int, height: Int
    private let pixels: [UInt8]

    init(_ data: Data) throws {
        let bytes = [UInt8](data)
        var fields: [String] = [], index = 0
        while fields.count < 4, index < bytes.count {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0a { index += 1 }
            var field = ""
            while index < bytes.count, bytes[index] != 0x20, bytes[index] != 0x0a { field.append(Character(UnicodeScalar(bytes[index]))); index += 1 }
            fields.append(field)
        }
        guard fields.count == 4, fields[0] == "P6", let width = Int(fields[1]), let height = Int(fields[2]), fields[3] == "255",
              bytes.count >= index + 1 + width * height * 3 else { throw Subprocess.Failure("not an 8-bit P6 image: \(fields)") }
        (self.width, self.height, pixels) = (width, height, Array(bytes[(index + 1)...]))
    }

    public func pixel(x: Int, y: Int) -> [UInt8] {
        let start = (y * width + x) * 3
        return Array(pixels[start..<start + 3])
    }

    /// How many pixels in `rows` × `columns` are not of `colour`. Compared in place: a quarter
    /// screen of `pixel` arrays took a tenth of a second of CPU in a debug build, at every poll.
    func count(differingFrom colour: [UInt8], rows: Range<Int>, columns: Range<Int>) -> Int {
        let (red, green, blue) = (colour[0], colour[1], colour[2])
        return pixels.withUnsafeBufferPointer { bytes in
            var count = 0
            for y in rows {
                for start in stride(from: (y * width + columns.lowerBound) * 3, to: (y * width + columns.upperBound) * 3, by: 3)
                where bytes[start] != red || bytes[start + 1] != green || bytes[start + 2] != blue {
                    count += 1
                }
            }
            return count
        }
    }

    /// The smallest rectangle (in the image's coordinates) holding every pixel whose colour
    /// `matches`, when at least `minimum` do.
    func bounds(minimum: Int, matching matches: ([UInt8]) -> Bool) -> (x: Int, y: Int, width: Int, height: Int)? {
        var (left, top, right, bottom, count) = (Int.max, Int.max, Int.min, Int.min, 0)
        for y in 0..<height {
            for x in 0..<width where matches(pixel(x: x, y: y)) {
                (left, top, right, bottom, count) = (min(left, x), min(top, y), max(right, x), max(bottom, y), count + 1)
            }
        }
        return count >= minimum ? (left, top, right - left + 1, bottom - top + 1) : nil
    }
}

extension TestSession.Window {
    /// A rectangle given within this one, placed on the screen.
    func offset(by part: (x: Int, y: Int, width: Int, height: Int)) -> Self {
        Self(id: id, x: x + part.x, y: y + part.y, width: part.width, height: part.height)
    }
}

/// The least of an RFB 3.8 client (security "None") that moves a VNC server's pointer and clicks.
struct VNCPointer {
    private let descriptor: Int32

    init(socket path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Subprocess.Failure("socket failed") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: Array(path.utf8.prefix(raw.count - 1)) + [0]) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { close(descriptor); throw Subprocess.Failure("cannot connect to \(path)") }
        do {
            _ = try read(12) // the server's version
            try send(Array("RFB 003.008\n".utf8))
            let types = try read(Int(try read(1)[0]))
            guard types.contains(1) else { throw Subprocess.Failure("the VNC server wants authentication: \(types)") }
            try send([1])
            guard try read(4) == [0, 0, 0, 0] else { throw Subprocess.Failure("the VNC server refused") }
            try send([1]) // shared
            let header = try read(24)
            _ = try read(Int(header[20]) << 24 | Int(header[21]) << 16 | Int(header[22]) << 8 | Int(header[23])) // its name
        } catch {
            close(descriptor)
            throw error
        }
    }

    /// Moves to `x`, `y`, presses and releases the first button, then disconnects. The pauses
    /// let the toolkit see the pointer enter and rest before the press, as a hand would.
    func click(x: Int, y: Int) throws {
        defer { close(descriptor) }
        let steps: [(mask: UInt8, x: Int, microseconds: UInt32)] = [(0, x, 300_000), (0, x + 1, 200_000), (0, x, 300_000),
                                                                   (1, x, 120_000), (0, x, 300_000)]
        for step in steps {
            try send([5, step.mask, UInt8(step.x >> 8), UInt8(step.x & 0xff), UInt8(y >> 8), UInt8(y & 0xff)])
            usleep(step.microseconds)
        }
    }

    private func send(_ bytes: [UInt8]) throws {
        guard write(descriptor, bytes, bytes.count) == bytes.count else { throw Subprocess.Failure("the VNC server hung up") }
    }

    private func read(_ count: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: max(count, 1))
        while bytes.count < count {
            let got = Glibc.read(descriptor, &buffer, count - bytes.count)
            guard got > 0 else { throw Subprocess.Failure("the VNC server hung up") }
            bytes += buffer[0..<got]
        }
        return bytes
    }
}
