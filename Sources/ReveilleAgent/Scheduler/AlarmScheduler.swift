import FoundationEssentials
import Glibc
import Logging
import ReveilleBus
import ReveilleCore

/// Owns every alarm: applies the state machine, persists each change before it is
/// acknowledged, and keeps the wall-clock timer armed for the earliest due instant.
@GLibActor
final class AlarmScheduler {
    struct Settings {
        /// An alert due longer ago than this (agent down, machine suspended) is reported
        /// as missed instead of ringing hours late.
        var lateWindow: TimeInterval = 600
        /// How many alarms one app may have (AlarmKit's `maximumLimitReached`).
        var limitPerApp = 100
        /// How many alarms the user's own tools (`reveille`, `gdbus`) may have.
        var limitForUser = 10_000
    }

    private var alarms: [UUID: AlarmRecord] = [:]
    private let store: AlarmStore
    private let settings: Settings
    private let now: () -> Date
    private let timeZone: () -> any TimeZoneRules
    private let logger: Logger
    private var timer: WallClockTimer?

    /// Hear every change: the alarms that changed or ended (all of them once, at start).
    var observers: [@GLibActor ([AlarmChange]) -> Void] = []
    /// Hears an occurrence that was missed, with the instant it was due (or began to ring) and why.
    var onMissed: (@GLibActor (AlarmRecord, Date, MissReason) -> Void)?

    init(store: AlarmStore, settings: Settings, logger: Logger,
         now: @escaping () -> Date = Date.init, timeZone: @escaping () -> any TimeZoneRules) {
        self.store = store
        self.settings = settings
        self.logger = logger
        self.now = now
        self.timeZone = timeZone
    }

    /// Loads the store, catches up with what happened while the agent was not running,
    /// and arms the timer.
    /// Whether `start()` loaded the alarms: before, nothing may read or change them.
    private(set) var isRunning = false

