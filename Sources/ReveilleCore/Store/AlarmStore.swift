import Foundation
import Logging
import SystemPackage

/// The alarms on disk: one readable JSON file, written atomically, mode 0600.
///
/// A file that cannot be read (corrupt, truncated, or from a newer Reveille) is moved
/// aside under a new name, never overwritten or deleted, and the store starts empty.
public struct AlarmStore: Sendable {
    /// The format version this build writes and reads.
    public static let formatVersion = 1

    public let file: FilePath
    private let logger: Logger

    public init(directory: FilePath, logger: Logger = Logger(label: "reveille.store")) {
        file = directory.appending("alarms.json")
        self.logger = logger
    }

    private struct Contents: Codable {
        var format = "reveille-alarms"
        var version: Int
        var alarms: [AlarmRecord]
    }

    private struct VersionProbe: Decodable { var version: Int }

    /// The stored alarms; an unreadable file is moved aside (see the type's comment).
    public func load() -> [AlarmRecord] {
        guard let data = FileManager.default.contents(atPath: file.string) else { return [] }
        do {
            if let probe = try? JSONCoding.decoder.decode(VersionProbe.self, from: data),
               probe.version > Self.formatVersion {
                throw StoreError("it was written by a newer Reveille (format version \(probe.version); this one reads \(Self.formatVersion))")
            }
            return try JSONCoding.decoder.decode(Contents.self, from: data).alarms
        } catch {
            let reason = (error as? StoreError)?.text ?? Self.describe(error)
            do {
                let aside = try moveAside()
                logger.error("\(file.string) could not be read (\(reason)); kept as \(aside.string); starting with no alarms")
            } catch {
                logger.error("\(file.string) could not be read (\(reason)) nor moved aside (\(error)); starting with no alarms")
            }
            return []
        }
    }

    /// Replaces the stored alarms; when this returns, they survive a crash or power cut.
    public func save(_ alarms: [AlarmRecord]) throws {
        try AtomicFile.makePrivateDirectory(file.removingLastComponent())
        try AtomicFile.write(try Self.encode(alarms), to: file)
    }

    /// The file's bytes for `alarms`.
    static func encode(_ alarms: [AlarmRecord]) throws -> Data {
        try JSONCoding.encoder.encode(Contents(version: formatVersion, alarms: alarms))
    }

    private func moveAside() throws -> FilePath {
        let stamp = ISO8601Local.compactStamp(Date())
        var attempt = 0
        while true {
            let suffix = attempt == 0 ? "" : "-\(attempt)"
            let aside = FilePath(file.string + ".unreadable-\(stamp)\(suffix)")
            if !FileManager.default.fileExists(atPath: aside.string) {
                try FileManager.default.moveItem(atPath: file.string, toPath: aside.string)
                return aside
            }
            attempt += 1
        }
    }

    private static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context):
            return context.underlyingError.map { "not valid JSON: \($0.localizedDescription)" } ?? context.debugDescription
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
