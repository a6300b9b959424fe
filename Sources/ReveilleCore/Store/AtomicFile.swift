import FoundationEssentials
import SystemPackage
#if canImport(Glibc)
import Glibc
import ReveilleSystem
#endif

/// Replaces a file's content so that a crash at any point leaves either the old or the
/// new content: write a temporary file, fsync it, rename it over the target, fsync the folder.
///
/// Kept rather than GLib's `g_file_set_contents_full(CONSISTENT | DURABLE)`: the store also
/// appends to a journal and needs the same typed errors (naming the file) for both, and the
/// temporary name is fixed and opened `O_EXCL | O_NOFOLLOW` after unlinking a stale one, so a
/// crash leaves no trail of random temporary files in the state folder.
package enum AtomicFile {
    /// The points between the steps of a write, where a test can simulate a crash.
    package enum Step: CaseIterable, Sendable {
        case createdTemporary, wrotePart, wroteAll, syncedTemporary, renamed
    }

    /// Writes `data` to `path` with mode 0600. `continueAfter` is for tests: returning
    /// `false` stops the write at that step and leaves everything as a crash would.
    package static func write(_ data: Data, to path: FilePath,
                             continueAfter: (Step) -> Bool = { _ in true }) throws {
        let temporary = FilePath(path.string + ".tmp")
        // A new file of our own, never one found there: a crash may have left one, and a link
        // planted there must not make us write (and chmod) a file elsewhere. Close-on-exec: a
        // process started meanwhile (a sound, an intent) must not keep it open (and its file
        // system busy).
        try temporary.removeFile()
        let descriptor = try FileDescriptor.open(
            temporary, .writeOnly, options: [.create, .exclusiveCreate, .noFollow, .closeOnExec],
            permissions: [.ownerRead, .ownerWrite])
        var renamed = false
        defer { if !renamed { try? FileDescriptor.close(descriptor)(); try? temporary.removeFile() } }
        // Whatever the umask.
        try descriptor.setPermissions([.ownerRead, .ownerWrite])
        guard continueAfter(.createdTemporary) else { renamed = true; return }
        let half = data.count / 2
        _ = try descriptor.writeAll(data.prefix(half))
        guard continueAfter(.wrotePart) else { renamed = true; return }
        _ = try descriptor.writeAll(data.dropFirst(half))
        guard continueAfter(.wroteAll) else { renamed = true; return }
        try descriptor.sync()
        guard continueAfter(.syncedTemporary) else { renamed = true; return }
        try descriptor.close()
        try temporary.rename(to: path)
        renamed = true
        guard continueAfter(.renamed) else { return }
        do { try syncDirectory(containing: path) } catch { throw RenamedButNotSynced(underlying: error) }
    }

    /// The new content is in place (a restart reads it), but a power cut may still lose it.
    package struct RenamedButNotSynced: Error {
        package var underlying: any Error
    }

    /// fsync(2) of the folder, so the rename itself survives a power cut.
    static func syncDirectory(containing path: FilePath) throws {
        let directory = try FileDescriptor.open(folder(of: path), .readOnly, options: [.directory, .closeOnExec])
        defer { try? directory.close() }
        try directory.sync()
    }

    /// The folder that holds `path`: "." for a bare name (`out.ics`), whose folder part is empty
    /// (opening "" had failed with ENOENT after the file was written).
    package static func folder(of path: FilePath) -> FilePath {
        let folder = path.removingLastComponent()
        return folder.isEmpty ? "." : folder
    }

    /// Creates `path` and its parents with mode 0700 if missing, and tightens an existing one.
    package static func makePrivateDirectory(_ path: FilePath) throws {
        try FileManager.default.createDirectory(atPath: path.string, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try path.setPermissions(.ownerReadWriteExecute)
    }
}

private extension FileDescriptor {
    // `close()` as a value, for `defer` blocks that must not throw.
    static func close(_ descriptor: FileDescriptor) -> () throws -> Void { { try descriptor.close() } }
}
