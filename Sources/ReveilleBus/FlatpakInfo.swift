import Glibc
import ReveilleSystem
import SystemPackage

/// What a process's `/.flatpak-info` says of it, read as xdg-desktop-portal reads it
/// (`[Application] name=`), failing closed: a marker that exists but cannot be read whole,
/// or says no app, is `unreadable`, never "not sandboxed".
package enum FlatpakInfo: Equatable, Sendable {
    /// No marker: the process is not in a Flatpak sandbox.
    case absent
    /// The sandbox's app id.
    case app(String)
    /// A marker is there (or could not be looked for) but does not name an app: refuse the caller.
    case unreadable(String)

    /// A marker larger than this is not read (Flatpak writes a few hundred bytes).
    package static let maximumBytes = 64 << 10

    /// The marker of process `pid`, in its root folder (`/proc/PID/root`), which is opened first:
    /// a process whose root cannot be opened (exiting, or a zombie, which a sandboxed app can keep
    /// connected by not reaping the child that connected) is `unreadable`, never "not
    /// sandboxed" (its marker would then be missing only because its root is gone).
    package static func of(pid: Int32) -> FlatpakInfo {
        let root: FileDescriptor
        do {
            root = try FileDescriptor.openFolder(FilePath("/proc/\(pid)/root"))
        } catch {
            return .unreadable("the root folder of process \(pid) cannot be opened (it is exiting, or gone): \(error)")
        }
        defer { try? root.close() }
        return read(name: ".flatpak-info", in: root, shownAs: "/proc/\(pid)/root/.flatpak-info")
    }

    /// Reads the marker at `path` (for tests and fuzzing: a marker outside a process's root).
    package static func read(path: String) -> FlatpakInfo {
        let file = FilePath(path)
        guard let name = file.lastComponent?.string, let folder = try? FileDescriptor.openFolder(file.removingLastComponent()) else {
            return .unreadable("\(path)'s folder cannot be opened")
        }
        defer { try? folder.close() }
        return read(name: name, in: folder, shownAs: path)
    }

    /// Reads the marker `name` in `folder`: opened without following a last symlink and without
    /// blocking (a FIFO cannot hold the agent), checked to be a regular file within
    /// `maximumBytes`, read whole.
    private static func read(name: String, in folder: FileDescriptor, shownAs path: String) -> FlatpakInfo {
        let descriptor: FileDescriptor
        do {
            descriptor = try folder.openBeneath(name)
        } catch {
            return error == .noSuchFileOrDirectory ? .absent : .unreadable("\(path) cannot be opened: \(error)")
        }
        defer { try? descriptor.close() }
        guard let status = try? descriptor.status(), status.kind == .regular else {
            return .unreadable("\(path) is not a regular file")
        }
        guard status.size <= maximumBytes else {
            return .unreadable("\(path) is \(status.size) bytes; at most \(maximumBytes) are read")
        }
        var bytes = [UInt8](repeating: 0, count: maximumBytes + 1)
        var count = 0
        do {
            while count < bytes.count {
                let got = try bytes.withUnsafeMutableBytes { try descriptor.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[count...])) }
                if got == 0 { break }
                count += got
            }
        } catch {
            return .unreadable("\(path) could not be read: \(error)")
        }
        guard count <= maximumBytes else { return .unreadable("\(path) grew past \(maximumBytes) bytes while it was read") }
        return parse(bytes.prefix(count))
    }

    /// The marker's contents: its `[Application] name`, which must look like an app id.
    package static func parse(_ bytes: some Collection<UInt8>) -> FlatpakInfo {
        guard let file = KeyFile(bytes: bytes) else { return .unreadable("/.flatpak-info is not a key file") }
        guard let name = file.string("Application", "name") else {
            return .unreadable("/.flatpak-info names no app ([Application] name=)")
        }
        guard name.utf8.count <= 255, !name.isEmpty, !name.contains(".."),
              name.utf8.allSatisfy({ $0 < 128 && (isalnum(Int32($0)) != 0 || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")) }) else {
            return .unreadable("/.flatpak-info names an app id that is not one")
        }
        return .app(name)
    }
}
