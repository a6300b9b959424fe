import Foundation
import Glibc
import ReveilleBus
import ReveilleCore
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import SystemPackage
import Testing

/// The agent's direct line (issue 49: the user's `reveille stop` under a bus flood): the user's
/// tools reach the agent on a socket of its own, so a bus daemon busy with others' floods, or
/// not answering at all, does not hold them back; behind the same gate (a sandboxed app on it is
/// the sandboxed app still), and bounded (sockets that never speak and a crowd of peers do not
/// keep the user's next call out).
@Suite("The agent's direct line end to end", .waitsOnItsOwnThread)
struct DirectLineTests {
    /// The socket of the session's agent, where the CLI looks for it.
    func socket(_ session: TestSession) throws -> String {
        let address = try #require(session.environment["DBUS_SESSION_BUS_ADDRESS"])
        return DirectLine.socketPath(runtimeDirectory: FilePath(session.directory + "/runtime"), busAddress: address).string
    }

    /// Runs the CLI with the session's bus daemon stopped (SIGSTOP): any call over the bus would
    /// wait for it, so an answer came by the direct line. The daemon goes on however the run ends.
    func withBusFrozen<T>(_ session: TestSession, _ body: () throws -> T) throws -> T {
        let daemon = try #require(session.busDaemonPID, "the session's dbus-daemon")
        kill(daemon, SIGSTOP)
        defer { kill(daemon, SIGCONT) }
        return try body()
    }

