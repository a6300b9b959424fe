import CLinux
import Foundation
import Glibc
import ReveilleSystem

/// Runs programs for the end-to-end tests with posix_spawn and waitpid: never through a
/// shell, always with a deadline, and every child known by its PID.
public enum Subprocess {
    public struct Result {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// A started program.
    public final class Child: @unchecked Sendable {
        public let pid: pid_t
        public private(set) var status: Int32?

        public init(pid: pid_t) { self.pid = pid }

        /// Whether it still runs; reaps it when it has ended.
        public var isRunning: Bool {
            guard status == nil else { return false }
            var raw: Int32 = 0
            let reaped = waitpid(pid, &raw, WNOHANG)
            if reaped == pid {
                status = Self.exitStatus(raw)
            } else if reaped < 0, errno == ECHILD, kill(pid, 0) != 0 || Self.isZombie(pid) {
                // Not our child (a daemon that forked): gone when it no longer takes signals,
                // or when it has exited and waits for its parent (init, or a container's first
                // process that reaps late) to reap it.
                status = 0
            }
            return status == nil
        }

        /// Whether `pid` has exited and is not yet reaped: state `Z` in /proc/PID/stat.
        private static func isZombie(_ pid: pid_t) -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            return stat[close...].dropFirst().trimmingCharacters(in: .whitespaces).hasPrefix("Z")
        }

        /// Waits for it to end (killing it after `timeout`), and returns its exit status.
        @discardableResult
        public func wait(timeout: TimeInterval = 20) -> Int32 {
            let deadline = Date().addingTimeInterval(timeout)
            while isRunning {
                if Date() > deadline { kill(pid, SIGKILL) }
                awaitEnd(until: deadline)
            }
            return status!
        }

        /// SIGTERM, then SIGKILL if it has not ended within a second.
        public func terminate() {
            guard isRunning else { return }
            kill(pid, SIGTERM)
            let deadline = Date().addingTimeInterval(1)
            while isRunning && Date() < deadline { awaitEnd(until: deadline) }
            if isRunning { kill(pid, SIGKILL); wait() }
        }

        /// Blocks until the process ends or `deadline` passes (at least a moment, so that a
        /// loop past its deadline does not spin). The kernel says when it ends: a pidfd
        /// becomes readable then, for a child or not. Polling waitpid every 2 ms instead woke
        /// the test process thousands of times per test.
        func awaitEnd(until deadline: Date) {
            let milliseconds = Int32(min(max(deadline.timeIntervalSinceNow, 0.02), 3_600) * 1_000)
            let descriptor = pidfd_open(pid, 0)
            // Gone already (ESRCH): isRunning notices.
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            var ended = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&ended, 1, milliseconds)
        }

        private static func exitStatus(_ raw: Int32) -> Int32 {
            (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
        }
    }

    /// The full path of `name` on PATH (and the sbin folders), or a failure that says what to install.
    public static func find(_ name: String, package: String) throws -> String {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "") + ":/usr/sbin:/usr/bin:/sbin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw Failure("\(name) is not installed; the end-to-end tests need it (Debian package \(package); `make test` installs it)")
    }

    /// Starts `executable` and returns at once; its output is appended to the given files.
    public static func start(_ executable: String, _ arguments: [String], environment: [String: String],
                      stdout: String = "/dev/null", stderr: String = "/dev/null") throws -> Child {
        try start(executable, arguments, environment: environment, stderr: stderr) { actions in
            posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        }
    }

    /// Starts `executable` with its stdout on the write end of a pipe; returns the read end.
    public static func startPiped(_ executable: String, _ arguments: [String], environment: [String: String],
                                  stderr: String = "/dev/null") throws -> (child: Child, stdout: Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw Failure("pipe failed") }
        defer { close(fds[1]) }
        do {
            let child = try start(executable, arguments, environment: environment, stderr: stderr) { actions in
                posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
                posix_spawn_file_actions_addclose(&actions, fds[0])
                posix_spawn_file_actions_addclose(&actions, fds[1])
            }
            return (child, fds[0])
        } catch {
            close(fds[0])
            throw error
        }
    }

    private static func start(_ executable: String, _ arguments: [String], environment: [String: String],
                              stderr: String, stdout: (inout posix_spawn_file_actions_t) -> Void) throws -> Child {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        stdout(&actions)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        // Nothing of the test's above standard error: Foundation opens files without O_CLOEXEC,
        // so a peer started while another test wrote a script kept it open for writing, and
        // running that script then failed with ETXTBSY for as long as the peer lived; a pipe's
        // write end kept by a stranger would likewise never let its reader see the end.
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        // The test's threads block most signals (Swift's and libdispatch's worker threads), and
        // a spawned program inherits the mask: a peer that does not clear it (dbus-daemon,
        // PulseAudio...) then never saw `terminate`'s SIGTERM, was killed a second later, and a
        // forked bus outlived its test. The child starts with no signal blocked, each at its default.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        ProcessSpawn.withDefaultSignals(&attributes)
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw Failure("cannot start \(executable): \(String(cString: strerror(result)))") }
        return Child(pid: pid)
    }

    /// Runs `executable` to completion (killed after `timeout` seconds) and captures its output.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String],
                    timeout: TimeInterval = 20) throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-run-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Files, not pipes: a grandchild that keeps a pipe open (a daemon forking, the CLI
        // starting an agent) must not keep us waiting for end-of-file.
        let out = directory + "/out", err = directory + "/err"
        let child = try start(executable, arguments, environment: environment, stdout: out, stderr: err)
        let deadline = Date().addingTimeInterval(timeout)
        while child.isRunning {
            if Date() > deadline {
                kill(child.pid, SIGKILL)
                child.wait()
                throw Failure("\(executable) \(arguments.joined(separator: " ")) did not finish within \(timeout) s")
            }
            child.awaitEnd(until: deadline)
        }
        return Result(status: child.wait(),
                      stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
                      stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
    }
}

/// Polls `condition` until it returns a value or `timeout` passes: at once, then after 5 ms,
/// the pause doubling up to `eventuallyLongestPause`. The default timeout is generous: on
/// the 2-core CI machine, eight tests at once start their own buses, X servers and
/// notification servers, and a peer may take many seconds to draw; a wait that holds returns
/// as soon as it holds.
///
/// Why the pause grows: a condition is often a process (gdbus, xdotool, the CLI: 3 to 15 ms
/// of CPU each) or a re-read of a whole log. Asked every 20 ms, a 30-second wait started
/// 1,500 of them, and such polls were most of the suite's CPU; a short wait still ends
/// within a few milliseconds of its event.
public func eventually<T>(timeout: TimeInterval = 30, _ what: String, _ condition: () throws -> T?) throws -> T {
    let deadline = Date().addingTimeInterval(timeout)
    var pause: useconds_t = 5_000
    while true {
        if let value = try condition() { return value }
        if Date() > deadline { throw Subprocess.Failure("timed out after \(timeout) s waiting for \(what)") }
        usleep(pause)
        pause = min(pause * 2, eventuallyLongestPause)
    }
}

/// The longest pause between two checks of `eventually`, in microseconds: what a wait may
/// lag its event by, at most.
public let eventuallyLongestPause: useconds_t = 200_000

/// glibc 2.36's `pidfd_open` (sys/pidfd.h, which the Glibc module does not import).
@_silgen_name("pidfd_open")
private func pidfd_open(_ pid: pid_t, _ flags: UInt32) -> Int32
