import FoundationEssentials
import ReveilleModel
import ReveilleRules
import ReveilleWords

/// Which alarms show a quiet notice ahead of their time ("Wake up at 06:30", with Skip this
/// time), as Android's clock does, so a person already up can skip the ring without opening
/// anything. Pure: the alarms, the settings and the instant in, what to show, withdraw and when
/// to look again out; `UpcomingNotices` performs it.
///
/// A notice shows from `lead` before an occurrence until it rings, is skipped, changes or goes;
/// one the person closed does not come back for that occurrence. Timers never show one.
package struct UpcomingNoticePolicy: Sendable {
    package enum Effect: Equatable {
        /// Show (or update in place) the notice for the alarm.
        case show(UUID, NotificationContent)
        /// The alarm's notice goes.
        case withdraw(UUID)
        /// Look again at this instant (`nil`: nothing is ahead).
        case wake(at: Date?)
    }

    /// One occurrence of one alarm.
    package struct Occurrence: Hashable, Sendable {
        package var alarm: UUID
        package var fireDate: Date
    }

    package var which: AgentSettings.UpcomingNotice
    package var lead: TimeInterval
    /// What is on screen, by alarm: the occurrence and what it says.
    package private(set) var shown: [UUID: (occurrence: Occurrence, content: NotificationContent)] = [:]
    /// Occurrences whose notice the person closed: not shown again.
    private var closed: Set<Occurrence> = []

    package init(which: AgentSettings.UpcomingNotice, lead: TimeInterval) {
        (self.which, self.lead) = (which, lead)
    }

    /// Whether `record` opts in: an alarm (not a timer) on, waiting for its time, and for
    /// `wakeUp`, one that wakes the computer.
    package func optsIn(_ record: AlarmRecord) -> Bool {
        guard record.schedule != nil, record.state == .scheduled, !record.disabled, record.fireDate != nil else { return false }
        switch which {
        case .off: return false
        case .all: return true
        case .wakeUp: return record.ring.wakesMachine != false
        }
    }

    /// What to show and withdraw so that the notices match `alarms` at `now`, and when to look again.
    package mutating func reconcile(_ alarms: some Sequence<AlarmRecord>, now: Date, timeZone: any TimeZoneRules) -> [Effect] {
        var wanted: [UUID: (Occurrence, NotificationContent)] = [:]
        var nextWindow: Date?
        for record in alarms where optsIn(record) {
            guard let fireDate = record.fireDate, fireDate > now else { continue }
            let occurrence = Occurrence(alarm: record.id, fireDate: fireDate)
            let opens = fireDate.addingTimeInterval(-lead)
            if opens > now {
                if opens < nextWindow ?? .distantFuture { nextWindow = opens }
            } else if !closed.contains(occurrence) {
                wanted[record.id] = (occurrence, Self.content(record, fireDate: fireDate, timeZone: timeZone))
            }
        }
        var effects: [Effect] = []
        for (id, _) in shown.sorted(by: { $0.key.uuidString < $1.key.uuidString }) where wanted[id] == nil {
            shown[id] = nil
            effects.append(.withdraw(id))
        }
        for (id, (occurrence, content)) in wanted.sorted(by: { $0.key.uuidString < $1.key.uuidString }) {
            guard shown[id]?.occurrence != occurrence || shown[id]?.content != content else { continue }
            shown[id] = (occurrence, content)
            effects.append(.show(id, content))
        }
        // Forget closings once their occurrence has passed: the set stays as small as the alarms.
        closed = closed.filter { $0.fireDate > now }
        // A notice on screen goes when its alarm rings, which the alarm's change tells; the
        // next to look for is the earliest window that opens.
        effects.append(.wake(at: nextWindow))
        return effects
    }

    /// The person closed the alarm's notice: it does not come back for this occurrence.
    package mutating func closedByPerson(_ id: UUID) {
        guard let occurrence = shown.removeValue(forKey: id)?.occurrence else { return }
        closed.insert(occurrence)
    }

    /// The notification server went: nothing is on screen any more (shown again when asked).
    package mutating func serverLeft() {
        shown = [:]
    }

    /// The alarm's notice is gone though nobody closed it (it expired): shown again at the next look.
    package mutating func forget(_ id: UUID) {
        shown[id] = nil
    }

    /// "Wake up at 06:30", quiet, with Skip this time.
    package static func content(_ record: AlarmRecord, fireDate: Date, timeZone: any TimeZoneRules) -> NotificationContent {
        let title = record.title.isEmpty ? L("Alarm") : NotificationContent.displayable(record.title)
        return NotificationContent(upcoming: L("%@ at %@", title, NotificationContent.clock(fireDate, timeZone)),
                                   body: record.isRepeating ? L("Upcoming alarm. Already up? Skip this time; it rings again next time.")
                                       : L("Upcoming alarm. Already up? Skip it; it does not ring."),
                                   skipLabel: L("Skip this time"))
    }
}
