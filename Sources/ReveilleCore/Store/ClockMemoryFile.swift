import FoundationEssentials
import Logging
import ReveilleModel
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
        return Self.judged(contents)
    }

    /// What `load` makes of a file's bytes; `nil` when it is not a file this build reads (which
    /// `load` keeps aside).
    package static func memory(decoding data: Data) -> AlarmEngine.ClockMemory? {
        (try? VersionedFile<Contents>.decode(data)).map(judged)
    }

    /// Judged for sense: what a set forward leaves is an alarm it made late (waiting or counting
    /// down, on) and what replaced it, the same alarm (id, owner, configuration: only where it
    /// stands changes), or nothing (it ended). A set back puts `before` in `after`'s place.
    private static func makesSense(_ passed: AlarmEngine.PassedOver) -> Bool {
        let before = passed.before
        guard before.state == .scheduled || before.state == .countdown, !before.disabled else { return false }
        guard let after = passed.after else { return true }
        return after.id == before.id && after.appID == before.appID && after.request == before.request
    }

    private static func judged(_ contents: Contents) -> AlarmEngine.ClockMemory {
        let entries = contents.passedOver.prefix(Self.maximumEntries).filter(makesSense)
        let passedOver = Dictionary(entries.map { ($0.before.id, $0) }, uniquingKeysWith: { _, last in last })
        return AlarmEngine.ClockMemory(lastSeen: contents.lastSeen, passedOver: passedOver)
    }

    package func save(_ memory: AlarmEngine.ClockMemory) throws {
        let entries = memory.passedOver.values.sorted { $0.before.id.uuidString < $1.before.id.uuidString }
        try document.save(Contents(lastSeen: memory.lastSeen, passedOver: entries))
    }
}
