import Foundation
import Logging
import SystemPackage

/// The user's decisions per app, in `$XDG_CONFIG_HOME/reveille/authorizations.json`
/// (mode 0600, atomic writes; an unreadable file is kept aside like the alarm store's).
public struct AuthorizationStore: Sendable {
    public static let formatVersion = 1
    public let file: FilePath
    private let logger: Logger

    public init(directory: FilePath, logger: Logger = Logger(label: "reveille.authorizations")) {
        file = directory.appending("authorizations.json")
        self.logger = logger
    }

    private struct Contents: Codable {
        var format = "reveille-authorizations"
        var version: Int
        var apps: [AppAuthorization]
    }

    public func load() -> [String: AppAuthorization] {
        guard let data = FileManager.default.contents(atPath: file.string) else { return [:] }
        do {
            let contents = try JSONCoding.decoder.decode(Contents.self, from: data)
            guard contents.version <= Self.formatVersion else {
                throw StoreError("it was written by a newer Reveille (format version \(contents.version))")
            }
            return Dictionary(contents.apps.map { ($0.appID, $0) }, uniquingKeysWith: { _, last in last })
        } catch {
            let aside = FilePath(file.string + ".unreadable-\(ISO8601Local.compactStamp(Date()))")
            try? FileManager.default.moveItem(atPath: file.string, toPath: aside.string)
            logger.error("\(file) could not be read (\((error as? StoreError)?.text ?? "\(error)")); kept as \(aside); every app is undecided again")
            return [:]
        }
    }

    public func save(_ apps: [String: AppAuthorization]) throws {
        try AtomicFile.makePrivateDirectory(file.removingLastComponent())
        let contents = Contents(version: Self.formatVersion, apps: apps.values.sorted { $0.appID < $1.appID })
        try AtomicFile.write(try JSONCoding.encoder.encode(contents), to: file)
    }
}
