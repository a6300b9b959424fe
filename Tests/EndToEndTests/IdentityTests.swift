import Foundation
import Glibc
import ReveilleCore
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// Who a caller is when the process id the bus recorded for its connection names another
/// process: a sandboxed process connects, hands the connection to a child and exits, and its
/// id is given to an unconfined process (forced through the PID namespace's `ns_last_pid`).
/// A real dbus-daemon, a real bubblewrap sandbox and the real agent; the client is
/// `pid-reuse.py` (Debian's python3-dbus).
@Suite("Caller identity end to end", .waitsOnItsOwnThread)
struct IdentityTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Support/hostile-client/pid-reuse.py").path

    /// A sandboxed connection whose connecting process has exited; a keeper process holds it open.
    struct Orphan {
        /// Its unique name on the bus.
        var name: String
        /// The exited process's id (the sandbox shares the test's PID namespace), which the bus
        /// credits the connection to.
        var pid: Int32
        var keeper: Subprocess.Child
        /// What its calls before the exit answered.
        var before: [String]
        /// A clock tick by which the agent had heard the connection appear.
        var heard: Int
        /// Where the keeper writes what its calls after the reuse answered.
        var report: String
    }

    /// Runs pid-reuse.py in a bubblewrap sandbox whose `/.flatpak-info` names `appID` (a fresh
    /// root with the system's /usr and /tmp, where the bus socket is): it makes the `before`
    /// calls, leaves its connection to a keeper that makes the `after` calls when told, and exits.
    func connectSandboxed(_ session: TestSession, _ appID: String, before: [[String]], after: [[String]]) throws -> Orphan {
        guard (try? Subprocess.run("/usr/bin/python3", ["-c", "import dbus"], environment: session.environment).status) == 0 else {
            throw Subprocess.Failure("/usr/bin/python3 with dbus is missing (Debian package python3-dbus)")
        }
        let bwrap = try Subprocess.find("bwrap", package: "bubblewrap")
        let info = session.directory + "/\(appID).flatpak-info"
        try "[Application]\nname=\(appID)\n".write(toFile: info, atomically: true, encoding: .utf8)
        let folder = URL(fileURLWithPath: Self.script).deletingLastPathComponent().path
        let sandbox = ["--tmpfs", "/", "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
                       "--symlink", "usr/bin", "/bin", "--bind", "/tmp", "/tmp", "--ro-bind", folder, folder,
                       "--proc", "/proc", "--dev", "/dev", "--ro-bind", info, "/.flatpak-info", "--"]
        let calls = try [before, after].map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) }
        let report = session.directory + "/after.json"
        let connected = try Subprocess.run(bwrap, sandbox + ["/usr/bin/python3", Self.script, report] + calls, environment: session.environment)
        struct Said: Decodable { var name: String; var pid: Int32; var keeper: Int32; var before: [String]; var heard: Int }
        guard connected.status == 0, let said = try? JSONDecoder().decode(Said.self, from: Data(connected.stdout.utf8)) else {
            throw Subprocess.Failure("pid-reuse.py in the sandbox failed (\(connected.status)): \(connected.stdout) \(connected.stderr)")
        }
        return Orphan(name: said.name, pid: said.pid, keeper: Subprocess.Child(pid: said.keeper), before: said.before,
                      heard: said.heard, report: report)
    }

    /// Now, in the clock ticks of process start times (`CLOCK_BOOTTIME`, as `/proc/PID/stat` counts).
    static func tick() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return Int(now.tv_sec) * sysconf(Int32(_SC_CLK_TCK)) + Int(now.tv_nsec) / (1_000_000_000 / sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Starts an unconfined process (`sleep`, a child of the test) with process id `pid`, which
    /// must be free: the PID namespace's last given id is set just below it before each try,
    /// and a try another process's fork overtook is undone and repeated.
    ///
    /// It starts in the clock tick after `heard`, by which the agent had heard the orphan's
    /// connection appear: within the tick the agent heard it, a process that connected and one
    /// that got its id afterwards cannot be told apart by their start times (README, "Security").
    func startProcess(withID pid: Int32, after heard: Int, _ session: TestSession) throws -> Subprocess.Child {
        let sleep = try Subprocess.find("sleep", package: "coreutils")
        // The next tick, not much later: the agent once took a process that started in it for
        // one that started before its connection appeared.
        let deadline = Date().addingTimeInterval(1)
        while Self.tick() <= heard {
            guard Date() < deadline else { throw Subprocess.Failure("the clock did not pass tick \(heard) within a second") }
            usleep(200)
        }
        for _ in 0..<50 {
            // Another test's fork may take the id between this write and this fork (sixteen
            // tests run at once); such processes are mostly short (a CLI run, a gdbus call),
            // so the id is waited for rather than given up.
            let free = try? eventually(timeout: 10, "process id \(pid) to be free") { kill(pid, 0) != 0 && errno == ESRCH ? true : nil }
            guard free != nil else {
                throw Subprocess.Failure("process id \(pid) was taken by another process for 10 s before the test could give it; run the test again")
            }
            let last = open("/proc/sys/kernel/ns_last_pid", O_WRONLY)
            let text = Array("\(pid - 1)".utf8)
            guard last >= 0, write(last, text, text.count) == text.count else {
                let reason = String(cString: strerror(errno))
                if last >= 0 { close(last) }
                throw Subprocess.Failure("cannot write /proc/sys/kernel/ns_last_pid (\(reason)): the PID reuse test needs root with CAP_SYS_ADMIN in its PID namespace (a container granting it will do)")
            }
            close(last)
            let child = try Subprocess.start(sleep, ["60"], environment: session.environment)
            if child.pid == pid { return child }
            child.terminate()
        }
        throw Subprocess.Failure("50 tries to start a process with id \(pid) were overtaken by other processes' forks")
    }

    /// The orphan's `after` calls, made now, with what each answered.
    func callsAfterReuse(_ orphan: Orphan) throws -> [String] {
        #expect(kill(orphan.keeper.pid, SIGUSR1) == 0, "the keeper still runs")
        struct Said: Decodable { var after: [String] }
        let answers = try eventually(timeout: 10, "the keeper's answers") {
            try? JSONDecoder().decode(Said.self, from: Data(contentsOf: URL(fileURLWithPath: orphan.report))).after
        }
        // Seen gone now, so that no later cleanup signals another process given its id.
        orphan.keeper.wait(timeout: 10)
        return answers
    }

    /// What the agent answers a call from a connection whose process id was reused.
    func reusedRefusal(_ orphan: Orphan) -> String {
        AgentInterface.errorPrefix + "NotAuthorized: cannot tell who is calling: process \(orphan.pid) started after \(orphan.name) connected, "
            + "so it is not the process that connected (its id was reused); the call is refused"
    }

    @Test func aSandboxedConnectionWhoseProcessIDAnUnconfinedProcessGotCannotAuthorizeItselfAsTheUser() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        // No call before the exit: the agent decides who the connection is at its first call.
        let orphan = try connectSandboxed(session, "org.test.Boxed", before: [],
                                          after: [["SetAuthorization", "org.test.Boxed", "authorized"], ["Authorizations"]])
        defer { orphan.keeper.terminate() }
        let reuser = try startProcess(withID: orphan.pid, after: orphan.heard, session)
        defer { reuser.terminate() }
        #expect(try session.ownerPID(of: orphan.name) == reuser.pid, "the bus credits the sandboxed connection to the unconfined process")

        let after = try callsAfterReuse(orphan)
        #expect(after == [reusedRefusal(orphan), reusedRefusal(orphan)], "\(after)")
        let authorizations = try session.cli("auth", "list")
        #expect(authorizations.status == 0 && !authorizations.stdout.contains("org.test.Boxed"), "\(authorizations.stdout)")
    }

    @Test func aSandboxedConnectionStaysItsAppWhenItsProcessIDIsReusedAndItSaysHelloAsAnAuthorizedApp() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        #expect(try session.cli("auth", "allow", "org.test.Trusted").status == 0)
        // Its first call, before the exit, makes it its sandbox's app.
        let orphan = try connectSandboxed(session, "org.test.Boxed", before: [["AuthorizationState"]],
                                          after: [["Hello", "org.test.Trusted", "Wants alarms"], ["AuthorizationState"]])
        defer { orphan.keeper.terminate() }
        #expect(orphan.before == ["ok: notDetermined"], "\(orphan.before)")
        let reuser = try startProcess(withID: orphan.pid, after: orphan.heard, session)
        defer { reuser.terminate() }
        #expect(try session.ownerPID(of: orphan.name) == reuser.pid, "the bus credits the sandboxed connection to the unconfined process")

        let after = try callsAfterReuse(orphan)
        #expect(after == [reusedRefusal(orphan), "ok: notDetermined"], "Hello is refused and the connection is still org.test.Boxed: \(after)")
    }
}
