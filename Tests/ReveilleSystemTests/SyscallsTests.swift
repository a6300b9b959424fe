import Foundation
import ReveilleSystem
import SystemPackage
import Testing

/// The typed system calls: kinds and sizes read right, failures thrown as `Errno`, no `errno`
/// read by a caller.
@Suite("System calls")
struct SyscallsTests {
    let folder: FilePath

    init() throws {
        folder = FilePath(FileManager.default.temporaryDirectory.appendingPathComponent("reveille-sys-\(UUID())").path)
        try FileManager.default.createDirectory(atPath: folder.string, withIntermediateDirectories: true)
    }

    @Test func statusTellsKindAndSizeAndAMissingFileThrowsENOENT() throws {
        let file = folder.appending("file")
        try Data("12345".utf8).write(to: URL(fileURLWithPath: file.string))
        #expect(try file.status().kind == .regular)
        #expect(try file.status().size == 5)
        #expect(try folder.status().kind == .directory)
        #expect(throws: Errno.noSuchFileOrDirectory) { try folder.appending("missing").status() }
        // A link is followed unless asked not to.
        let link = folder.appending("link")
        try FileManager.default.createSymbolicLink(atPath: link.string, withDestinationPath: file.string)
        #expect(try link.status().kind == .regular)
        #expect(try link.status(followingLinks: false).kind == .other)
        #expect(try link.linkTarget() == file.string)
        // The same file through a descriptor and a path.
        let descriptor = try FileDescriptor.open(file, .readOnly)
        defer { try? descriptor.close() }
        #expect(try descriptor.status().identity == file.status().identity)
    }

    @Test func renameReplacesAndRemovingAMissingFileIsNoFailure() throws {
        let a = folder.appending("a"), b = folder.appending("b")
        try Data("new".utf8).write(to: URL(fileURLWithPath: a.string))
        try Data("old".utf8).write(to: URL(fileURLWithPath: b.string))
        try a.rename(to: b)
        #expect(try String(contentsOfFile: b.string, encoding: .utf8) == "new")
        try a.removeFile()
        try b.removeFile()
        #expect(throws: Errno.noSuchFileOrDirectory) { try a.rename(to: b) }
    }

    @Test func aWriteLockHeldElsewhereNamesItsHolder() throws {
        let file = folder.appending("lock")
        let mine = try FileDescriptor.open(file, .readWrite, options: [.create], permissions: .ownerReadWrite)
        defer { try? mine.close() }
        // Another process takes a POSIX record lock (lockf is fcntl's), says so, and holds it
        // until its standard input closes.
        let holder = Process(), said = Pipe(), hold = Pipe()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = ["-c", "import fcntl,sys; f=open(sys.argv[1],'r+'); fcntl.lockf(f, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.read()",
                            file.string]
        holder.standardOutput = said
        holder.standardInput = hold
        try holder.run()
        defer { try? hold.fileHandleForWriting.close(); holder.waitUntilExit() }
        #expect(String(decoding: said.fileHandleForReading.availableData, as: UTF8.self).hasPrefix("held"))
        #expect(try mine.tryWriteLock() == holder.processIdentifier)
        try hold.fileHandleForWriting.close()
        holder.waitUntilExit()
        #expect(try mine.tryWriteLock() == nil, "free once the holder is gone")
    }
}
