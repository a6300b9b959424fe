import FoundationEssentials
import ReveilleFuzzSupport
import ReveilleModel
import ReveilleRules

/// `Restore`'s judging of the record a caller sends back (`AlarmRecord(restoring:)`, after the
/// service decodes it as Get answers it): whatever arrives is refused or comes back as an
/// alarm the agent could have made itself, never a trap. It is the caller's, its own id and
/// configuration; it does not ring; a countdown or a pause is one the alarm could run (within
/// the longest countdown); what it waits for is the schedule's next occurrence (or, skipped,
/// the one after); nothing it remembers as come due lies ahead but that skipped occurrence;
/// it reads back from its JSON and restoring it again changes nothing. Input: the record's JSON.
@main enum FuzzRestore {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func main() {
        FuzzTarget.main { bytes in
            guard let old = try? JSONCoding.decoder.decode(AlarmRecord.self, from: Data(bytes)) else { return }
            let zone = UTCTimeZone()
            guard let restored = try? AlarmRecord(restoring: old, appID: "org.example.Caller", now: now, timeZone: zone) else { return }
            precondition(restored.id == old.id && restored.request == old.request && restored.appID == "org.example.Caller")
            precondition(restored.disabled == old.disabled)
            var skipped: Date?
            switch restored.phase {
            case .alerting:
                preconditionFailure("restored ringing: \(restored)")
            case .countdown(let until, let length, let elapsed):
                precondition(until > now && until.timeIntervalSince(now) <= length && length <= WireLimits.maximumCountdown,
                             "a countdown it could not run: \(restored.phase)")
                precondition((0...length).contains(elapsed ?? 0), "\(restored.phase)")
            case .paused(let remaining, let length):
                precondition(remaining > 0 && remaining <= length && length <= WireLimits.maximumCountdown, "\(restored.phase)")
            case .scheduled(let fireDate):
                let next = old.request.schedule?.nextFireDate(after: now, in: zone)
                if let fireDate, fireDate != next {
                    // Only a skip: the next occurrence passed over, the one after it awaited.
                    precondition(restored.lastOccurrence == next && next.flatMap { old.request.schedule?.nextFireDate(after: $0, in: zone) } == fireDate,
                                 "waits for \(fireDate), not the schedule's \(String(describing: next)): \(restored)")
                    skipped = next
                } else if fireDate == nil {
                    precondition(next == nil || restored.request.countdownDuration?.preAlert != nil, "waits for nothing: \(restored)")
                }
            }
            if let last = restored.lastOccurrence, last > now {
                precondition(last == skipped, "remembers \(last) as come due, ahead of now: \(restored)")
            }
            if let due = restored.dueDate { precondition(due > now, "due at once: \(restored)") }
            let text = try! JSONCoding.compactEncoder.encode(restored)
            precondition((try? JSONCoding.decoder.decode(AlarmRecord.self, from: text)) == restored, "does not read back: \(restored)")
            precondition((try? AlarmRecord(restoring: restored, appID: "org.example.Caller", now: now, timeZone: zone)) == restored,
                         "restored again, it changes: \(restored)")
        }
    }
}
