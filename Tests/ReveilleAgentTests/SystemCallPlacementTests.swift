import Foundation
import Testing

/// Every raw system call is in ReveilleSystem (typed, EINTR retried, `Errno` thrown), as the
/// compiler made it: the object files of each module Reveille ships are read for the C
/// library's functions they call (their undefined symbols, `llvm-nm`), so a call is found
/// however it is spelled (`Glibc.write`, a bare `getenv`, a function reached through a
/// closure). swift-system's own calls are inside SystemPackage, which is not Reveille's code.
@Suite("System calls in one module")
struct SystemCallPlacementTests {
    /// The C library's system calls and environment functions: file, descriptor, process,
    /// terminal, signal mask, socket, sleep and environment. (`syscall` is not among them: the
    /// standard library's `Mutex` inlines its futex call into every module that locks one.)
    static let rawCalls: Set<String> = [
        "open", "open64", "openat", "openat64", "creat", "read", "write", "pread", "pread64", "pwrite", "pwrite64", "readv", "writev",
        "close", "dup", "dup2", "dup3", "pipe", "pipe2", "lseek", "lseek64", "ftruncate", "ftruncate64", "truncate",
        "stat", "stat64", "fstat", "fstat64", "lstat", "lstat64", "fstatat", "fstatat64", "statx", "access", "faccessat",
        "rename", "renameat", "renameat2", "unlink", "unlinkat", "link", "linkat", "symlink", "symlinkat", "readlink", "readlinkat",
        "mkdir", "mkdirat", "rmdir", "chmod", "fchmod", "fchmodat", "chown", "fchown", "opendir", "fdopendir", "readdir", "readdir64", "closedir",
        "fsync", "fdatasync", "flock", "fcntl", "fcntl64", "ioctl", "mmap", "mmap64", "munmap",
        "timerfd_create", "timerfd_settime", "timerfd_gettime", "clock_gettime", "clock_nanosleep", "nanosleep", "usleep", "sleep",
        "posix_spawn", "posix_spawnp", "fork", "vfork", "execv", "execve", "execvp", "waitpid", "waitid", "wait", "kill", "pidfd_open",
        "getpid", "getppid", "getuid", "geteuid", "getgid", "setsid", "pthread_sigmask", "sigprocmask", "sigaction", "signal",
        "tcgetattr", "tcsetattr", "isatty", "sysconf",
        "socket", "connect", "bind", "listen", "accept", "accept4", "getsockopt", "setsockopt", "send", "recv", "sendmsg", "recvmsg",
        "poll", "ppoll", "epoll_create1", "epoll_ctl", "epoll_wait",
        "getenv", "secure_getenv", "setenv", "unsetenv", "putenv", "clearenv",
    ]

    /// The debug build's folder: the test binary's (`.build/<triple>/debug`), where each
    /// module's objects are in `<module>.build`.
    static var buildFolder: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    }

    /// The C library's functions that the objects of `module` call, each with an object that does.
    static func rawCalls(of module: String, nm: String) throws -> [String: String] {
        let folder = buildFolder.appendingPathComponent(module.replacingOccurrences(of: "-", with: "_") + ".build")
        let objects = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".o") }.sorted()
        try #require(!objects.isEmpty, "no objects of \(module) in \(folder.path): is the debug build there?")
        var found: [String: String] = [:]
        for object in objects {
            let result = try run(nm, ["--undefined-only", "--format=just-symbols", folder.appendingPathComponent(object).path])
            for symbol in result.split(separator: "\n").map(String.init) where rawCalls.contains(symbol) && found[symbol] == nil {
                found[symbol] = object
            }
        }
        return found
    }

    static func run(_ program: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(program) \(arguments.joined(separator: " ")) failed")
        return String(decoding: data, as: UTF8.self)
    }

    /// The toolchain's llvm-nm, beside the `swift` on PATH (or /opt/swift's).
    static func nm() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH", default: ""].split(separator: ":").map(String.init) + ["/opt/swift/usr/bin"]
        let found = path.map { $0 + "/llvm-nm" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        return try #require(found, "reading the objects needs the Swift toolchain's llvm-nm, beside swift on PATH")
    }

    /// The modules of Sources/ that ship, but ReveilleSystem and the C libraries' module maps.
    static func shippedModules() throws -> [String] {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        return try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { name in
            name != "ReveilleSystem" && !FileManager.default.fileExists(atPath: sources.appendingPathComponent(name + "/module.modulemap").path)
        }.sorted()
    }

    @Test func rawSystemCallsAreOnlyInReveilleSystem() throws {
        let nm = try Self.nm()
        let modules = try Self.shippedModules()
        #expect(modules.count > 20 && modules.contains("ReveilleAgentRuntime") && modules.contains("reveille-app"), "the modules are found: \(modules)")
        for module in modules {
            for (call, object) in try Self.rawCalls(of: module, nm: nm).sorted(by: { $0.key < $1.key }) {
                Issue.record("\(module) (\(object)) calls \(call) itself; use ReveilleSystem's wrapper")
            }
        }
        // The rule sees calls where they are: ReveilleSystem's own.
        let own = try Self.rawCalls(of: "ReveilleSystem", nm: nm)
        #expect(["fsync", "timerfd_settime", "getenv", "waitpid"].allSatisfy { own[$0] != nil }, "ReveilleSystem's calls are seen: \(own.keys.sorted())")
    }
}
