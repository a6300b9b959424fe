import FoundationEssentials
import Glibc
import Logging
import ReveilleBus
import ReveilleCore

/// The shell around `AlarmEngine`: reads the clock, keeps the wall-clock timer, writes the
/// store, and performs the engine's effects (`run`, one switch). A client's change is on disk
/// before it is answered; the firing path rings first and writes after.
@GLibActor
final class AlarmScheduler {
    typealias Settings = AlarmEngine.Settings

    private var engine: AlarmEngine
    private let store: AlarmStore
    private let now: () -> Date
    private let timeZone: () -> any TimeZoneRules
    private let logger: Logger
    private var timer: WallClockTimer?

    /// Hear every change: the alarms that changed or ended (all of them once, at start).
    var observers: [@GLibActor ([AlarmChange]) -> Void] = []
    /// Hears an occurrence that was missed, with the instant it was due (or began to ring) and why.
    var onMissed: (@GLibActor (AlarmRecord, Date, MissReason) -> Void)?
    /// Runs the intent of a button pressed on an alarm's notification.
    var onIntent: (@GLibActor (AlarmIntent, AlarmRecord, AlarmButtonRole) -> Void)?
    /// Hears which button was pressed on an alarm's notification, after its change.
    var onButton: (@GLibActor (AlarmRecord, AlarmButtonRole) -> Void)?
    /// Hears each occurrence that ended (answered, missed, never rung), for the history.
    var onEnded: (@GLibActor (AlarmHistory.Entry) -> Void)?
    /// Hears a change that took effect but could not be saved (a ringing alarm silenced while
    /// the state folder is full or read-only).
    var onUnsaved: (@GLibActor (String) -> Void)?
    /// Hears, at start, that parts of the store could not be read (and were left out and kept aside).
    var onStoreDamaged: (@GLibActor (AlarmStore.LoadReport) -> Void)?
    /// Hears, at start, that changes cannot be saved (the state folder is read-only, missing,
    /// not a folder, or the journal cannot be written): what is loaded rings all the same.
    var onCannotSave: (@GLibActor (String) -> Void)?
    /// Hears that the wall clock was set, before the alarms are recomputed.
    var onClockChange: (@GLibActor () -> Void)?

    init(store: AlarmStore, settings: Settings, logger: Logger,
         now: @escaping () -> Date = Date.init, timeZone: @escaping () -> any TimeZoneRules) {
        self.engine = AlarmEngine(settings: settings)
        self.store = store
        self.logger = logger
        self.now = now
        self.timeZone = timeZone
    }

    /// Whether `start()` loaded the alarms: before, nothing may read or change them.
    private(set) var isRunning = false

    /// Loads the store, catches up with what happened while the agent was not running,
    /// and arms the timer.
    func start() throws {
        timer = try WallClockTimer(onFire: { [unowned self] in self.run(self.engine.advance(now: self.now(), timeZone: self.timeZone())) },
                                   onClockChange: { [unowned self] in self.clockChanged() })
        var records = store.load()
        logger.info("loaded \(records.count) alarm(s) from \(store.file)")
        if !store.lastLoad.damaged.isEmpty { onStoreDamaged?(store.lastLoad) }
        do { try store.checkWritable() } catch {
            logger.error("changes cannot be saved: could not write \(error); the \(records.count) alarm(s) loaded will ring, changes are refused")
            onCannotSave?(L("could not write %@", "\(error)"))
        }
        records = keepAside(engine.overLimit(records), of: records)
        isRunning = true
        clockOffset = wallMinusBoot()
        run(engine.load(records, now: now(), timeZone: timeZone()))
    }

    /// All alarms: alerting first, then by the instant they next act.
    var list: [AlarmRecord] { engine.list }

    /// The alarm with `id`; callers resolve ids first.
    func alarm(_ id: UUID) -> AlarmRecord? { engine.alarms[id] }

    /// Writes the alarms over the limits (a store written by hand, or by an older Reveille)
    /// beside the store as `alarms.over-limit-STAMP.json`, never dropped unseen; returns the rest.
    private func keepAside(_ over: [AlarmRecord], of records: [AlarmRecord]) -> [AlarmRecord] {
        guard !over.isEmpty else { return records }
        let aside = store.file.removingLastComponent().appending("alarms.over-limit-\(ISO8601Local.compactStamp(Date())).json")
        let asideIDs = Set(over.map(\.id))
        let kept = records.filter { !asideIDs.contains($0.id) }
        do {
            try AtomicFile.write(try AlarmStore.encode(over), to: aside)
            try store.save(kept)
            logger.error("\(over.count) alarm(s) beyond the limits (\(engine.settings.limitForUser) for the user, \(engine.settings.limitPerApp) per app) were kept aside in \(aside)")
            return kept
        } catch {
            logger.error("\(over.count) alarm(s) are beyond the limits but could not be kept aside (\(error)); they stay")
            return records
        }
    }

    // MARK: Clients

    /// Registers a new alarm; it is on disk when this returns.
    func schedule(id: UUID, request: AlarmRequest, appID: String) throws(AlarmError) -> AlarmRecord {
        try perform(.schedule(id: id, request: request, appID: appID), owner: nil)!
    }

    /// Applies an action to the alarm whose id starts with `idPrefix` (among `owner`'s
    /// alarms when given). Returns the alarm after the change, or `nil` when it has ended.
    @discardableResult
    func apply(_ action: AlarmAction, to idPrefix: String, owner: String? = nil) throws(AlarmError) -> AlarmRecord? {
        try perform(.apply(action, id: idPrefix), owner: owner)
    }

