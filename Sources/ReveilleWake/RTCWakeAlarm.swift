import Glibc
import SystemPackage

/// The RTC's wake alarm as Linux exposes it: `/sys/class/rtc/rtcN/wakealarm`, seconds since
/// 1970 (UTC), `0` to clear. Chosen over a `CLOCK_REALTIME_ALARM` timer because the RTC keeps
/// the wake-up through the suspend without a process holding it (the helper exits when idle),
/// and `rtcwake -m show` and `cat wakealarm` show it to a person checking.
package struct RTCWakeAlarm: Sendable {
    /// The RTC's sysfs folder, such as `/sys/class/rtc/rtc0`.
    package let folder: FilePath

    package init(folder: FilePath) {
        self.folder = folder
    }

    var file: FilePath { folder.appending("wakealarm") }

    /// Sets the wake-up to `instant` (seconds since 1970) if `WakeRequest` accepts it at `now`,
    /// the moment of writing: a check made earlier (before polkit answered, which may take
    /// minutes) could let a past instant through. The old one is cleared first, as the kernel
    /// refuses to replace an armed alarm. Throws `WakeRequest.Refusal` for a refused instant.
    package func set(_ instant: UInt64, now: Int64) throws {
        let instant = try WakeRequest.validate(instant, now: now).get()
        try write("0\n")
        try write("\(instant)\n")
    }

    /// Clears the wake-up.
    package func clear() throws {
        try write("0\n")
    }

    /// The wake-up set now, 0 for none.
    package func current() throws -> UInt64 {
        let descriptor = try open(.readOnly)
        defer { try? descriptor.close() }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = try buffer.withUnsafeMutableBytes { try descriptor.read(into: $0) }
        let text = String(decoding: buffer.prefix(count), as: UTF8.self).filter { $0.isNumber }
        return UInt64(text) ?? 0
    }

    /// Writes `text` to the wakealarm file, which must already exist (sysfs makes it; nothing
    /// is created) and is never followed through a symbolic link.
    private func write(_ text: String) throws {
        let descriptor = try open(.writeOnly)
        defer { try? descriptor.close() }
        _ = try descriptor.writeAll(Array(text.utf8))
    }

    private func open(_ mode: FileDescriptor.AccessMode) throws -> FileDescriptor {
        // Truncating does nothing to sysfs, and keeps a stand-in file (tests) readable.
        try FileDescriptor.open(file, mode, options: mode == .writeOnly ? [.noFollow, .closeOnExec, .truncate] : [.noFollow, .closeOnExec])
    }
}
