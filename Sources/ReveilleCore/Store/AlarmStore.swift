import Foundation
import Logging
import SystemPackage

/// The alarms on disk: one readable JSON file (`VersionedFile`'s rules: atomic, 0600,
/// an unreadable file kept aside and the store started empty).
public struct AlarmStore: Sendable {
    /// The format version this build writes and reads.
    public static let formatVersion = Contents.formatVersion

    private let document: VersionedFile<Contents>
    public var file: FilePath { document.file }

    public init(directory: FilePath, logger: Logger = Logger(label: "reveille.store")) {
        document = VersionedFile(file: directory.appending("alarms.json"), logger: logger)
    }

    struct Contents: VersionedDocument {
        static let formatVersion = 1
        var format = "reveille-alarms"
        var version = formatVersion
        var alarms: [AlarmRecord]
    }

    /// The stored alarms; an unreadable file is moved aside and none are returned.
    public func load() -> [AlarmRecord] {
        document.load(whatIsLost: "starting with no alarms")?.alarms ?? []
    }

    /// Replaces the stored alarms; when this returns, they survive a crash or power cut.
    public func save(_ alarms: [AlarmRecord]) throws {
        try document.save(Contents(alarms: alarms))
    }

    /// The file's bytes for `alarms`.
    static func encode(_ alarms: [AlarmRecord]) throws -> Data {
        try JSONCoding.encoder.encode(Contents(alarms: alarms))
    }
}
