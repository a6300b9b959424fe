import CLinux
import Glibc
import SystemPackage

// Every raw system call of Reveille's own code, in one file, as apple/swift-system keeps
// them: typed arguments and results, EINTR retried, failures thrown as `Errno`. Callers never
// read `errno` nor fill a C struct. (swift-system's `FileDescriptor` covers open, read,
// write, seek, resize and close; this file adds what it lacks.)

/// Retries `call` while it fails with EINTR; returns its non-negative result or throws `errno`.
@inline(__always)
private func retryingInterrupts<Result: BinaryInteger>(_ call: () -> Result) throws(Errno) -> Result {
    while true {
        let result = call()
        if result >= 0 { return result }
        if errno != EINTR { throw Errno(rawValue: errno) }
    }
}

/// `stat(2)` or `lstat(2)` of `path` (outside the extensions, where `stat` names their methods).
private func fileStatus(_ path: String, followingLinks: Bool) throws(Errno) -> FileStatus {
    var status = stat()
    _ = try retryingInterrupts { followingLinks ? stat(path, &status) : lstat(path, &status) }
    return FileStatus(status)
}

/// `fstat(2)` of `descriptor`.
private func fileStatus(_ descriptor: Int32) throws(Errno) -> FileStatus {
    var status = stat()
    _ = try retryingInterrupts { fstat(descriptor, &status) }
    return FileStatus(status)
}

/// The calling thread's signal mask.
package enum SignalMask {
    /// Unblocks every signal (`pthread_sigmask`); threads started afterwards inherit the mask.
    package static func unblockAll() {
        var all = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_UNBLOCK, &all, nil)
    }
}

/// What `stat(2)` says of a file that the callers need.
package struct FileStatus: Equatable, Sendable {
    package enum Kind: Sendable { case regular, directory, other }
    package var kind: Kind
    package var size: Int
    /// The device and inode: the same pair is the same file.
    package var identity: FileIdentity
    /// The last change of the contents (`st_mtim`), to the nanosecond.
    package var modifiedSeconds: Int
    package var modifiedNanoseconds: Int
    /// The owner's user id, and the permission bits (`st_mode & 0o7777`).
    package var owner: uid_t
    package var permissions: UInt32

    init(_ status: stat) {
        switch status.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        default: kind = .other
        }
        size = Int(status.st_size)
        identity = FileIdentity(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
        modifiedSeconds = Int(status.st_mtim.tv_sec)
        modifiedNanoseconds = Int(status.st_mtim.tv_nsec)
        owner = status.st_uid
        permissions = UInt32(status.st_mode) & 0o7777
    }
}

package struct FileIdentity: Hashable, Sendable {
    package var device: UInt64
    package var inode: UInt64
}

