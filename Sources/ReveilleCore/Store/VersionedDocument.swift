import FoundationEssentials
import Logging
import ReveilleRules
import ReveilleSystem
import SystemPackage

/// A JSON document on disk with a format name and version, such as the alarm store.
package protocol VersionedDocument: Codable {
    static var formatVersion: Int { get }
    var version: Int { get }
}

/// Reads and writes one `VersionedDocument`: atomic writes, mode 0600 in a 0700 folder; a
/// file that cannot be read (corrupt, truncated, from a newer version) is moved aside under
/// a new name (never overwritten, never deleted) and reported in one log line.
struct VersionedFile<Document: VersionedDocument>: Sendable {
    let file: FilePath
    let logger: Logger

    private struct VersionProbe: Decodable { var version: Int }

    /// The document, or `nil` when there is none or it was unreadable (and moved aside).
    func load(whatIsLost: String) -> Document? {
        let data: Data
        do {
            guard let read = try StoredFile.read(file) else { return nil }
            data = read
        } catch {
            return keepAside(reason: error.text, whatIsLost: whatIsLost)
        }
        do {
            return try Self.decode(data)
        } catch {
            return keepAside(reason: error.text, whatIsLost: whatIsLost)
        }
    }

    /// The document in `data`; throws why it is not one this build reads.
    static func decode(_ data: Data) throws(StoreError) -> Document {
        if let probe = try? JSONCoding.decoder.decode(VersionProbe.self, from: data), probe.version > Document.formatVersion {
            throw StoreError("it was written by a newer Reveille (format version \(probe.version); this one reads \(Document.formatVersion))")
        }
        do { return try JSONCoding.decoder.decode(Document.self, from: data) } catch { throw StoreError(describe(error)) }
    }

    private func keepAside(reason: String, whatIsLost: String) -> Document? {
        do {
            let aside = try StoredFile.moveAside(file)
            logger.error("\(file.string) could not be read (\(reason)); kept as \(aside.string); \(whatIsLost)")
        } catch {
            logger.error("\(file.string) could not be read (\(reason)) nor moved aside (\(error)); \(whatIsLost)")
        }
        return nil
    }

    func save(_ document: Document) throws {
        try AtomicFile.makePrivateDirectory(file.removingLastComponent())
        try AtomicFile.write(try JSONCoding.encoder.encode(document), to: file)
    }

    static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context):
            return context.underlyingError.map { "not valid JSON: \(String(describing: $0))" } ?? context.debugDescription
        case DecodingError.keyNotFound(let key, let context):
            return "missing \(key.stringValue) at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "\(context.debugDescription) at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        default:
            return "\(error)"
        }
    }
}

package struct StoreError: Error, CustomStringConvertible {
    package var text: String
    package init(_ text: String) { self.text = text }
    package var description: String { text }
}

/// Reads a stored file in bounded memory, without ever blocking: only a regular file (a FIFO
/// put in its place would block the read for ever) of at most `maximumBytes`, more than any
/// store within Reveille's limits can reach.
package enum StoredFile {
    package static let maximumBytes = 256 << 20
    /// The size of the pieces `stream` reads.
    static let chunkBytes = 64 << 10

    /// The file's bytes; `nil` when there is no file; throws why it cannot be one of ours.
    package static func read(_ path: FilePath, maximumBytes: Int = maximumBytes) throws(StoreError) -> Data? {
        var data = Data()
        let found = try stream(path, maximumBytes: maximumBytes) { chunk in
            data.append(contentsOf: chunk)
            return true
        }
        return found ? data : nil
    }

    /// Renames `file` to a new `.unreadable-STAMP-RANDOM` name beside it (see `keepCopyAside`).
    package static func moveAside(_ file: FilePath) throws -> FilePath {
        let aside = try keepCopyAside(file)
        try? file.removeFile()
        return aside
    }

    /// Gives `file`'s content a second, new name beside it, `.unreadable-STAMP-RANDOM`, mode
    /// 0600, never over another file: `link(2)` refuses an existing name atomically (no
    /// probe-then-rename race, and no probing one name after another). The original name stays,
    /// for an atomic rename to replace (the kept name then still holds the old content).
    package static func keepCopyAside(_ file: FilePath) throws -> FilePath {
        let stamp = ISO8601Local.compactStamp(Date())
        while true {
            let aside = FilePath(file.string + ".unreadable-\(stamp)-\(String(UInt32.random(in: .min ... .max), radix: 16))")
            do {
                try file.link(to: aside)
            } catch .fileExists {
                continue
            } catch {
                // A file system without hard links: a copy, after checking the name is free.
                guard !FileManager.default.fileExists(atPath: aside.string) else { continue }
                try FileManager.default.copyItem(atPath: file.string, toPath: aside.string)
            }
            try? aside.setPermissions([.ownerReadWrite])
            return aside
        }
    }

    /// Hands the file's bytes to `take` in pieces of `chunkBytes`, for as long as it returns
    /// `true`; returns `false` when there is no file (nor a folder for it); throws why it
    /// cannot be one of ours, or when it is larger than `maximumBytes`: by its size, or by what
    /// was read, since a file's size can say nothing of its length (a link to
    /// `/proc/self/pagemap` is a regular file of size 0 that never ends).
    @discardableResult
    static func stream(_ path: FilePath, maximumBytes: Int = maximumBytes,
                       _ take: (UnsafeRawBufferPointer) -> Bool) throws(StoreError) -> Bool {
        let handle: FileDescriptor
        do {
            handle = try FileDescriptor.open(path, .readOnly, options: [.nonBlocking, .closeOnExec, .noControllingTerminal],
                                             retryOnInterrupt: true)
        } catch Errno.noSuchFileOrDirectory, Errno.notDirectory {
            return false
        } catch {
            throw StoreError("it cannot be opened: \(error)")
        }
        defer { try? handle.close() }
        guard let status = try? handle.status(), status.kind == .regular else {
            throw StoreError("it is not a regular file")
        }
        let size = { (bytes: Int) in bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : "\(bytes) bytes" }
        if status.size > maximumBytes {
            throw StoreError("it is \(size(Int(status.size))), more than the \(size(maximumBytes)) any file of Reveille's can reach")
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkBytes, alignment: 1)
        defer { buffer.deallocate() }
        var read = 0
        while true {
            let count: Int
            do { count = try handle.read(into: buffer, retryOnInterrupt: true) } catch {
                throw StoreError("it cannot be read: \(error)")
            }
            read += count
            if read > maximumBytes {
                throw StoreError("it goes on past the \(size(maximumBytes)) any file of Reveille's can reach (it says it holds \(size(Int(status.size))))")
            }
            guard count > 0, take(UnsafeRawBufferPointer(rebasing: buffer[..<count])) else { return true }
        }
    }
}
