import FoundationEssentials
import Logging
import SystemPackage

/// A JSON document on disk with a format name and version, such as the alarm store.
public protocol VersionedDocument: Codable {
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
        guard let data = FileManager.default.contents(atPath: file.string) else { return nil }
        do {
            if let probe = try? JSONCoding.decoder.decode(VersionProbe.self, from: data), probe.version > Document.formatVersion {
                throw StoreError("it was written by a newer Reveille (format version \(probe.version); this one reads \(Document.formatVersion))")
            }
            return try JSONCoding.decoder.decode(Document.self, from: data)
        } catch {
            let reason = (error as? StoreError)?.text ?? Self.describe(error)
            do {
                let aside = try Self.moveAside(file)
                logger.error("\(file.string) could not be read (\(reason)); kept as \(aside.string); \(whatIsLost)")
            } catch {
                logger.error("\(file.string) could not be read (\(reason)) nor moved aside (\(error)); \(whatIsLost)")
            }
            return nil
        }
    }

    func save(_ document: Document) throws {
        try AtomicFile.makePrivateDirectory(file.removingLastComponent())
        try AtomicFile.write(try JSONCoding.encoder.encode(document), to: file)
    }

    /// Renames `file` to a new `.unreadable-STAMP` name beside it, never over another file.
    static func moveAside(_ file: FilePath) throws -> FilePath {
        let stamp = ISO8601Local.compactStamp(Date())
        var attempt = 0
        while true {
            let aside = FilePath(file.string + ".unreadable-\(stamp)\(attempt == 0 ? "" : "-\(attempt)")")
            if !FileManager.default.fileExists(atPath: aside.string) {
                try FileManager.default.moveItem(atPath: file.string, toPath: aside.string)
                return aside
            }
            attempt += 1
        }
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

struct StoreError: Error { var text: String; init(_ text: String) { self.text = text } }