package extension FilePath {
    /// `stat(2)` (links followed), or `lstat(2)`.
    func status(followingLinks: Bool = true) throws(Errno) -> FileStatus {
        try fileStatus(string, followingLinks: followingLinks)
    }

    /// `unlink(2)`; a file already gone is no failure.
    func removeFile() throws(Errno) {
        do { _ = try retryingInterrupts { unlink(string) } } catch .noSuchFileOrDirectory {}
    }

    /// `rename(2)`: `self` takes `destination`'s place in one step.
    func rename(to destination: FilePath) throws(Errno) {
        _ = try retryingInterrupts { Glibc.rename(string, destination.string) }
    }

    /// `link(2)`: `destination` becomes a second name of this file; never over an existing
    /// name (`.fileExists`), atomically.
    func link(to destination: FilePath) throws(Errno) {
        _ = try retryingInterrupts { Glibc.link(string, destination.string) }
    }

    /// `chmod(2)`.
    func setPermissions(_ permissions: FilePermissions) throws(Errno) {
        _ = try retryingInterrupts { chmod(string, permissions.rawValue) }
    }

    /// `opendir(3)`/`readdir(3)`: the names in this folder (not `.` nor `..`), at most `limit`
    /// of them, in the folder's own order; reading stops there, however many there are.
    func directoryNames(limit: Int) throws(Errno) -> [String] {
        guard let directory = opendir(string) else { throw Errno(rawValue: errno) }
        defer { closedir(directory) }
        var names: [String] = []
        while names.count < limit, let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// `readlink(2)`: where a symbolic link points.
    func linkTarget() throws(Errno) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = try retryingInterrupts { readlink(string, &buffer, buffer.count - 1) }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

package extension FileDescriptor.OpenOptions {
    /// `O_NOCTTY`: a terminal opened by mistake does not become the controlling one.
    static let noControllingTerminal = FileDescriptor.OpenOptions(rawValue: O_NOCTTY)
}

package extension FileDescriptor {
    /// `open(2)` of a folder as a handle only (`O_PATH | O_DIRECTORY`), its links followed: what
    /// `openBeneath` opens in. `/proc/PID/root` of a process that is exiting (or a zombie) no
    /// longer opens (`ENOENT`).
    static func openFolder(_ path: FilePath) throws(Errno) -> FileDescriptor {
        FileDescriptor(rawValue: try retryingInterrupts { Glibc.open(path.string, reveille_o_path | O_DIRECTORY | O_CLOEXEC) })
    }

    /// `openat(2)` of `name` in this folder, read-only, without following a last link nor blocking.
    func openBeneath(_ name: String) throws(Errno) -> FileDescriptor {
        FileDescriptor(rawValue: try retryingInterrupts { openat(rawValue, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) })
    }

    /// `fstat(2)`.
    func status() throws(Errno) -> FileStatus {
        try fileStatus(rawValue)
    }

    /// `fsync(2)`: the data and what names it reach the disk.
    func sync() throws(Errno) {
        _ = try retryingInterrupts { fsync(rawValue) }
    }

    /// `fdatasync(2)`: the data reaches the disk.
    func syncData() throws(Errno) {
        _ = try retryingInterrupts { fdatasync(rawValue) }
    }

    /// `fchmod(2)`.
    func setPermissions(_ permissions: FilePermissions) throws(Errno) {
        _ = try retryingInterrupts { fchmod(rawValue, permissions.rawValue) }
    }

    /// `fcntl(F_SETLK)` for a write lock on the whole file: `nil` when taken, else the PID of
    /// a process that holds it (`F_GETLK`; 0 when it cannot be told).
    func tryWriteLock() throws(Errno) -> Int32? {
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        if fcntl(rawValue, F_SETLK, &lock) == 0 { return nil }
        guard errno == EAGAIN || errno == EACCES else { throw Errno(rawValue: errno) }
        var probe = flock()
        probe.l_type = Int16(F_WRLCK)
        probe.l_whence = Int16(SEEK_SET)
        _ = fcntl(rawValue, F_GETLK, &probe)
        return probe.l_pid
    }
}

/// The clocks Reveille reads beside the wall clock.
package enum SystemClock {
    /// `CLOCK_BOOTTIME`: seconds since boot, suspend included.
    package static var bootTime: Double {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// `CLOCK_REALTIME`: seconds since the epoch, read without Foundation (in the loop's poll).
    package static var wallTime: Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// `CLOCK_BOOTTIME` as whole seconds and nanoseconds.
    package static var bootTimeParts: (seconds: UInt64, nanoseconds: UInt64) {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return (UInt64(time.tv_sec), UInt64(time.tv_nsec))
    }

    /// Sleeps this thread for `seconds` (`nanosleep`, resumed after a signal), for a client
    /// that has nothing else to do until it may call again.
    package static func pause(seconds: Double) {
        var request = timespec(tv_sec: Int(max(0, seconds)), tv_nsec: Int((max(0, seconds).truncatingRemainder(dividingBy: 1)) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0, errno == EINTR { request = remaining }
    }

    /// Clock ticks per second (`sysconf(_SC_CLK_TCK)`), as /proc counts process times.
    package static var ticksPerSecond: UInt64 { UInt64(max(1, sysconf(Int32(_SC_CLK_TCK)))) }
}

/// A `timerfd` that fires at an absolute wall-clock instant: on `CLOCK_REALTIME`, cancelled
/// (ECANCELED on read) whenever the wall clock is set; or on `CLOCK_REALTIME_ALARM`, which
/// also wakes the machine from suspend (it needs `CAP_WAKE_ALARM`: EPERM without).
package struct WallClockTimerDescriptor: ~Copyable {
    package enum Clock: Sendable {
        /// Fires at the instant, and is cancelled when the clock is set.
        case wallClock
        /// Fires at the instant, waking the machine from suspend for it.
        case wakingAlarm
    }

    package let descriptor: FileDescriptor
    private let clock: Clock

    package init(_ clock: Clock = .wallClock) throws(Errno) {
        self.clock = clock
        let id = clock == .wallClock ? CLOCK_REALTIME : CLOCK_REALTIME_ALARM
        descriptor = FileDescriptor(rawValue: try retryingInterrupts {
            timerfd_create(id, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        })
    }

    deinit { try? descriptor.close() }

    /// Fires at `seconds` since the epoch; 0 disarms it (a wall-clock timer disarmed is still
    /// cancelled by a clock set).
    package func arm(atEpochSeconds seconds: Double) throws(Errno) {
        var spec = itimerspec()
        let whole = seconds.rounded(.down)
        spec.it_value.tv_sec = Int(whole)
        spec.it_value.tv_nsec = Int((seconds - whole) * 1e9)
        let flags = clock == .wallClock ? TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET : TFD_TIMER_ABSTIME
        _ = try retryingInterrupts { timerfd_settime(descriptor.rawValue, Int32(flags), &spec, nil) }
    }

    /// What a read says: it fired, the clock was set (ECANCELED), or nothing yet (EAGAIN).
    package enum Reading { case fired, clockSet, nothing }

    package func read() -> Reading {
        var expirations: UInt64 = 0
        let count = Glibc.read(descriptor.rawValue, &expirations, MemoryLayout<UInt64>.size)
        if count == MemoryLayout<UInt64>.size { return .fired }
        return errno == ECANCELED ? .clockSet : .nothing
    }
}

/// A terminal's line discipline (`termios`), as read and set on a descriptor.
package struct TerminalSettings: Sendable {
    fileprivate var value: termios

    /// Keys arrive one by one as typed, not echoed (no `ICANON`, no `ECHO`; `VMIN` 1, `VTIME` 0).
    package var keyByKey: TerminalSettings {
        var settings = value
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &settings.c_cc) { bytes in
            bytes[Int(VMIN)] = 1
            bytes[Int(VTIME)] = 0
        }
        return TerminalSettings(value: settings)
    }

    /// Lines arrive as usual but what is typed is not shown (no `ECHO`): a password prompt.
    package var withoutEcho: TerminalSettings {
        var settings = value
        settings.c_lflag &= ~tcflag_t(ECHO)
        return TerminalSettings(value: settings)
    }
}

package extension FileDescriptor {
    /// `isatty(3)`.
    var isTerminal: Bool { isatty(rawValue) == 1 }

    /// `tcgetattr(3)`.
    func terminalSettings() throws(Errno) -> TerminalSettings {
        var settings = termios()
        _ = try retryingInterrupts { tcgetattr(rawValue, &settings) }
        return TerminalSettings(value: settings)
    }

    /// `tcsetattr(3)`, at once (`TCSANOW`).
    func setTerminalSettings(_ settings: TerminalSettings) throws(Errno) {
        var value = settings.value
        _ = try retryingInterrupts { tcsetattr(rawValue, TCSANOW, &value) }
    }

    /// The terminal's width in columns (`TIOCGWINSZ`), or `nil` when it cannot say.
    var terminalColumns: Int? {
        let columns = Int(reveille_terminal_columns(rawValue))
        return columns > 0 ? columns : nil
    }

    /// `read(2)` into `buffer`, EINTR retried: the byte count, 0 at the end, or `nil` on a failure.
    func readSome(into buffer: inout [UInt8]) -> Int? {
        let count = buffer.withUnsafeMutableBytes { try? read(into: $0, retryOnInterrupt: true) }
        return count
    }
}

/// `posix_spawn(3)` of a program, never through a shell: standard input from /dev/null, no
/// descriptor of the caller's above standard error (whatever was opened without
/// `O_CLOEXEC`: a lock, a bus socket), the signal mask and dispositions back to their
/// defaults (a GLib loop may block some), optionally in a session of its own.
package enum ProcessSpawn {
    /// Where the child's standard output and error go.
    package enum Output: Sendable {
        /// The caller's own (the agent's log).
        case inherited
        /// Appended to this file, created 0600.
        case file(FilePath)
        /// /dev/null.
        case discarded
    }

    /// Starts `arguments[0]` (an absolute path) with `arguments` and exactly `environment`;
    /// returns its PID.
    package static func start(_ arguments: [String], environment: [String: String],
                              output: Output = .discarded, newSession: Bool = false) throws(Errno) -> pid_t {
        guard let program = arguments.first else { throw .invalidArgument }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        withDefaultSignals(&attributes, flags: newSession ? reveille_posix_spawn_setsid : 0)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        switch output {
        case .inherited:
            break
        case .file(let path):
            posix_spawn_file_actions_addopen(&actions, 1, path.string, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        case .discarded:
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, program, &actions, &attributes, argv, envp)
        guard result == 0 else { throw Errno(rawValue: result) }
        return pid
    }

    /// Sets `attributes` so that the child starts with no signal blocked and each signal at its
    /// default, whatever the caller's threads block or handle; `flags`: more `POSIX_SPAWN_*`.
    package static func withDefaultSignals(_ attributes: inout posix_spawnattr_t, flags: Int16 = 0) {
        var all = sigset_t(), none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK) | flags)
    }

    /// Waits up to `seconds` for the child `pid` to exit (one wait on a pidfd; without one, a
    /// look every 0.05 s) and reaps it: its exit status (128 + the signal that ended it), or
    /// `nil` when it did not end in time, and was then killed and reaped.
    package static func exitStatus(of pid: pid_t, within seconds: Double) -> Int32? {
        let processDescriptor = reveille_pidfd_open(pid)
        defer { if processDescriptor >= 0 { _ = Glibc.close(processDescriptor) } }
        let deadline = SystemClock.bootTime + seconds
        var status: Int32 = 0
        while true {
            // Not a child of this process (or an error): nothing to tell.
            guard let reaped = try? retryingInterrupts({ waitpid(pid, &status, WNOHANG) }) else { return nil }
            if reaped == pid { break }
            let left = deadline - SystemClock.bootTime
            guard left > 0 else {
                kill(pid, SIGKILL)
                _ = try? retryingInterrupts { waitpid(pid, &status, 0) }
                return nil
            }
            var watched = [pollfd(fd: processDescriptor, events: Int16(POLLIN), revents: 0)]
            if processDescriptor >= 0 { _ = Glibc.poll(&watched, 1, Int32(left * 1000)) } else { SystemClock.pause(seconds: min(left, 0.05)) }
        }
        // The status word: the exit code in bits 8-15 when bits 0-6 (the signal) are 0.
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + status & 0x7f
    }

    /// `waitpid(2)` without waiting (`WNOHANG`): whether the child `pid` has exited, reaped
    /// now if so; throws when it is not a child of this process (`ECHILD`).
    package static func hasExited(_ pid: pid_t) throws(Errno) -> Bool {
        var status: Int32 = 0
        return try retryingInterrupts { waitpid(pid, &status, WNOHANG) } == pid
    }
}

/// This process's identity and its signals to others.
package enum CurrentProcess {
    /// The real user id (`getuid(2)`, which cannot fail).
    package static var userID: uid_t { getuid() }

    /// Ends the process with `status` at once (`_exit(2)`), standard I/O flushed first: no
    /// `atexit` handler or library destructor runs. A process whose GLib thread cannot be
    /// joined ends this way: `exit(3)` tore libX11 and libstdc++ down under that thread while
    /// GTK still used them, and the alert window crashed (SIGSEGV) on one ending in sixty.
    package static func exitNow(_ status: Int32) -> Never {
        fflush(nil)
        _exit(status)
    }

    /// This process's id (`getpid(2)`, which cannot fail).
    package static var id: pid_t { getpid() }

    /// Writes `text` to standard error whole (a message before any logger exists), EINTR retried;
    /// a standard error that is gone or full loses it.
    package static func writeToStandardError(_ text: String) {
        _ = try? FileDescriptor.standardError.writeAll(text.utf8)
    }

    /// `kill(2)` with SIGTERM: asks `pid` to end.
    package static func terminate(_ pid: pid_t) throws(Errno) {
        _ = try retryingInterrupts { kill(pid, SIGTERM) }
    }
}

/// The process's environment, one variable at a time (`getenv(3)`, `setenv(3)`, `unsetenv(3)`):
/// reading the whole of it as a dictionary cost a command about 0.3 ms before it could ask
/// anything. A change is safe only before any other thread starts (glibc's environment has no
/// lock against a reader), so only a program's first lines change it.
package enum EnvironmentVariable {
    /// The value of `name`, or `nil` when it is not set.
    package static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Sets `name` to `value`; where it is set already, only when `replacing`.
    package static func set(_ name: String, to value: String, replacing: Bool = true) {
        setenv(name, value, replacing ? 1 : 0)
    }

    /// Takes `name` out of the environment.
    package static func remove(_ name: String) {
        unsetenv(name)
    }
}

/// A local (`AF_UNIX`) stream socket, connected only to learn who serves it.
package enum LocalSocket {
    /// A socket's address: a path, or a name in the abstract namespace.
    package enum Address: Hashable, Sendable {
        case path(String)
        case abstract(String)

        /// As `NOTIFY_SOCKET` and D-Bus write one: a path, or `@name` for the abstract namespace.
        package init(_ text: String) { self = text.hasPrefix("@") ? .abstract(String(text.dropFirst())) : .path(text) }

        /// The `sockaddr_un` and its length; throws `ENAMETOOLONG` for an address it cannot hold.
        func socketAddress() throws(Errno) -> (sockaddr_un, socklen_t) {
            var socketAddress = sockaddr_un()
            socketAddress.sun_family = sa_family_t(AF_UNIX)
            let (bytes, offset): ([UInt8], Int) = switch self {
            case .path(let path): (Array(path.utf8), 0)
            case .abstract(let name): (Array(name.utf8), 1)
            }
            guard bytes.count + offset < MemoryLayout.size(ofValue: socketAddress.sun_path) else { throw .fileNameTooLong }
            withUnsafeMutableBytes(of: &socketAddress.sun_path) { raw in
                raw.copyBytes(from: [UInt8](repeating: 0, count: offset) + bytes)
            }
            // A path counts its terminating NUL; an abstract name is exactly its bytes after the NUL.
            return (socketAddress, socklen_t(MemoryLayout<sa_family_t>.size + offset + bytes.count + (offset == 0 ? 1 : 0)))
        }
    }

    /// The user id of the process serving `address` (`SO_PEERCRED` of a connection made and
    /// closed at once); throws `ENAMETOOLONG` for an address `sockaddr_un` cannot hold, or
    /// what `connect(2)` said (`ENOENT`, `ECONNREFUSED`: nobody listens).
    package static func serverUserID(_ address: Address) throws(Errno) -> uid_t {
        let descriptor = try retryingInterrupts { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        defer { _ = Glibc.close(descriptor) }
        var (socketAddress, length) = try address.socketAddress()
        // Not retried on EINTR: an interrupted connect goes on by itself, and a second call
        // would fail (EALREADY); a local socket's connect answers at once anyway.
        let connected = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, length) }
        }
        guard connected == 0 else { throw Errno(rawValue: errno) }
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }, which glibc declares only under _GNU_SOURCE.
        var credentials: (pid: pid_t, uid: uid_t, gid: gid_t) = (0, 0, 0)
        var size = socklen_t(MemoryLayout.size(ofValue: credentials))
        _ = try retryingInterrupts { getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &size) }
        return credentials.uid
    }
}

