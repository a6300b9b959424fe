import Foundation
import Testing

/// Every raw system call is in ReveilleSystem (typed, EINTR retried, `Errno` thrown): a call
/// of the C library's file, terminal, process or signal-mask functions anywhere else fails
/// here, naming the file and the line.
@Suite("System calls in one module")
struct SystemCallPlacementTests {
    /// Calls of the C functions ReveilleSystem wraps, as they read outside it: a bare name
    /// (not a method), `stat`/`open` with their C arguments, `errno` read, or `Glibc.` spelled out.
    static let rawCall =
        #"(?:^|[^.\w])(fsync|fdatasync|flock|fcntl|fstat|lstat|timerfd_create|timerfd_settime|posix_spawn\w*|tcgetattr|tcsetattr|waitpid|pthread_sigmask|isatty|sysconf|clock_gettime|readlink|socket|getsockopt|setsockopt|unlink|link|chmod|kill|getuid|geteuid)\(|(?:^|[^.\w])errno\b|(?:^|[^.\w])stat\([^)]*&|(?:^|[^.\w])open\([^)]*O_[A-Z]|Glibc\.(open|read|write|close|stat)\("#

    @Test func rawSystemCallsAreOnlyInReveilleSystem() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let files = try FileManager.default.subpathsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 100, "the sources are found")
        let rawCall = try Regex(Self.rawCall)
        var wrapped = 0
        for file in files {
            let lines = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8).split(separator: "\n")
            for (number, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                guard line.contains(rawCall) else { continue }
                if file.hasPrefix("ReveilleSystem/") { wrapped += 1; continue }
                Issue.record("\(file):\(number + 1) calls the C library itself; use ReveilleSystem's wrapper: \(line)")
            }
        }
        #expect(wrapped > 10, "the rule sees ReveilleSystem's own calls")
    }
}
