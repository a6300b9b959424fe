import FoundationEssentials
import Logging
import ReveilleModel
import SystemPackage

/// The user's decisions per app, in `$XDG_CONFIG_HOME/reveille/authorizations.json`
/// (`VersionedFile`'s rules: atomic, 0600, an unreadable file kept aside).
package struct AuthorizationStore: Sendable {
    private let document: VersionedFile<Contents>
    package var file: FilePath { document.file }

    package init(directory: FilePath, logger: Logger = Logger(label: "reveille.authorizations")) {
        document = VersionedFile(file: directory.appending("authorizations.json"), logger: logger)
    }

    struct Contents: VersionedDocument {
        static let formatVersion = 1
        var format = "reveille-authorizations"
        var version = formatVersion
        var apps: [AppAuthorization]
    }

    package func load() -> [String: AppAuthorization] {
        let apps = document.load(whatIsLost: "every app is undecided again")?.apps ?? []
        return Dictionary(apps.map { ($0.appID, $0) }, uniquingKeysWith: { _, last in last })
    }

    package func save(_ apps: [String: AppAuthorization]) throws {
        try document.save(Contents(apps: apps.values.sorted { $0.appID < $1.appID }))
    }
}
