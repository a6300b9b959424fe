import FoundationEssentials

/// A process's name as the kernel keeps it (`/proc/PID/comm`, at most 15 bytes): who holds a
/// bus name, said in the log and in `reveille status`.
enum ProcessName {
    static func of(_ pid: Int32) -> String? {
        guard pid > 0, let data = FileManager.default.contents(atPath: "/proc/\(pid)/comm") else { return nil }
        return String(decoding: data.prefix(64), as: UTF8.self).split(separator: "\n").first.map(String.init)
    }
}
