import FoundationEssentials
import Logging
import ReveilleRules
import SystemPackage

/// What the engine knows of the wall clock that a restart must not lose (`AlarmEngine.ClockMemory`),
/// in `clock.json` beside the alarms (`VersionedFile`'s rules: bounded read, atomic, 0600, an
/// unreadable file kept aside). Lost, nothing worse happens than before it existed: a start
/// ahead is not told from a machine that was off.
package struct ClockMemoryFile: Sendable {
    private let document: VersionedFile<Contents>
    package var file: FilePath { document.file }
    /// Entries kept at most: each is an alarm (so the alarm limits bound them already); a file
    /// written by hand with more is read up to this.
    package static let maximumEntries = 10_000

    package init(directory: FilePath, logger: Logger = Logger(label: "reveille.clock")) {
        document = VersionedFile(file: directory.appending("clock.json"), logger: logger)
    }

    struct Contents: VersionedDocument {
        static let formatVersion = 1
        var format = "reveille-clock"
        var version = formatVersion
        var lastSeen: Date?
        var passedOver: [AlarmEngine.PassedOver]
    }

    package func load() -> AlarmEngine.ClockMemory {
        guard let contents = document.load(whatIsLost: "a start with the clock ahead is not told from a machine that was off") else {
            return AlarmEngine.ClockMemory()
        }
        // Judged for sense: each entry names one alarm, as it was and what replaced it (the same alarm).
        let entries = contents.passedOver.prefix(Self.maximumEntries).filter { passed in passed.after.map { $0.id == passed.before.id } ?? true }
        let passedOver = Dictionary(entries.map { ($0.before.id, $0) }, uniquingKeysWith: { _, last in last })
        return AlarmEngine.ClockMemory(lastSeen: contents.lastSeen, passedOver: passedOver)
    }

    package func save(_ memory: AlarmEngine.ClockMemory) throws {
        let entries = memory.passedOver.values.sorted { $0.before.id.uuidString < $1.before.id.uuidString }
        try document.save(Contents(lastSeen: memory.lastSeen, passedOver: entries))
    }
}