    func start() throws {
        timer = try WallClockTimer(onFire: { [unowned self] in self.advance() },
                                   onClockChange: { [unowned self] in self.clockChanged() })
        alarms = Dictionary(store.load().map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        logger.info("loaded \(alarms.count) alarm(s) from \(store.file)")
        keepAsideOverLimit()
        isRunning = true
        clockOffset = wallMinusBoot()
        publish(alarms.map { AlarmChange(id: $0.key, record: $0.value) })
        recompute(reason: "start")
    }

    /// All alarms: alerting first, then by the instant they next act.
    var list: [AlarmRecord] {
        alarms.values.sortedForDisplay()
    }

    /// Enforces the limits on what was loaded (a store written by hand, or by an older
    /// Reveille): per app, the alarms due soonest are kept, and the rest are written beside the
    /// store as `alarms.over-limit-STAMP.json`, never dropped unseen.
    private func keepAsideOverLimit() {
        let byApp = Dictionary(grouping: alarms.values, by: \.appID)
        var over: [AlarmRecord] = []
        for (appID, records) in byApp {
            let limit = appID == ClientIdentity.userAppID ? settings.limitForUser : settings.limitPerApp
            guard records.count > limit else { continue }
            let sorted = records.sorted { ($0.dueDate ?? .distantFuture, $0.id.uuidString) < ($1.dueDate ?? .distantFuture, $1.id.uuidString) }
            over += sorted.dropFirst(limit)
        }
        guard !over.isEmpty else { return }
        let aside = store.file.removingLastComponent().appending("alarms.over-limit-\(ISO8601Local.compactStamp(Date())).json")
        do {
            try AtomicFile.write(try AlarmStore.encode(over), to: aside)
            let asideIDs = Set(over.map(\.id))
            try store.save(alarms.values.filter { !asideIDs.contains($0.id) })
            for record in over { alarms[record.id] = nil }
            logger.error("\(over.count) alarm(s) beyond the limits (\(settings.limitForUser) for the user, \(settings.limitPerApp) per app) were kept aside in \(aside)")
        } catch {
            logger.error("\(over.count) alarm(s) are beyond the limits but could not be kept aside (\(error)); they stay")
        }
    }

    /// The alarm with `id`; callers resolve ids first.
    func alarm(_ id: UUID) -> AlarmRecord? { alarms[id] }

    /// Registers a new alarm; it is on disk when this returns.
    func schedule(id: UUID, request: AlarmRequest, appID: String) throws(AlarmError) -> AlarmRecord {
        guard alarms[id] == nil else {
            // The same answer whoever owns it: an app learns nothing of another app's alarms.
            throw .invalidConfiguration("id \(id.uuidString.lowercased()) cannot be scheduled: an id is used once; cancel your alarm with it first, or use a new id")
        }
        let limit = appID == ClientIdentity.userAppID ? settings.limitForUser : settings.limitPerApp
        guard alarms.values.count(where: { $0.appID == appID }) < limit else {
            throw .maximumLimitReached
        }
        let record = try AlarmRecord(id: id, request: request, appID: appID, now: now(), timeZone: timeZone())
        try commit([AlarmChange(id: id, record: record)])
        logger.info("scheduled \(record.title.debugDescription) \(id) for \(record.fireDate.map(ISO8601Local.utcString) ?? "-")")
        return record
    }

    /// Applies an action to the alarm whose id starts with `idPrefix` (among `owner`'s
    /// alarms when given). Returns the alarm after the change, or `nil` when it has ended.
    @discardableResult
    func apply(_ action: AlarmAction, to idPrefix: String, owner: String? = nil) throws(AlarmError) -> AlarmRecord? {
        let id = try resolve(idPrefix, owner: owner)
        let ringing = alarms[id]!.alarm.state == .alerting
        let changed = try alarms[id]!.applying(action, now: now(), timeZone: timeZone())
        let change = AlarmChange(id: id, record: changed)
        do {
            try commit([change])
        } catch where ringing {
            // Silencing a ringing alarm is never refused: it takes effect now, from memory,
            // and is written as soon as the disk allows.
            alarms[id] = changed
            arm()
            publish([change])
            let why = error.reason.replacing("; nothing was changed", with: "")
            logger.error("\(action.rawValue) \(id) applied but not saved (\(why)); after a restart before the next successful write it may ring again")
            onUnsaved?(why)
            retryWrite()
        }
        logger.info("\(action.rawValue) \(id): now \(changed?.alarm.state.rawValue ?? "ended")")
        return changed
    }

    /// Gives the alarm whose id starts with `idPrefix` (among `owner`'s) a new configuration,
    /// keeping its id and app: as if scheduled anew, with the same validation. A disabled alarm
    /// stays disabled where it can.
    func update(_ idPrefix: String, request: AlarmRequest, owner: String? = nil) throws(AlarmError) -> AlarmRecord {
        try change(idPrefix, owner: owner, verb: "updated") { old throws(AlarmError) in
            var new = try AlarmRecord(id: old.id, request: request, appID: old.appID, now: now(), timeZone: timeZone())
            if old.disabled, let off = try? new.disabling() { new = off }
            return new
        }
    }

    /// Turns the alarm off (kept, silent) or on again at its next occurrence.
    func setEnabled(_ enabled: Bool, _ idPrefix: String, owner: String? = nil) throws(AlarmError) -> AlarmRecord {
        try change(idPrefix, owner: owner, verb: enabled ? "enabled" : "disabled") { old throws(AlarmError) in
            enabled ? try old.enabling(now: now(), timeZone: timeZone()) : try old.disabling()
        }
    }

    /// Skips the next occurrence of a repeating alarm.
    func skip(_ idPrefix: String, owner: String? = nil) throws(AlarmError) -> AlarmRecord {
        try change(idPrefix, owner: owner, verb: "skipped") { old throws(AlarmError) in
            try old.skippingNextOccurrence(timeZone: timeZone())
        }
    }

    private func change(_ idPrefix: String, owner: String?, verb: String,
                        _ transform: (AlarmRecord) throws(AlarmError) -> AlarmRecord) throws(AlarmError) -> AlarmRecord {
        let id = try resolve(idPrefix, owner: owner)
        let changed = try transform(alarms[id]!)
        try commit([AlarmChange(id: id, record: changed)])
        logger.info("\(verb) \(id): next \(changed.fireDate.map(ISO8601Local.utcString) ?? "-")")
        return changed
    }

    /// The one alarm whose id starts with `prefix` (case-insensitive), among `owner`'s
    /// alarms when given: another app's alarms are not found.
    func resolve(_ prefix: String, owner: String? = nil) throws(AlarmError) -> UUID {
        let wanted = prefix.lowercased().trimmed()
        guard !wanted.isEmpty else { throw .notFound(L("no alarm id given; `reveille list` shows them")) }
        // A whole id (what apps and the CLI send once they know it) is a lookup, not a scan.
        if let id = UUID(uuidString: wanted), let record = alarms[id], owner == nil || record.appID == owner {
            return id
        }
        let matches = alarms.values.filter { owner == nil || $0.appID == owner }.map(\.id)
            .filter { $0.uuidString.lowercased().hasPrefix(wanted) }
        switch matches.count {
        case 1: return matches[0]
        case 0: throw .notFound(L("no alarm has an id starting with '%@'; `reveille list` shows them", prefix))
        default:
            let starts = matches.map { $0.uuidString.lowercased().prefix(8) }.sorted().joined(separator: ", ")
            throw .ambiguousID(L("'%@' starts %@ alarm ids (%@); give more characters", prefix, String(matches.count), starts))
        }
    }

    /// Hears a change that took effect but could not be saved (a ringing alarm silenced while
    /// the state folder is full or read-only).
    var onUnsaved: (@GLibActor (String) -> Void)?
    private var retryPending = false

    /// Writes every alarm again after a pause, until a write succeeds.
    private func retryWrite() {
        guard !retryPending else { return }
        retryPending = true
        MainLoopSources.after(milliseconds: 30_000) { [weak self] in
            guard let self else { return }
            self.retryPending = false
            do {
                try self.store.save(Array(self.alarms.values))
                self.logger.info("the alarms are saved again in \(self.store.file)")
            } catch {
                self.retryWrite()
            }
        }
    }

    /// Hears that the wall clock was set, before the alarms are recomputed.
    var onClockChange: (@GLibActor () -> Void)?

    /// The wall clock jumped (set, or a resume from suspend): recompute and fire what is due.
    func clockChanged() {
        onClockChange?()
        // How far the wall clock moved against the boot clock (which counts suspend, so a
        // resume is no jump): durations keep their time left.
        let offset = wallMinusBoot()
        let jump = offset - clockOffset
        clockOffset = offset
        var jumped: [AlarmChange] = []
        if abs(jump) > 0.5 {
            let zone = timeZone()
            for (id, record) in alarms {
                let moved = record.followingClockJump(jump, timeZone: zone)
                if moved != record { jumped.append(AlarmChange(id: id, record: moved)) }
            }
        }
        recompute(reason: "the wall clock changed\(abs(jump) > 0.5 ? " by \(Int(jump.rounded())) s" : "")", alreadyChanged: jumped)
    }

    /// The wall clock (as `now` reads it) minus `CLOCK_BOOTTIME`.
    private func wallMinusBoot() -> TimeInterval {
        var boot = timespec()
        clock_gettime(CLOCK_BOOTTIME, &boot)
        return now().timeIntervalSince1970 - (Double(boot.tv_sec) + Double(boot.tv_nsec) / 1e9)
    }

    private var clockOffset: TimeInterval = 0

    /// The time zone changed: relative alarms follow it.
    func timeZoneChanged() {
        recompute(reason: "the time zone is now \(timeZone().identifier)")
    }

    /// Recomputes every relative alarm's next instant, then fires what is due. `alreadyChanged`:
    /// alarms moved before (by a clock jump), saved and published with the rest.
    private func recompute(reason: String, alreadyChanged: [AlarmChange] = []) {
        logger.info("recomputing alarms: \(reason)")
        for change in alreadyChanged { alarms[change.id] = change.record }
        let current = now(), zone = timeZone()
        var moved: [AlarmChange] = []
        for (id, record) in alarms {
            let rescheduled = record.rescheduled(now: current, timeZone: zone)
            if rescheduled != record { moved.append(AlarmChange(id: id, record: rescheduled)) }
        }
        for change in moved { alarms[change.id] = change.record }
        advance(alreadyChanged: alreadyChanged + moved)
    }

    /// Moves every due alarm along (countdown, alert, missed), persists, re-arms.
    private func advance(alreadyChanged: [AlarmChange] = []) {
        let current = now(), zone = timeZone()
        var changes: [AlarmChange] = []
        for (id, record) in alarms {
            switch record.advanced(to: current, lateWindow: settings.lateWindow, timeZone: zone) {
            case .unchanged:
                continue
            case .updated(let moved):
                changes.append(AlarmChange(id: id, record: moved))
                if moved.alarm.state == .alerting { logger.info("alerting \(record.title.debugDescription) \(id)") }
            case .missed(let missedDate, let reason, let following):
                changes.append(AlarmChange(id: id, record: following))
                let when = ISO8601Local.string(from: missedDate, in: zone)
                switch reason {
                case .late: logger.warning("missed \(record.title.debugDescription) \(id), due \(when): later than the \(Int(settings.lateWindow)) s late window")
                case .unanswered: logger.warning("missed \(record.title.debugDescription) \(id): it rang from \(when) to its ring limit unanswered")
                }
                onMissed?(record, missedDate, reason)
            }
        }
        changes = alreadyChanged + changes
        guard !changes.isEmpty else { return arm() }
        // The firing path rings first and persists after: nobody waits on an answer here,
        // and the fsync must not delay the alert. (Requests persist before they are answered.)
        for change in changes { alarms[change.id] = change.record }
        arm()
        publish(changes)
        do {
            try store.write(changes, alarmCount: alarms.count, all: { Array(alarms.values) })
        } catch {
            // Keep ringing from memory; the store writes a whole snapshot next time.
            logger.error("could not write \(error); the change lives in memory until the next write")
            retryWrite()
        }
    }

    /// Persists `changes`, then makes them current, re-arms and tells the observers.
    private func commit(_ changes: [AlarmChange]) throws(AlarmError) {
        let previous = changes.map { ($0.id, alarms[$0.id]) }
        for change in changes { alarms[change.id] = change.record }
        do {
            try store.write(changes, alarmCount: alarms.count, all: { Array(alarms.values) })
        } catch {
            for (id, record) in previous.reversed() { alarms[id] = record }
            throw .storageFailure(L("could not write %@; nothing was changed", "\(error)"))
        }
        arm()
        publish(changes)
    }

    private func arm() {
        // The timer runs on the real clock; `now` may be shifted (the test clock).
        let skew = now().timeIntervalSinceNow
        var earliest: Date?
        for record in alarms.values {
            if let due = record.dueDate, due < earliest ?? .distantFuture { earliest = due }
        }
        timer?.arm(at: earliest?.addingTimeInterval(-skew))
    }

    private func publish(_ changes: [AlarmChange]) {
        for observer in observers { observer(changes) }
    }
}