package extension FileDescriptor {
    /// Closes a descriptor another library handed over (a D-Bus reply's, as a raw number),
    /// ignoring a failure: there is nothing to do about it and the number is gone either way.
    static func closeHandedOver(_ rawValue: Int32) {
        try? FileDescriptor(rawValue: rawValue).close()
    }
}

/// A service manager's readiness protocol (systemd's `sd_notify`, which s6 and dinit speak too):
/// a process started with `NOTIFY_SOCKET` in its environment sends `READY=1` to that datagram
/// socket once it serves, so whoever started it waits for that, not polls.
package enum Readiness {
    /// Sends `state` (`READY=1`) as one datagram to the socket at `address`.
    package static func notify(_ state: String, to address: LocalSocket.Address) throws(Errno) {
        let descriptor = try retryingInterrupts { socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        defer { _ = Glibc.close(descriptor) }
        var (socketAddress, length) = try address.socketAddress()
        let bytes = Array(state.utf8)
        // Never waits: a listener whose queue is full is not worth stalling the sender for.
        _ = try retryingInterrupts {
            withUnsafePointer(to: &socketAddress) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT), $0, length)
                }
            }
        }
    }

    /// What a started process did while it was waited for.
    package enum Outcome: Equatable, Sendable {
        case ready, exited, timedOut
    }

    /// A datagram socket bound at `path` (mode 0600: only its user may write to it), where a
    /// process started with `NOTIFY_SOCKET=path` says it is ready; removed when it is let go.
    package final class Listener {
        package let path: String
        private let descriptor: Int32

        package init(path: String) throws(Errno) {
            let descriptor = try retryingInterrupts { socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
            unlink(path)
            do throws(Errno) {
                var (socketAddress, length) = try LocalSocket.Address.path(path).socketAddress()
                let bound = withUnsafePointer(to: &socketAddress) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
                guard bound == 0 else { throw Errno(rawValue: errno) }
                // Not through the umask, which is the whole process's (threads beside this one
                // create files too); the folder it is in is the user's alone (0700) meanwhile.
                guard chmod(path, 0o600) == 0 else { throw Errno(rawValue: errno) }
            } catch {
                _ = Glibc.close(descriptor)
                throw error
            }
            self.descriptor = descriptor
            self.path = path
        }

        deinit {
            _ = Glibc.close(descriptor)
            unlink(path)
        }

        /// Waits until the child `pid` says `READY=1` here, exits, or `seconds` pass: one wait on
        /// both (the socket and a pidfd), no polling. Reaps the child if it exited. Where the
        /// kernel gives no pidfd (before Linux 5.3, or a seccomp filter refusing it) the child
        /// is looked at every 0.1 s instead.
        package func waitForReady(of pid: pid_t, seconds: Double) throws(Errno) -> Outcome {
            let processDescriptor = reveille_pidfd_open(pid)
            defer { if processDescriptor >= 0 { _ = Glibc.close(processDescriptor) } }
            let deadline = SystemClock.bootTime + seconds
            while true {
                let left = deadline - SystemClock.bootTime
                guard left > 0 else { return .timedOut }
                if processDescriptor < 0, (try? ProcessSpawn.hasExited(pid)) != false { return .exited }
                var watched = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: processDescriptor, events: Int16(POLLIN), revents: 0)]
                let wait = processDescriptor < 0 ? min(left, 0.1) : left
                let ready = Glibc.poll(&watched, processDescriptor < 0 ? 1 : 2, Int32(min(wait * 1000, Double(Int32.max))))
                if ready < 0 {
                    guard errno == EINTR else { throw Errno(rawValue: errno) }
                    continue
                }
                if watched[0].revents & Int16(POLLERR | POLLNVAL) != 0 { throw .ioError }
                if watched[0].revents & Int16(POLLIN) != 0 {
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                    // One datagram, newline-separated assignments: READY=1 among them.
                    if count > 0, String(decoding: buffer[0..<count], as: UTF8.self).split(separator: "\n").contains("READY=1") { return .ready }
                    continue
                }
                if processDescriptor >= 0, watched[1].revents != 0 {
                    _ = try? ProcessSpawn.hasExited(pid)
                    return .exited
                }
            }
        }
    }
}
