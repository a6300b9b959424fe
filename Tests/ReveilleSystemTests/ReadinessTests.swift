import FoundationEssentials
import Glibc
import ReveilleSystem
import SystemPackage
import Testing

/// The readiness protocol (`NOTIFY_SOCKET`, sd_notify's) the CLI waits on when it starts the
/// agent: one wait on the socket and the child together, which ends at READY=1, at the child's
/// exit, or at the time given.
@Suite("Readiness notices")
struct ReadinessTests {
    func listener() throws -> Readiness.Listener {
        try Readiness.Listener(path: FileManager.default.temporaryDirectory.path + "/reveille-ready-\(UUID().uuidString.prefix(8)).socket")
    }

    func sleeper(_ seconds: String) throws -> pid_t {
        try ProcessSpawn.start(["/usr/bin/sleep", seconds], environment: [:])
    }

    @Test func readyIsHeardAtOnceAndTheSocketIsTheUsersAlone() throws {
        let socket = try listener()
        var status = stat()
        #expect(stat(socket.path, &status) == 0 && status.st_mode & 0o777 == 0o600, "mode \(String(status.st_mode & 0o777, radix: 8))")
        let child = try sleeper("30")
        defer { kill(child, SIGKILL); _ = try? ProcessSpawn.hasExited(child) }
        // Other assignments first, as a service manager's notices may come; the wait reads on.
        try Readiness.notify("STATUS=loading", to: .path(socket.path))
        try Readiness.notify("MAINPID=\(child)\nREADY=1", to: .init(socket.path))
        let started = SystemClock.bootTime
        #expect(try socket.waitForReady(of: child, seconds: 10) == .ready)
        #expect(SystemClock.bootTime - started < 5, "not a timeout")
    }

    @Test func aChildThatExitsEndsTheWaitAndOneThatSaysNothingTimesOut() throws {
        let socket = try listener()
        let quitter = try ProcessSpawn.start(["/usr/bin/false"], environment: [:])
        #expect(try socket.waitForReady(of: quitter, seconds: 10) == .exited)
        #expect(throws: Errno.self) { try ProcessSpawn.hasExited(quitter) }  // reaped: no longer a child
        let silent = try sleeper("30")
        defer { kill(silent, SIGKILL); _ = try? ProcessSpawn.hasExited(silent) }
        #expect(try socket.waitForReady(of: silent, seconds: 0.3) == .timedOut)
    }

    @Test func theSocketGoesWithItsListener() throws {
        var path = ""
        do {
            let socket = try listener()
            path = socket.path
            #expect(FileManager.default.fileExists(atPath: path))
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
