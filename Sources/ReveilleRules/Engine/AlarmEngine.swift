import FoundationEssentials
import ReveilleModel

/// The agent's alarms and every rule that moves them, as a value: events in, effects out.
///
/// It reads no clock, writes no file and speaks to no bus. Its caller (the agent's
/// `AgentRuntime`) passes the time in, performs the effects in order, and tells it when a
/// client's change reached the disk (`commit`). So every rule (limits, ownership, the late
/// window, ring limits, clock jumps, what a button does) is tested in-process with virtual time.
package struct AlarmEngine: Sendable {
    package struct Settings: Sendable {
        /// An alert due longer ago than this (agent down, machine suspended) is reported
        /// as missed instead of ringing hours late.
        package var lateWindow: TimeInterval = 600
        /// How many alarms one app may have (AlarmKit's `maximumLimitReached`).
        package var limitPerApp = 100
        /// How many alarms the user's own tools (`reveille`, `gdbus`) may have.
        package var limitForUser = 10_000
        /// How many alarms the sync may take from other machines, beside the user's own
        /// (they are the user's alarms too: the sync keeps to this many, so a collection of
        /// 10,000 events never leaves the user's tools without room).
        package var limitForSynced = 2_000
        /// How an alarm without its own `repeatUnanswered` rings again, at the start
        /// (`AlarmEngine.defaultRepeat` follows the setting after).
        package var defaultRepeat: UnansweredRepeat?

        package init(lateWindow: TimeInterval = 600, limitPerApp: Int = 100, limitForUser: Int = 10_000, limitForSynced: Int = 2_000,
                     defaultRepeat: UnansweredRepeat? = nil) {
            self.lateWindow = lateWindow
            self.limitPerApp = limitPerApp
            self.limitForUser = limitForUser
            self.limitForSynced = limitForSynced
            self.defaultRepeat = defaultRepeat
        }
    }

    /// What the caller does for the engine, in the order given.
    package enum Effect: Sendable {
        /// Tell everyone who shows or sounds alarms (and the clients) that these changed or ended.
        case publish([AlarmChange])
        /// Write these changes; a failure is retried later (the firing path never waits on the disk).
        case save([AlarmChange])
        /// Wake the engine (`advance`) at this instant; `nil`: nothing is due.
        case arm(Date?)
        /// An occurrence was missed: due at `due`, for `reason`.
        case reportMissed(AlarmRecord, due: Date, reason: MissReason)
        /// An alarm reported missed is ahead again (the clock was set back before its time): the
        /// missed notice was shown by mistake and goes.
        case withdrawMissed(UUID)
        /// Run the intent of the button pressed on the alarm's notification.
        case runIntent(AlarmIntent, AlarmRecord, AlarmButtonRole)
        /// Tell the alarm's app (and the user's tools) which button was pressed.
        case announceButton(AlarmRecord, AlarmButtonRole)
        /// An occurrence ended (answered, missed, or never rung): one entry for the history.
        case ended(AlarmHistory.Entry)
        /// A line for the journal (English), at `level`.
        case log(LogLevel, String)
    }

    /// How much a log line matters: the levels of swift-log's `Logger` the engine uses
    /// (Core's `Logger.log(level:_:)` takes them).
    package enum LogLevel: Sendable, Hashable {
        case info, warning
    }

    /// What a client asks of the alarms.
    package enum Command: Sendable, Equatable {
        case schedule(id: UUID, request: AlarmRequest, appID: String)
        case apply(AlarmAction, id: AlarmReference)
        /// Snooze a ringing alarm for `length` instead of its own snooze length.
        case snooze(id: AlarmReference, length: TimeInterval)
        case update(id: AlarmReference, request: AlarmRequest)
        case setEnabled(Bool, id: AlarmReference)
        case skip(id: AlarmReference)
        /// The occurrence a skip passed over rings after all.
        case unskip(id: AlarmReference)
        /// `record`, ended, scheduled again as it stood (`AlarmRecord(restoring:)`), `appID`'s.
        case restore(AlarmRecord, appID: String)
    }

    /// Which alarm a command means: one the agent already knows by id (a button, sync), or
    /// what a client sent, a whole id or a unique prefix of one, looked for among the alarms.
    package enum AlarmReference: Sendable, Equatable {
        case id(UUID)
        case prefix(String)
    }

    /// A command's outcome before it is on disk: nothing has changed until `commit`.
    package struct Proposal: Sendable {
        /// What to write, then publish.
        package var changes: [AlarmChange]
        /// The alarm after the change; `nil` when it ended.
        package var result: AlarmRecord?
        /// It silences a ringing alarm: it takes effect even when it cannot be written.
        package var silencesRingingAlarm: Bool
        /// For the log: `stop 3f2a…: now scheduled`.
        package var summary: String
        /// The ringing occurrence it ends, for the history.
        package var ended: AlarmHistory.Entry? = nil
    }

    /// What a button on an alarm's notification does.
    package struct ButtonPress: Sendable {
        /// The change it makes (run like a client's); `nil` for a custom button, which leaves
        /// the alarm as it is.
        package var command: Command?
        /// What follows once the change is made: the intent, the app told.
        package var effects: [Effect]
    }

    package let settings: Settings
    /// How an alarm without its own `repeatUnanswered` rings again unanswered: the agent's
    /// `repeatUnanswered` setting, as it is when the ring limit comes (`nil`: once).
    package var defaultRepeat: UnansweredRepeat?
    package private(set) var alarms: [UUID: AlarmRecord] = [:]
    /// What sets of the clock forward made late, for a set back to bring back (`clockSet`).
    package private(set) var passedOverByClockSet: [UUID: PassedOver] = [:]

    package init(settings: Settings = .init()) {
        self.settings = settings
        defaultRepeat = settings.defaultRepeat
    }

    /// All alarms: alerting first, then by the instant they next act.
    package var list: [AlarmRecord] { alarms.values.sortedForDisplay() }

    // MARK: Start

    /// Of a loaded store, the alarms over the limits: per app, all but the `limit` due soonest.
    package func overLimit(_ records: [AlarmRecord]) -> [AlarmRecord] {
        Dictionary(grouping: records, by: \.appID).flatMap { appID, records -> ArraySlice<AlarmRecord> in
            guard records.count > limit(for: appID) else { return [] }
            let sorted = records.sorted { ($0.dueDate ?? .distantFuture, $0.id.uuidString) < ($1.dueDate ?? .distantFuture, $1.id.uuidString) }
            return sorted.dropFirst(limit(for: appID))
        }
    }

    /// Takes the stored alarms, tells everyone of them, and catches up with what was due
    /// while the agent was not running.
    ///
    /// `remembered`: what an earlier run knew of the wall clock. A start is treated as a set
    /// forward from the last time that run saw: a clock that starts ahead (a hardware clock
    /// keeping local time, before NTP answers) looks to the agent exactly like a machine that was
    /// off, so what it makes late is missed, but kept, and a set back before its time brings it
    /// back, as a set back while running does. What an earlier run passed over is kept too.
    package mutating func load(_ records: [AlarmRecord], now: Date, timeZone: any TimeZoneRules,
                               remembered: ClockMemory = ClockMemory()) -> [Effect] {
        alarms = Dictionary(records.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        passedOverByClockSet = remembered.passedOver.filter {
            ($0.value.before.dueDate ?? .distantPast) > now.addingTimeInterval(-Self.passedOverMemory)
        }
        let movedAhead = remembered.lastSeen.map { max(0, now.timeIntervalSince($0)) } ?? 0
        return [.publish(alarms.map { AlarmChange(id: $0.key, record: $0.value) })]
            + recompute(reason: "start", now: now, timeZone: timeZone, clockMovedAhead: movedAhead)
    }

    /// What a later run needs of the wall clock as seen `now` (`load`'s `remembered`).
    package func clockMemory(now: Date) -> ClockMemory {
        ClockMemory(lastSeen: now, passedOver: passedOverByClockSet)
    }

    // MARK: Clients

    /// The one alarm whose id starts with `prefix` (case-insensitive), among `owner`'s alarms
    /// when given: another app's alarms are not found.
    package func resolve(_ prefix: String, owner: String? = nil) throws(AlarmRuleError) -> UUID {
        let wanted = prefix.lowercased().trimmed()
        guard !wanted.isEmpty else { throw .noIDGiven }
        // A whole id (what apps and the CLI send once they know it) is a lookup, not a scan.
        if let id = UUID(uuidString: wanted), let record = alarms[id], owner == nil || record.appID == owner {
            return id
        }
        let matches = alarms.values.filter { owner == nil || $0.appID == owner }.map(\.id)
            .filter { $0.uuidString.lowercased().hasPrefix(wanted) }
        switch matches.count {
        case 1: return matches[0]
        case 0: throw .noIDMatches(prefix: prefix)
        default:
            throw .ambiguousID(prefix: prefix, starts: IDStarts.distinct(matches))
        }
    }

    /// The alarm `reference` means, among `owner`'s when given.
    package func resolve(_ reference: AlarmReference, owner: String? = nil) throws(AlarmRuleError) -> UUID {
        switch reference {
        case .id(let id):
            guard let record = alarms[id], owner == nil || record.appID == owner else { throw .noIDMatches(prefix: id.uuidString) }
            return id
        case .prefix(let prefix):
            return try resolve(prefix, owner: owner)
        }
    }

    /// What `command` from `owner` (`nil`: the user, who may touch every alarm) would change.
    /// Throws when it is refused: a limit, an unknown or foreign id, a state that forbids it.
    package func propose(_ command: Command, owner: String?, now: Date, timeZone: any TimeZoneRules) throws(AlarmRuleError) -> Proposal {
        switch command {
        case .schedule(let id, let request, let appID):
            guard alarms[id] == nil else {
                // The same answer whoever owns it: an app learns nothing of another app's alarms.
                throw .idInUse(id)
            }
            guard alarms.values.count(where: { $0.appID == appID }) < limit(for: appID) else { throw .alarmKit(.maximumLimitReached) }
            let record = try AlarmRecord(id: id, request: request, appID: appID, now: now, timeZone: timeZone)
            return Proposal(changes: [AlarmChange(id: id, record: record)], result: record, silencesRingingAlarm: false,
                            summary: "scheduled \(record.title.debugDescription) \(id) for \(record.fireDate.map(ISO8601Local.utcString) ?? "-")")
        case .restore(let old, let appID):
            // As Schedule: the same answer whoever owns the id, and the app's limit.
            guard alarms[old.id] == nil else { throw .idInUse(old.id) }
            guard alarms.values.count(where: { $0.appID == appID }) < limit(for: appID) else { throw .alarmKit(.maximumLimitReached) }
            let record = try AlarmRecord(restoring: old, appID: appID, now: now, timeZone: timeZone)
            return Proposal(changes: [AlarmChange(id: old.id, record: record)], result: record, silencesRingingAlarm: false,
                            summary: "restored \(record.title.debugDescription) \(old.id): now \(record.state.rawValue), next \(record.dueDate.map(ISO8601Local.utcString) ?? "-")")
        case .apply(let action, let prefix):
            return try apply(action, prefix, snoozeLength: nil, owner: owner, now: now, timeZone: timeZone)
        case .snooze(let prefix, let length):
            return try apply(.countdown, prefix, snoozeLength: length, owner: owner, now: now, timeZone: timeZone)
        case .update(let prefix, let request):
            var proposal = try change(prefix, owner: owner, verb: "updated") { old throws(AlarmRuleError) in
                try old.updated(with: request, now: now, timeZone: timeZone)
            }
            proposal.ended = proposal.changes.first.flatMap { alarms[$0.id] }.flatMap { Self.ending($0, by: .changed, owner: owner, now: now) }
            return proposal
        case .setEnabled(let enabled, let prefix):
            return try change(prefix, owner: owner, verb: enabled ? "enabled" : "disabled") { old throws(AlarmRuleError) in
                enabled ? try old.enabling(now: now, timeZone: timeZone) : try old.disabling(now: now, timeZone: timeZone)
            }
        case .skip(let prefix):
            let id = try resolve(prefix, owner: owner), old = alarms[id]!
            let skipped = old.fireDate.map { AlarmHistory.Entry(skipped: old, due: $0, at: now, by: owner ?? ClientIdentity.userAppID) }
            // A one-time alarm waiting for its time is done once its one occurrence is skipped.
            if !old.isRepeating, old.schedule != nil, old.state == .scheduled, !old.disabled, let skipped {
                return Proposal(changes: [AlarmChange(id: id, record: nil)], result: nil, silencesRingingAlarm: false,
                                summary: "skipped \(id), a one-time alarm: ended", ended: skipped)
            }
            var proposal = try change(prefix, owner: owner, verb: "skipped") { old throws(AlarmRuleError) in
                try old.skippingNextOccurrence(now: now, timeZone: timeZone)
            }
            proposal.ended = skipped
            return proposal
        case .unskip(let prefix):
            return try change(prefix, owner: owner, verb: "unskipped") { old throws(AlarmRuleError) in
                try old.unskipping(now: now)
            }
        }
    }

    /// `action` (a snooze with `snoozeLength` when given) on the alarm `reference` means.
    private func apply(_ action: AlarmAction, _ reference: AlarmReference, snoozeLength: TimeInterval?, owner: String?,
                       now: Date, timeZone: any TimeZoneRules) throws(AlarmRuleError) -> Proposal {
        let id = try resolve(reference, owner: owner), old = alarms[id]!
        let new = try old.applying(action, now: now, timeZone: timeZone, snoozeLength: snoozeLength)
        return Proposal(changes: [AlarmChange(id: id, record: new)], result: new, silencesRingingAlarm: old.state == .alerting,
                        summary: "\(action.rawValue) \(id): now \(new?.state.rawValue ?? "ended")",
                        ended: Self.ending(old, by: action.historyOutcome, owner: owner, now: now))
    }

    private func change(_ reference: AlarmReference, owner: String?, verb: String,
                        _ transform: (AlarmRecord) throws(AlarmRuleError) -> AlarmRecord) throws(AlarmRuleError) -> Proposal {
        let id = try resolve(reference, owner: owner)
        let new = try transform(alarms[id]!)
        return Proposal(changes: [AlarmChange(id: id, record: new)], result: new, silencesRingingAlarm: false,
                        summary: "\(verb) \(id): next \(new.fireDate.map(ISO8601Local.utcString) ?? "-")")
    }

    /// The history entry of `old`'s ringing occurrence ended with `outcome`; `nil` when it was not ringing.
    private static func ending(_ old: AlarmRecord, by outcome: AlarmHistory.Outcome?, owner: String?, now: Date) -> AlarmHistory.Entry? {
        guard old.state == .alerting, let outcome else { return nil }
        return AlarmHistory.Entry(ringing: old, endedAt: now, outcome: outcome, by: owner ?? ClientIdentity.userAppID)
    }

    /// Makes a proposal current once it is written (or, silencing a ringing alarm, even when it
    /// could not be).
    package mutating func commit(_ proposal: Proposal) -> [Effect] {
        for change in proposal.changes { alarms[change.id] = change.record }
        return [.log(.info, proposal.summary), arm(), .publish(proposal.changes)] + (proposal.ended.map { [.ended($0)] } ?? [])
    }

    // MARK: Buttons

    /// What pressing the button with `role` on `id`'s notification does: its action (a custom
    /// second button has none), then its intent (Stop's or the second button's), then the app
    /// hears of it. `nil` when the alarm is gone; refused (`buttonNotShown`) when the alarm does
    /// not show that button in its state, so nothing runs and the app hears nothing. `snoozeLength`:
    /// the alert's longer snooze, a second button that snoozes for that long instead of the alarm's
    /// own length.
    package func press(_ role: AlarmButtonRole, on id: UUID, snoozeLength: TimeInterval? = nil) throws(AlarmRuleError) -> ButtonPress? {
        guard let record = alarms[id] else { return nil }
        guard record.shownButtons.contains(role) else { throw .buttonNotShown(role, alarm: record) }
        let intent: AlarmIntent? = switch role {
        case .stop: record.stopIntent
        case .secondary: record.secondaryIntent
        case .pause, .resume, .cancel: nil
        }
        let command: Command? = switch (Self.action(for: role, of: record), snoozeLength) {
        case (nil, _): nil
        case (.countdown?, let length?): .snooze(id: .id(id), length: length)
        case (let action?, _): .apply(action, id: .id(id))
        }
        return ButtonPress(command: command,
                           effects: (intent.map { [.runIntent($0, record, role)] } ?? []) + [.announceButton(record, role)])
    }

    /// The action a button applies; `nil` for a second button whose behaviour is `.custom`.
    package static func action(for role: AlarmButtonRole, of record: AlarmRecord) -> AlarmAction? {
        switch role {
        case .stop: .stop
        case .secondary: record.presentation.alert.secondaryButtonBehavior == .countdown ? .countdown : nil
        case .pause: .pause
        case .resume: .resume
        case .cancel: .cancel
        }
    }

    // MARK: The clock

    /// The clock reached `now`: every due alarm moves on (countdown, alert, missed).
    /// `clockMovedAhead`: how far a clock set just moved the wall clock forward. An alarm it made
    /// late is missed (a set forward is most often a correction: the time really is later), but
    /// kept in `passedOverByClockSet`, so that a set back before its time brings it back.
    package mutating func advance(now: Date, timeZone: any TimeZoneRules, alreadyChanged: [AlarmChange] = [],
                                  clockMovedAhead: TimeInterval = 0) -> [Effect] {
        var effects: [Effect] = []
        var changes: [AlarmChange] = []
        for (id, record) in alarms {
            switch record.advanced(to: now, lateWindow: settings.lateWindow, timeZone: timeZone, defaultRepeat: defaultRepeat) {
            case .unchanged:
                continue
            case .ringsAgain(let resting):
                changes.append(AlarmChange(id: id, record: resting))
                let chain = resting.unanswered.map { "\($0.rang) of \($0.rings)" } ?? "-"
                effects.append(.log(.info, "\(record.title.debugDescription) \(id) rang unanswered (\(chain)); rings again at "
                                    + ISO8601Local.string(from: resting.fireDate ?? now, in: timeZone)))
                effects.append(.ended(AlarmHistory.Entry(ringing: record, endedAt: now, outcome: .unansweredRingsAgain, by: nil)))
            case .updated(let moved):
                changes.append(AlarmChange(id: id, record: moved))
                if moved.state == .alerting { effects.append(.log(.info, "alerting \(record.title.debugDescription) \(id)")) }
            case .missed(let missedDate, let reason, let following):
                changes.append(AlarmChange(id: id, record: following))
                if reason == .late, clockMovedAhead > 0, now.timeIntervalSince(missedDate) - clockMovedAhead <= settings.lateWindow {
                    passedOverByClockSet[id] = PassedOver(before: record, after: following)
                }
                let when = ISO8601Local.string(from: missedDate, in: timeZone)
                let why = switch reason {
                case .late: "due \(when): later than the \(Int(settings.lateWindow)) s late window"
                case .unanswered: "it rang from \(when) to its ring limit unanswered"
                }
                effects.append(.log(.warning, "missed \(record.title.debugDescription) \(id), \(why)"))
                effects.append(.reportMissed(record, due: missedDate, reason: reason))
                effects.append(.ended(reason == .late ? AlarmHistory.Entry(missed: record, due: missedDate, at: now)
                                      : AlarmHistory.Entry(ringing: record, endedAt: now, outcome: .missedUnanswered, by: nil)))
            }
        }
        changes = alreadyChanged + changes
        guard !changes.isEmpty else { return effects + [arm()] }
        for change in changes { alarms[change.id] = change.record }
        // The firing path rings first and saves after: nobody waits on an answer here, and
        // the fsync must not delay the alert. (A client's change is written before it is answered.)
        return effects + [arm(), .publish(changes), .save(changes)]
    }

    /// The wall clock was set by `jump` seconds (measured against the boot clock, so a resume
    /// from suspend is no jump): what measures elapsed time keeps its time left; what names a
    /// wall-clock time keeps its instant. Then everything is recomputed.
    package mutating func clockSet(by jump: TimeInterval, now: Date, timeZone: any TimeZoneRules) -> [Effect] {
        var jumped: [AlarmChange] = []
        if abs(jump) > 0.5 {
            for (id, record) in alarms {
                let moved = record.followingClockJump(jump, timeZone: timeZone)
                if moved != record { jumped.append(AlarmChange(id: id, record: moved)) }
            }
        }
        var effects: [Effect] = []
        if jump < -0.5 {
            // Set back: what a set forward made late and that is ahead again comes back, unless
            // it changed since (stopped, edited, added again).
            for (id, passed) in passedOverByClockSet.sorted(by: { $0.key.uuidString < $1.key.uuidString }) {
                guard let due = passed.before.dueDate, due > now else { continue }
                passedOverByClockSet[id] = nil
                guard alarms[id] == passed.after else { continue }
                jumped.append(AlarmChange(id: id, record: passed.before))
                effects.append(.withdrawMissed(id))
                effects.append(.log(.info, "\(passed.before.title.debugDescription) \(id) comes back: the clock was set back "
                                    + "before its time, \(ISO8601Local.string(from: due, in: timeZone)), which a set forward had made it miss"))
            }
        }
        // Kept only while a set back could still bring them back.
        passedOverByClockSet = passedOverByClockSet.filter { ($0.value.before.dueDate ?? .distantPast) > now.addingTimeInterval(-Self.passedOverMemory) }
        let reason = "the wall clock changed" + (abs(jump) > 0.5 ? " by \(Int(jump.rounded())) s" : "")
        return effects + recompute(reason: reason, now: now, timeZone: timeZone, alreadyChanged: jumped, clockMovedAhead: jump)
    }

    /// An alarm a set forward made late, as it was, and what took its place (`nil`: it ended).
    package struct PassedOver: Sendable, Equatable, Codable {
        package let before: AlarmRecord
        package let after: AlarmRecord?
    }

    /// What the engine knows of the wall clock that a restart must not lose: the last time the
    /// agent saw, and what sets forward (or a start ahead) passed over.
    package struct ClockMemory: Sendable, Equatable {
        package var lastSeen: Date?
        package var passedOver: [UUID: PassedOver]

        package init(lastSeen: Date? = nil, passedOver: [UUID: PassedOver] = [:]) {
            (self.lastSeen, self.passedOver) = (lastSeen, passedOver)
        }
    }

    /// How long before now an alarm a set forward passed over is remembered: a day, longer than
    /// any set back that undoes a wrong set is likely to come.
    package static let passedOverMemory: TimeInterval = 86_400

    /// The time zone changed: relative alarms follow it.
    package mutating func timeZoneChanged(now: Date, timeZone: any TimeZoneRules) -> [Effect] {
        recompute(reason: "the time zone is now \(timeZone.identifier)", now: now, timeZone: timeZone)
    }

    /// Every relative alarm's next instant computed again, then what is due fired.
    private mutating func recompute(reason: String, now: Date, timeZone: any TimeZoneRules,
                                    alreadyChanged: [AlarmChange] = [], clockMovedAhead: TimeInterval = 0) -> [Effect] {
        for change in alreadyChanged { alarms[change.id] = change.record }
        var moved: [AlarmChange] = []
        for (id, record) in alarms {
            let rescheduled = record.rescheduled(now: now, timeZone: timeZone)
            if rescheduled != record { moved.append(AlarmChange(id: id, record: rescheduled)) }
        }
        for change in moved { alarms[change.id] = change.record }
        return [.log(.info, "recomputing alarms: \(reason)")]
            + advance(now: now, timeZone: timeZone, alreadyChanged: alreadyChanged + moved, clockMovedAhead: clockMovedAhead)
    }

    /// The earliest instant anything is due.
    private func arm() -> Effect {
        var earliest: Date?
        for record in alarms.values {
            if let due = record.dueDate, due < earliest ?? .distantFuture { earliest = due }
        }
        return .arm(earliest)
    }

    private func limit(for appID: String) -> Int {
        appID == ClientIdentity.userAppID ? settings.limitForUser + settings.limitForSynced : settings.limitPerApp
    }
}
