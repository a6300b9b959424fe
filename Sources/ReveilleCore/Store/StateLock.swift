import FoundationEssentials
import SystemPackage
#if canImport(Glibc)
import Glibc
#endif

/// An exclusive hold on the state folder, so that only one agent reads and writes the alarms
/// (two agents on two buses with one `XDG_STATE_HOME` would ring every alarm twice and lose
/// each other's changes). A POSIX record lock on `agent.lock`: the kernel drops it when the
/// process ends, however it ends.
package final class StateLock: Sendable {
    private let descriptor: FileDescriptor

    /// Another process holds the folder.
    package struct Held: Error, CustomStringConvertible {
        package var holder: Int32
        package var directory: FilePath
        package var description: String {
            "another reveille-agent (process \(holder)) keeps its alarms in \(directory); stop it first (two agents would ring every alarm twice)"
        }
    }

    /// Takes the lock (`fcntl(F_SETLK)` of a whole-file write lock), or throws `Held`
    /// naming the process that has it (`F_GETLK`).
    package init(directory: FilePath) throws {
        try AtomicFile.makePrivateDirectory(directory)
        let file = directory.appending("agent.lock")
        descriptor = try FileDescriptor.open(file, .readWrite, options: [.create, .noFollow, .closeOnExec],
                                             permissions: [.ownerRead, .ownerWrite])
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        guard fcntl(descriptor.rawValue, F_SETLK, &lock) == 0 else {
            let failure = errno
            defer { try? descriptor.close() }
            guard failure == EAGAIN || failure == EACCES else { throw Errno(rawValue: failure) }
            var probe = flock()
            probe.l_type = Int16(F_WRLCK)
            probe.l_whence = Int16(SEEK_SET)
            _ = fcntl(descriptor.rawValue, F_GETLK, &probe)
            throw Held(holder: probe.l_pid, directory: directory)
        }
    }

    deinit { try? descriptor.close() }
}
