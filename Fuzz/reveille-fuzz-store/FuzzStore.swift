import FoundationEssentials
import ReveilleCore
import ReveilleFuzzSupport
import ReveilleRules

/// The store's bytes as the agent loads them (`AlarmStore.decode`, the code `load` runs on the
/// files), then what the agent does first with each alarm (advance it to now, reschedule it,
/// write it back): a damaged or hostile file loses what it damaged and never traps. Input: the
/// snapshot, a NUL byte, the journal.
@main enum FuzzStore {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func main() {
        FuzzTarget.main { bytes in
            let split = bytes.firstIndex(of: 0) ?? bytes.endIndex
            let decoded = AlarmStore.decode(snapshot: bytes[..<split], journal: bytes[split...].dropFirst())
            precondition(Set(decoded.alarms.map(\.id)).count == decoded.alarms.count, "one alarm loaded twice")
            let zone = UTCTimeZone()
            for record in decoded.alarms {
                _ = record.advanced(to: now, lateWindow: 600, timeZone: zone)
                _ = record.rescheduled(now: now, timeZone: zone)
                _ = try? JSONCoding.compactEncoder.encode(record)
            }
        }
    }
}