    /// Gives the alarm a new configuration, keeping its id and app: as if scheduled anew.
    func update(_ idPrefix: String, request: AlarmRequest, owner: String? = nil) throws(AlarmError) -> AlarmRecord {
        try perform(.update(id: idPrefix, request: request), owner: owner)!
    }

    /// Turns the alarm off (kept, silent) or on again at its next occurrence.
    func setEnabled(_ enabled: Bool, _ idPrefix: String, owner: String? = nil) throws(AlarmError) -> AlarmRecord {
        try perform(.setEnabled(enabled, id: idPrefix), owner: owner)!
    }

    /// Skips the next occurrence of a repeating alarm.
    func skip(_ idPrefix: String, owner: String? = nil) throws(AlarmError) -> AlarmRecord {
        try perform(.skip(id: idPrefix), owner: owner)!
    }

    /// Undoes a skip: the occurrence it passed over rings after all.
    func unskip(_ idPrefix: String, owner: String? = nil) throws(AlarmError) -> AlarmRecord {
        try perform(.unskip(id: idPrefix), owner: owner)!
    }

    func resolve(_ prefix: String, owner: String? = nil) throws(AlarmError) -> UUID {
        try engine.resolve(prefix, owner: owner)
    }

    /// A client's command: proposed by the engine, written, then made current. Silencing a
    /// ringing alarm is never refused: it takes effect from memory, and is written as soon as
    /// the disk allows. Any other change that cannot be written is not made.
    private func perform(_ command: AlarmEngine.Command, owner: String?) throws(AlarmError) -> AlarmRecord? {
        let proposal = try engine.propose(command, owner: owner, now: now(), timeZone: timeZone())
        do {
            try write(proposal.changes)
        } catch {
            guard proposal.silencesRingingAlarm else { throw .storageFailure(L("could not write %@; nothing was changed", "\(error)")) }
            logger.error("\(proposal.summary), applied but not saved (could not write \(error)); after a restart before the next successful write it may ring again")
            onUnsaved?(L("could not write %@", "\(error)"))
            retryWrite()
        }
        run(engine.commit(proposal))
        return proposal.result
    }

    // MARK: Buttons

    /// A button on an alarm's notification was pressed: its change (as the user's), then its
    /// intent and the app told. A change the state no longer allows does nothing more.
    func press(_ role: AlarmButtonRole, on id: UUID) {
        guard let press = engine.press(role, on: id) else { return }
        if let command = press.command {
            do { _ = try perform(command, owner: nil) } catch {
                logger.notice("button \(role.rawValue) on \(id): \(error)")
                return
            }
        }
        run(press.effects)
    }

    // MARK: Effects

    /// Performs the engine's effects, in order.
    private func run(_ effects: [AlarmEngine.Effect]) {
        for effect in effects {
            switch effect {
            case .log(let level, let message):
                logger.log(level: level, "\(message)")
            case .arm(let instant):
                // The timer runs on the real clock; `now` may be shifted (the test clock).
                timer?.arm(at: instant?.addingTimeInterval(-now().timeIntervalSinceNow))
            case .publish(let changes):
                for observer in observers { observer(changes) }
            case .save(let changes):
                do { try write(changes) } catch {
                    // Keep ringing from memory; the store writes a whole snapshot next time.
                    logger.error("could not write \(error); the change lives in memory until the next write")
                    retryWrite()
                }
            case .reportMissed(let record, let due, let reason):
                onMissed?(record, due, reason)
            case .runIntent(let intent, let record, let role):
                onIntent?(intent, record, role)
            case .announceButton(let record, let role):
                onButton?(record, role)
            case .ended(let entry):
                onEnded?(entry)
            }
        }
    }

    /// Writes `changes` (made already, or about to be): the store appends them to its journal,
    /// or writes the whole set as it is once they are made.
    private func write(_ changes: [AlarmChange]) throws {
        let alarms = engine.alarms
        let count = alarms.count + changes.reduce(0) { count, change in
            count + (change.record == nil ? (alarms[change.id] == nil ? 0 : -1) : (alarms[change.id] == nil ? 1 : 0))
        }
        try store.write(changes, alarmCount: count, all: {
            var after = alarms
            for change in changes { after[change.id] = change.record }
            return Array(after.values)
        })
    }

    private var retryPending = false

    /// Writes every alarm again after a pause, until a write succeeds.
    private func retryWrite() {
        guard !retryPending else { return }
        retryPending = true
        MainLoopSources.after(milliseconds: 30_000) { [weak self] in
            guard let self else { return }
            self.retryPending = false
            do {
                try self.store.save(Array(self.engine.alarms.values))
                self.logger.info("the alarms are saved again in \(self.store.file)")
            } catch {
                self.retryWrite()
            }
        }
    }

    // MARK: The clock

    /// The wall clock jumped (set, or a resume from suspend): recompute and fire what is due.
    func clockChanged() {
        onClockChange?()
        // How far the wall clock moved against the boot clock (which counts suspend, so a
        // resume is no jump).
        let offset = wallMinusBoot()
        let jump = offset - clockOffset
        clockOffset = offset
        run(engine.clockSet(by: jump, now: now(), timeZone: timeZone()))
    }

    /// The time zone changed: relative alarms follow it.
    func timeZoneChanged() {
        run(engine.timeZoneChanged(now: now(), timeZone: timeZone()))
    }

    /// The wall clock (as `now` reads it) minus `CLOCK_BOOTTIME`.
    private func wallMinusBoot() -> TimeInterval {
        var boot = timespec()
        clock_gettime(CLOCK_BOOTTIME, &boot)
        return now().timeIntervalSince1970 - (Double(boot.tv_sec) + Double(boot.tv_nsec) / 1e9)
    }

    private var clockOffset: TimeInterval = 0
}