    @Test func theUsersToolsAnswerWhileTheBusDaemonIsFrozenAndTheSocketIsTheUsersAlone() throws {
        let session = try TestSession()
        try session.startAgent()
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "Tea")
        let path = try socket(session)
        var status = stat()
        #expect(lstat(path, &status) == 0, "the agent listens at \(path)")
        #expect(status.st_mode & S_IFMT == S_IFSOCK && status.st_mode & 0o777 == 0o600 && status.st_uid == getuid(),
                "the socket is the user's alone: mode \(String(status.st_mode & 0o777, radix: 8))")
        let (listed, stopped) = try withBusFrozen(session) {
            (try Subprocess.run(session.binaries + "/reveille", ["list"], environment: session.environment, timeout: 10),
             try Subprocess.run(session.binaries + "/reveille", ["cancel", timer.id], environment: session.environment, timeout: 10))
        }
        #expect(listed.status == 0 && listed.stdout.contains("Tea"), "reveille list with the bus frozen: \(listed.stderr)")
        #expect(stopped.status == 0, "reveille cancel with the bus frozen: \(stopped.stderr)")
        #expect(try session.cli("list").stdout.contains("Tea") == false, "the cancel took effect")
        // The agent that stops takes its socket with it; the next run goes by the bus and starts one.
        try session.killAgent(signal: SIGTERM)
        #expect(access(path, F_OK) != 0, "the socket is gone with the agent")
    }

    /// Stopping a ringing alarm gives the media player's name up. GDBus's `g_bus_unown_name` asks
    /// the bus daemon `ReleaseName` and waits for its answer, on the agent's loop: under a
    /// PlaySound flood that held the user's stop 6 s (`make bench`), and with the daemon frozen
    /// 25 s. Names are given up without waiting now: with the daemon frozen, the stop and the
    /// next list answer by the direct line at once.
    @Test func theAgentNeverWaitsForTheBusDaemonWhenItGivesANameUp() throws {
        let session = try TestSession()
        try session.startAgent()
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1s", "--title", "Ringing")
        _ = try session.eventually(timeout: 20, "the timer to ring") { try session.agentState(of: timer.id) == "alerting" ? true : nil }
        try session.waitForName("org.mpris.MediaPlayer2.reveille", owned: true)
        let (stopped, listed, seconds) = try withBusFrozen(session) {
            let started = Date()
            let stopped = try Subprocess.run(session.binaries + "/reveille", ["stop", timer.id], environment: session.environment, timeout: 30)
            let listed = try Subprocess.run(session.binaries + "/reveille", ["list"], environment: session.environment, timeout: 30)
            return (stopped, listed, Date().timeIntervalSince(started))
        }
        #expect(stopped.status == 0, "reveille stop with the bus frozen: \(stopped.stderr)")
        #expect(listed.status == 0, "reveille list after it: \(listed.stderr)")
        // Generous for a loaded machine; a loop waiting on the frozen daemon takes 25 s.
        #expect(seconds < 10, "the stop and the list took \(seconds) s with the bus frozen")
        try session.waitForName("org.mpris.MediaPlayer2.reveille", owned: false)
    }

    /// docs/dbus.md's two lines that find the socket and call on it, run as written (by sh), with
    /// the bus frozen: the page's way to the line is the agent's.
    @Test func theDBusPagesWayToTheDirectLineIsTheAgents() throws {
        let session = try TestSession()
        try session.startAgent()
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "Documented")
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let page = try String(contentsOfFile: repository + "/docs/dbus.md", encoding: .utf8)
        let lines = page.split(separator: "\n").filter { $0.hasPrefix("LINE=") || $0.hasPrefix("dbus-send --peer") }
        try #require(lines.count == 2, "docs/dbus.md shows the direct line in two lines: \(lines)")
        let result = try withBusFrozen(session) {
            try Subprocess.run("/bin/sh", ["-c", lines.joined(separator: "\n")], environment: session.environment, timeout: 10)
        }
        #expect(result.status == 0 && result.stdout.contains("Documented"), "the page's lines: \(result.stderr)")
    }

    /// A sandboxed app that reaches the socket (Flatpak's `--filesystem=xdg-run/...`) is not let
    /// onto the line, which is the user's own tools': its socket is closed before it
    /// authenticates, and it calls by the bus, whose daemon bounds what it sends (on the line,
    /// GDBus read 32 half-sent calls of 120 MiB, 4 GB, before any filter saw one). The user's
    /// timer is untouched.
    @Test func aSandboxedAppIsNotLetOntoTheDirectLine() throws {
        let session = try TestSession()
        try session.startAgent()
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "Private")
        let script = """
            import sys
            from gi.repository import Gio, GLib
            try:
                line = Gio.DBusConnection.new_for_address_sync('unix:path=' + sys.argv[1], Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT, None, None)
                print('ok: ' + str(line.call_sync(None, '\(AgentInterface.objectPath)', '\(AgentInterface.interface)', 'Cancel',
                                                  GLib.Variant('(s)', (sys.argv[2],)), None, 0, 5000, None).unpack()))
            except GLib.Error as error:
                print('refused: ' + error.message)
            """
        let result = try session.runSandboxed("org.example.Peeker", ["/usr/bin/python3", "-c", script, try socket(session), timer.id])
        #expect(result.status == 0, "the sandboxed peer ran: \(result.stderr)")
        #expect(result.stdout.hasPrefix("refused: "), "the sandboxed app on the line: \(result.stdout)")
        #expect(try session.agentState(of: timer.id) == "countdown", "the user's timer is untouched")
        // By the bus it is the app it is: its list holds none of the user's alarms.
        let gdbus = try Subprocess.find("gdbus", package: "libglib2.0-bin")
        let listed = try session.runSandboxed("org.example.Peeker", [gdbus, "call", "--session", "--dest", AgentInterface.busName,
                                                                     "--object-path", AgentInterface.objectPath,
                                                                     "--method", AgentInterface.interface + ".ListPage", "", "0"])
        #expect(listed.status == 0 && !listed.stdout.contains("Private"), "its list by the bus: \(listed.stdout)\(listed.stderr)")
    }

    /// A sandboxed app that lets a child connect and exit, and keeps it unreaped (a zombie):
    /// the kernel names the zombie as the connection's process, whose root folder no longer
    /// opens, so its `/.flatpak-info` read as missing and the app was taken for the user (it
    /// listed and cancelled the user's alarms, found by attacking the direct line; the bus too).
    /// A process whose sandbox cannot be told is refused, on the bus and on the line.
    @Test func aSandboxedAppBehindAZombieIsNotTakenForTheUser() throws {
        let session = try TestSession()
        try session.startAgent()
        let timer = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "Private")
        let script = """
            import os, socket, sys
            from gi.repository import Gio, GLib
            def through_a_zombie(path, bus):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                child = os.fork()
                if child == 0:
                    s.connect(path)
                    os._exit(0)
                os.waitid(os.P_PID, child, os.WEXITED | os.WNOWAIT)  # exited, not reaped
                try:
                    stream = Gio.Socket.new_from_fd(os.dup(s.fileno())).connection_factory_create_connection()
                    flags = Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION if bus else Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT
                    line = Gio.DBusConnection.new_sync(stream, None, flags, None, None)
                    reply = line.call_sync('\(AgentInterface.busName)' if bus else None, '\(AgentInterface.objectPath)', '\(AgentInterface.interface)',
                                           'Cancel', GLib.Variant('(s)', (sys.argv[3],)), None, 0, 5000, None)
                    return 'ok: ' + str(reply.unpack())
                except GLib.Error as error:
                    return 'error: ' + error.message
            print(through_a_zombie(sys.argv[1], True))
            print(through_a_zombie(sys.argv[2], False))
            """
        let bus = try #require(session.environment["DBUS_SESSION_BUS_ADDRESS"]?.firstMatch(of: /unix:path=([^,]+)/).map { String($0.1) })
        let result = try session.runSandboxed("org.example.Zombie", ["/usr/bin/python3", "-c", script, bus, try socket(session), timer.id])
        #expect(result.status == 0, "the sandboxed app ran: \(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && lines.allSatisfy { $0.hasPrefix("error: ") }, "its Cancel of the user's timer, by the bus and by the line: \(lines)")
        #expect(try session.agentState(of: timer.id) == "countdown", "the user's timer is untouched")
    }

    /// 10 sockets that never authenticate and 40 peers that stay connected: the oldest make
    /// room, and the user's `reveille list` is answered by the direct line (the bus frozen).
    @Test func silentSocketsAndACrowdOfPeersDoNotKeepTheUserOut() throws {
        let session = try TestSession()
        try session.startAgent()
        _ = try session.cliJSON(AlarmJSON.self, "timer", "1h", "--title", "Crowded")
        let ready = session.directory + "/crowd-ready"
        let script = """
            import socket, sys, time
            from gi.repository import Gio
            silent = []
            for _ in range(10):
                s = socket.socket(socket.AF_UNIX)
                s.connect(sys.argv[1])
                silent.append(s)
            crowd = [Gio.DBusConnection.new_for_address_sync('unix:path=' + sys.argv[1], Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT, None, None) for _ in range(40)]
            open(sys.argv[2], 'w').write('ready')
            time.sleep(30)
            """
        let crowd = try Subprocess.start("/usr/bin/python3", ["-c", script, try socket(session), ready], environment: session.environment,
                                         stderr: session.directory + "/crowd.log")
        defer { crowd.terminate() }
        _ = try eventually(timeout: 30, "the crowd to connect") { FileManager.default.fileExists(atPath: ready) ? true : nil }
        let listed = try withBusFrozen(session) {
            try Subprocess.run(session.binaries + "/reveille", ["list"], environment: session.environment, timeout: 10)
        }
        #expect(listed.status == 0 && listed.stdout.contains("Crowded"), "reveille list beside the crowd, the bus frozen: \(listed.stderr)")
    }
}
