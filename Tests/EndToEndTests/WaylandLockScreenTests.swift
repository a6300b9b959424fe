import Foundation
import ReveilleCore
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// The alert window over KDE Plasma's Wayland lock screen: KWin (kwin_wayland, headless in
/// Xvfb) locked as a person locks it, the agent on its Wayland display alone, an alarm that rings
/// while locked. KWin shows a window over its lock screen only when the window asks with
/// `kde_lockscreen_overlay_v1` after its surface became a toplevel and before its first buffer,
/// and offers that interface only to a program an installed desktop file names
/// (`X-KDE-Wayland-Interfaces`). What shows is read from the screen's picture (the Stop button's
/// red), what a click did from the agent, the order of the window's requests from its
/// WAYLAND_DEBUG lines (the agent's log, where the window writes).
@Suite("KWin's Wayland lock screen, the alert window over it", .serialized, .drawsWindows)
struct WaylandLockScreenTests {
    /// A session whose KWin is locked, with the agent started on KWin's Wayland display and no
    /// X display; `desktopFile`: reveille-alert named by an installed desktop file, as
    /// `scripts/install` and the Debian package install one.
    func lockedSession(desktopFile: Bool) throws -> TestSession {
        let session = try TestSession(notifications: .none)
        if desktopFile {
            try session.installDesktopFile(naming: session.binaries + "/reveille-alert", interfaces: ["kde_lockscreen_overlay_v1"])
        }
        try session.startKWinWayland()
        try session.lockKWin()
        #expect(try session.stopButtonOnKWin() == nil, "the lock screen alone shows nothing the test takes for Stop")
        // The window inherits WAYLAND_DEBUG: its requests, in order, in the agent's log.
        try session.startAgent(environment: ["DISPLAY": nil, "WAYLAND_DISPLAY": session.kwinWaylandDisplay, "WAYLAND_DEBUG": "1"])
        return session
    }

    /// What `reveille status` says of the lock screen, run on KWin's Wayland display alone.
    func overLockScreenLine(_ session: TestSession) throws -> String {
        let status = try Subprocess.run(session.binaries + "/reveille", ["status"], environment: session.onKWinWayland)
        #expect(status.status == 0, "reveille status: \(status.stderr)")
        return status.stdout.split(separator: "\n").map(String.init).first { $0.hasPrefix("Over the lock screen:") } ?? status.stdout
    }

    /// The alert window's Wayland requests as WAYLAND_DEBUG wrote them (`-> object#id.request(...)`;
    /// libwayland before 1.22 writes `object@id`), in order.
    func requests(_ session: TestSession) -> [String] {
        session.agentLogLines(containing: " -> ").map { String($0[$0.range(of: " -> ")!.upperBound...]) }
    }

    /// Where, among `requests`, the toplevel surface `surface` got its role (`get_toplevel` on
    /// its xdg_surface) and its first buffer (`attach` of a buffer, not of nil).
    func toplevelAndFirstBuffer(of surface: String, in requests: [String]) -> (toplevel: Int?, firstBuffer: Int?) {
        let xdgSurface = requests.lazy.compactMap { $0.firstMatch(of: /get_xdg_surface\(new id (xdg_surface[#@]\d+), wl_surface[#@](\d+)\)/) }
            .first { $0.2 == surface }.map { String($0.1) }
        return (requests.firstIndex { xdgSurface != nil && $0.hasPrefix(xdgSurface! + ".get_toplevel(") },
                requests.firstIndex { $0.firstMatch(of: /^wl_surface[#@](\d+)\.attach\(wl_buffer/).map { String($0.1) } == surface })
    }

    /// The toplevel surfaces among `requests`: each `get_xdg_surface`'s wl_surface.
    func toplevelSurfaces(in requests: [String]) -> [String] {
        requests.compactMap { $0.firstMatch(of: /get_xdg_surface\(new id xdg_surface[#@]\d+, wl_surface[#@](\d+)\)/).map { String($0.1) } }
    }

    @Test func theAlarmsWindowShowsOverTheLockScreenAndAClickOnItsStopStopsTheAlarm() throws {
        let session = try lockedSession(desktopFile: true)
        let timer = try session.ringTimer("1s", "Wake up")
        let stop = try session.eventually(timeout: 60, "the alert window's Stop over KWin's lock screen") { try session.stopButtonOnKWin() }
        try session.saveScreenshot(to: session.directory + "/kwin-locked-alert-window.png")

        // Asked at the one moment KWin takes it: after the toplevel role, before the first buffer.
        let sent = requests(session)
        let allow = try #require(sent.firstIndex { $0.contains("kde_lockscreen_overlay_v1") && $0.contains(".allow(") },
                                 "the window never asked kde_lockscreen_overlay_v1.allow")
        let surface = try #require(sent[allow].firstMatch(of: /\.allow\(wl_surface[#@](\d+)\)/).map { String($0.1) })
        let (toplevel, firstBuffer) = toplevelAndFirstBuffer(of: surface, in: sent)
        #expect(toplevel.map { $0 < allow } == true, "allow (\(allow)) after get_toplevel (\(toplevel.map(String.init) ?? "none"))")
        #expect(firstBuffer.map { allow < $0 } == true, "allow (\(allow)) before the first buffer (\(firstBuffer.map(String.init) ?? "none"))")

        // A click on Stop, through KWin's pointer, as a hand on the mouse; a click before the
        // window takes input does nothing, so it is clicked again.
        _ = try session.eventually(timeout: 30, "a click on the window's Stop to end the alarm") { () -> Bool? in
            let now = try session.stopButtonOnKWin() ?? stop
            try session.click(x: now.x + now.width / 2, y: now.y + now.height / 2)
            return (try? eventually(timeout: 2, "the alarm to end") { try session.agentState(of: timer.id) == nil ? true : nil }) ?? nil
        }
        #expect(try !session.cliJSON([AlarmJSON].self, "list").contains { $0.id == timer.id }, "reveille list says it ended")
        _ = try session.eventually("the alarm's sound to end") { try session.hasSoundStream() ? nil : true }
        _ = try session.eventually("the window to go from the lock screen") { try session.stopButtonOnKWin() == nil ? true : nil }

        let line = try overLockScreenLine(session)
        #expect(line.hasPrefix("Over the lock screen: the alarm's window shows there"), "\(line)")
    }

    @Test func withoutTheDesktopFileTheWindowStaysUnderTheLockScreen() throws {
        let session = try lockedSession(desktopFile: false)
        let timer = try session.ringTimer("1s", "Wake up")
        // The window drew its first frame: KWin has it, and keeps it under the lock screen.
        _ = try session.eventually(timeout: 60, "the alert window to draw its first frame (WAYLAND_DEBUG in the agent's log)") { () -> Bool? in
            let sent = requests(session)
            return toplevelSurfaces(in: sent).contains { toplevelAndFirstBuffer(of: $0, in: sent).firstBuffer != nil } ? true : nil
        }
        #expect(!requests(session).contains { $0.contains("kde_lockscreen_overlay_v1") }, "KWin did not offer the interface")
        for _ in 0..<6 {
            #expect(try session.stopButtonOnKWin() == nil, "no Stop shows over the lock screen")
            usleep(500_000)
        }
        try session.saveScreenshot(to: session.directory + "/kwin-locked-no-desktop-file.png")
        #expect(try session.agentState(of: timer.id) == "alerting", "the alarm rings on")
        #expect(session.agentLogLines(containing: "opened the alert window").count == 1)

        let line = try overLockScreenLine(session)
        #expect(line.hasPrefix("Over the lock screen: the alarm's window does not show there"), "\(line)")
    }
}
