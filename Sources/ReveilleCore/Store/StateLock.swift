import FoundationEssentials
import SystemPackage
#if canImport(Glibc)
import Glibc
import ReveilleSystem
#endif

/// An exclusive hold on the state folder, so that only one agent reads and writes the alarms
/// (two agents on two buses with one `XDG_STATE_HOME` would ring every alarm twice and lose
/// each other's changes). A POSIX record lock on `agent.lock`: the kernel drops it when the
/// process ends, however it ends.
///
/// A folder that cannot hold that file (read-only, full of inodes, missing and not creatable,
/// a file, a dangling link) must not keep the agent from ringing what it loaded: the lock is
/// then taken on a file in `$XDG_RUNTIME_DIR` named after the folder's path. That folder is the
/// user's own, on tmpfs, always writable while the session lasts, and exists whatever the state
/// folder is; a lock on the folder itself (flock of a directory descriptor) would need the
/// folder to exist and would not exclude an agent holding `agent.lock`.
package final class StateLock: Sendable {
    private let descriptor: FileDescriptor
    /// The file locked.
    package let file: FilePath
    /// Why the state folder could not hold the lock, when the runtime folder's was taken instead.
    package let folderProblem: String?

    /// Another process holds the folder.
    package struct Held: Error, CustomStringConvertible {
        package var holder: Int32
        package var directory: FilePath
        package var description: String {
            "another reveille-agent (process \(holder)) keeps its alarms in \(directory); stop it first (two agents would ring every alarm twice)"
        }
    }

    /// Takes the lock in `directory`, or, when the folder cannot hold one, in `runtimeDirectory`;
    /// throws `Held` naming the process that has it, or the folder's error when neither can be taken.
    package convenience init(directory: FilePath, runtimeDirectory: FilePath?) throws {
        do {
            try AtomicFile.makePrivateDirectory(directory)
            try self.init(file: directory.appending("agent.lock"), directory: directory, folderProblem: nil)
        } catch let held as Held {
            throw held
        } catch {
            guard let runtimeDirectory else { throw error }
            let folder = runtimeDirectory.appending("reveille")
            // A path's own hash (FNV-1a), the same in every process: Swift's `Hasher` is seeded per process.
            let hash = directory.lexicallyNormalized().string.utf8.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
            try AtomicFile.makePrivateDirectory(folder)
            try self.init(file: folder.appending("state-\(String(hash, radix: 16)).lock"), directory: directory,
                          folderProblem: "\(error)")
        }
    }

    /// Takes a whole-file write lock on `file` (`fcntl(F_SETLK)`), or throws `Held` naming the
    /// process that has it (`F_GETLK`).
    private init(file: FilePath, directory: FilePath, folderProblem: String?) throws {
        self.file = file
        self.folderProblem = folderProblem
        descriptor = try FileDescriptor.open(file, .readWrite, options: [.create, .noFollow, .closeOnExec],
                                             permissions: [.ownerRead, .ownerWrite])
        let holder: Int32?
        do { holder = try descriptor.tryWriteLock() } catch {
            try? descriptor.close()
            throw error
        }
        if let holder {
            try? descriptor.close()
            throw Held(holder: holder, directory: directory)
        }
    }

    deinit { try? descriptor.close() }
}
