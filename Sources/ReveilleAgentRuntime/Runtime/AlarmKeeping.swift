import ReveilleLoop
import ReveilleModel
import ReveilleRules

/// Where the runtime keeps the alarms: loaded once at start, each change written before it is
/// answered. The composition root gives ReveilleCore's `AlarmStore` (a snapshot and a journal in
/// the state folder); the runtime itself opens no file.
@GLibActor
package protocol AlarmPersistence: AnyObject {
    /// Where the alarms are kept, for the log.
    var location: String { get }
    /// Every stored alarm that could be read.
    func load() -> [AlarmRecord]
    /// What the last `load` could not read, and where it kept the damaged parts.
    var damageOfLastLoad: StoreDamage { get }
    /// Throws when a change could not be written now.
    func checkWritable() throws
    /// Writes every alarm (a whole snapshot).
    func save(_ alarms: [AlarmRecord]) throws
    /// Writes `changes`, appended to the journal, or as the whole set `all` once they are made.
    func write(_ changes: [AlarmChange], alarmCount: Int, all: () -> [AlarmRecord]) throws
    /// Keeps `alarms` beside the store, never loaded again and never dropped unseen (those over
    /// the limits, in a store written by hand or by an older Reveille); returns where.
    func keepAside(_ alarms: [AlarmRecord], stamp: String) throws -> String
    /// What the engine last knew of the clock (what a set back passed over), kept across a restart.
    func loadClockMemory() -> AlarmEngine.ClockMemory
    func saveClockMemory(_ memory: AlarmEngine.ClockMemory) throws
    /// Where the clock's memory is kept, for the log.
    var clockMemoryLocation: String { get }
}

/// The damaged parts of a store that was read: left out, and kept aside where it could.
package struct StoreDamage: Sendable, Equatable {
    /// How many parts could not be read.
    package var damagedCount: Int
    /// Where the damaged files were kept.
    package var keptAside: [String]

    package init(damagedCount: Int = 0, keptAside: [String] = []) {
        (self.damagedCount, self.keptAside) = (damagedCount, keptAside)
    }
}

/// Where each occurrence that ended is kept (`reveille history`): ReveilleCore's `HistoryFile`.
@GLibActor
package protocol HistoryRecording: AnyObject {
    func append(_ entry: AlarmHistory.Entry)
}
