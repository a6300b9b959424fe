import FoundationEssentials
import Logging
import ReveilleLoop
import ReveilleModel
import ReveilleRules
import ReveilleWords

/// Owns the alarms: the engine, the store and the wall-clock timer; the only thing that moves
/// them. Every input is an `AgentEvent`, from its own timer or read from a part's outbox, on one
/// queue; each is handed to the engine,
/// whose effects are performed in one switch (`run`), and every change reaches the followers
/// with the alarms, read-only (`AlarmTable`). An event raised while effects run waits its
/// turn: nothing re-enters. A client's change is on disk before it is answered; the firing path rings and
/// sends the alert first, and the other followers and the save follow once the alert has left
/// (before any later event is handled).
@GLibActor
package final class AgentRuntime {
    package typealias Settings = AlarmEngine.Settings

    /// The engine and what rings, which followers read through `AlarmTable`.
    private let book: AlarmBook
    private var engine: AlarmEngine {
        get { book.engine }
        _modify { yield &book.engine }
    }
    private let store: any AlarmPersistence
    private let clock: any AgentClock
    private let logger: Logger
    private let intents: (any IntentPerformer)?
    /// Where each occurrence that ended is kept (`reveille history`).
    private let history: (any HistoryRecording)?
    /// What the parts send, read here alone, from `start` on.
    private let sources: [AgentOutbox]
    private var timer: (any WallClockAlarm)?
    /// Who hears every change and notice, in no particular order: none reads another's state.
    private let followers: [any AlarmFollower]
    /// Rings the alarms; what it rings is in the table the followers read.
    private let ringer: (any AlarmRinger)?
    /// Shows the alerts: on the firing path, the one follower before the alert has left.
    private let alerter: (any AlarmAlerter)?
    /// The rest of a firing (its other followers, then its remaining effects), waiting for its
    /// alert to leave; run before any later event, so each event still sees the one before done.
    private var afterAlert: (changes: [AlarmChange], effects: [AlarmEngine.Effect])?
    private var afterAlertBound: ClockTimer?
    /// Events waiting for the one being handled, with the outbox each came from.
    private var queue: [(event: AgentEvent, origin: ObjectIdentifier?)] = []
    private var handling = false

    /// Every part is given here, before `start`, so that each hears every alarm: `ringer` is
    /// handed each change first, `alerter` next (and alone, on the firing path, until its alert
    /// has left), then `followers`. The outboxes read are those of the parts that are an
    /// `AgentEventSource`, and `sources` (parts that follow nothing).
    package init(store: any AlarmPersistence, settings: Settings, logger: Logger, intents: (any IntentPerformer)? = nil, history: (any HistoryRecording)? = nil,
         clock: any AgentClock, sources: [AgentOutbox] = [], ringer: (any AlarmRinger)? = nil,
         alerter: (any AlarmAlerter)? = nil, followers: [any AlarmFollower] = []) {
        book = AlarmBook(AlarmEngine(settings: settings))
        self.store = store
        self.logger = logger
        self.intents = intents
        self.history = history
        self.clock = clock
        self.ringer = ringer
        self.alerter = alerter
        self.followers = (alerter.map { [$0] } ?? []) + followers
        let parts: [AnyObject?] = [ringer, alerter] + followers
        var outboxes = parts.compactMap { ($0 as? any AgentEventSource)?.outbox } + sources
        var seen = Set<ObjectIdentifier>()
        outboxes.removeAll { !seen.insert(ObjectIdentifier($0)).inserted }
        self.sources = outboxes
    }

    /// Whether a part's outbox holds an event not yet handled.
    package var hasUnreadEvents: Bool { sources.contains { $0.unread > 0 } }

    /// The longest the rest of a firing waits for its alert to leave: a frozen notification
    /// server delays the save and the other followers this long, never more.
    package static let alertHeadStart: TimeInterval = 0.1

    /// The answer to a change before `start()`: an agent it replaced may still be exiting.
    package static let notStarted = AlarmError.agentUnavailable("reveille-agent is starting; try again in a moment")

    /// The answer to a change after `settle`: the agent is stopping.
    package static let stopping = AlarmError.agentUnavailable("reveille-agent is stopping; try again once it has started again")

    /// Whether `start()` loaded the alarms: before, and after `settle`, nothing may change them.
    package private(set) var isRunning = false
    private var settled = false

    /// Loads the store, catches up with what happened while the agent was not running,
    /// arms the timer, and reads the parts' outboxes.
    package func start() throws {
        // Made first, below what the load allocates and frees, so the freed heap can be given back.
        // The readers first run once `start` returned: nothing is read before the alarms are loaded.
        for outbox in sources {
            let reader = OutboxReader(runtime: self, outbox: outbox)
            // Its waiting and reading run on the loop, ahead of the loop's other sources, never
            // through Swift's global executor (`GLibActor.urgentTaskExecutor`).
            Task(executorPreference: GLibActor.urgentTaskExecutor) { [events = outbox.events] in
                await reader.read(events)
            }
        }
        timer = try clock.wallClockTimer(onFire: { [weak self] in self?.receive(.timerFired) },
                                         onClockChange: { [weak self] in self?.receive(.clockSet) })
        var records = store.load()
        logger.info("loaded \(records.count) alarm(s) from \(store.location)")
        let damage = store.damageOfLastLoad
        if damage.damagedCount > 0 {
            tell(.notice(summary: L("Some stored alarms could not be read"),
                         body: L("The alarm store had damaged entries (%@); they were left out, and the other alarms are loaded. The damaged files are kept as %@.",
                                 "\(damage.damagedCount)", damage.keptAside.joined(separator: ", "))))
        }
        do { try store.checkWritable() } catch {
            logger.error("changes cannot be saved: could not write \(error); the \(records.count) alarm(s) loaded will ring, changes are refused")
            tell(.notice(summary: L("Reveille cannot save changes"),
                         body: L("The alarms already set will ring and can be stopped, but new alarms and changes are refused: %@.",
                                 L("could not write %@", "\(error)"))))
        }
        records = keepAside(engine.overLimit(records), of: records)
        isRunning = true
        clockOffset = wallMinusBoot()
        let remembered = store.loadClockMemory()
        rememberedPassedOver = remembered.passedOver
        handle { run(engine.load(records, now: clock.now, timeZone: clock.timeZone, remembered: remembered)) }
    }

    /// What `clock.json` holds of what the clock passed over, as last written.
    private var rememberedPassedOver: [UUID: AlarmEngine.PassedOver] = [:]

    /// Keeps on disk what the engine knows of the clock, when what it passed over changed, or
    /// `always` (at a stop, for the last time seen): a restart between a start ahead and the set
    /// back that corrects it still brings the alarms back.
    private func rememberClock(always: Bool = false) {
        guard isRunning, always || engine.passedOverByClockSet != rememberedPassedOver else { return }
        let memory = engine.clockMemory(now: clock.now)
        do {
            try store.saveClockMemory(memory)
            rememberedPassedOver = memory.passedOver
        } catch {
            logger.error("could not keep what the clock passed over in \(store.clockMemoryLocation) (\(error)); a restart now forgets it")
        }
    }

    // MARK: Events

    /// The one way in: handles `event` now, or after the event being handled when one is;
    /// `origin` is the outbox it came from (`AlarmTable.changeCame(from:)`).
    fileprivate func receive(_ event: AgentEvent, from origin: ObjectIdentifier? = nil) {
        queue.append((event, origin))
        handle {}
    }

    /// Runs `body`, then every queued event in turn, unless an event is being handled already:
    /// then the queued events wait for it (the caller is that event's effects).
    private func handle(_ body: () -> Void) {
        guard !handling else { return }
        handling = true
        defer { handling = false }
        body()
        while !queue.isEmpty {
            finishAfterAlert()
            let (event, origin) = queue.removeFirst()
            book.origin = origin
            book.handlingSince = .now
            dispatch(event)
            book.origin = nil
            book.handlingSince = nil
        }
    }

    /// Answers `event` with `refusal` when it waits for an answer (a client's change, a press,
    /// a request of the sound): so that no caller waits for ever.
    fileprivate static func refuse(_ event: AgentEvent, _ refusal: AlarmError) {
        switch event {
        case .call(_, _, let answer), .buttonPressed(_, _, _, let answer?): answer(.failure(refusal))
        case .sound(_, let answer): answer(.failure(refusal))
        case .settingsChanged(_, let applied?): applied()  // written already; nothing runs to apply it
        default: break
        }
    }

    private func dispatch(_ event: AgentEvent) {
        guard isRunning else {
            // Answered, so that no caller waits for ever: before the start, or once stopping.
            return Self.refuse(event, settled ? Self.stopping : Self.notStarted)
        }
        switch event {
        case .timerFired:
            run(engine.advance(now: clock.now, timeZone: clock.timeZone), alertFirst: true)
        case .clockSet:
            clockChanged()
        case .timeZoneChanged:
            run(engine.timeZoneChanged(now: clock.now, timeZone: clock.timeZone), alertFirst: true)
        case .buttonPressed(let id, let role, let snoozeLength, let answer):
            let result = press(role, on: id, snoozeLength: snoozeLength)
            if let answer {
                answer(result)
            } else if case .failure(let error) = result {
                // A press on a notification: nobody else hears how it ended. A client's press
                // is answered, and its refusal logged once, by the service.
                logger.notice("button \(role.rawValue) on \(id): \(error)")
            }
        case .call(let command, let owner, let answer):
            answer(Result { () throws(AlarmError) in try perform(command, owner: owner) })
        case .notice(let summary, let body):
            tell(.notice(summary: summary, body: body))
        case .soundChanged(let sounding):
            book.sounding = sounding
            publish([])
        case .notificationReach(let reach):
            tell(.notificationReach(reach))
        case .sessionUnlocked:
            tell(.sessionUnlocked)
        case .settingsChanged(let settings, let applied):
            engine.defaultRepeat = settings.repeatUnanswered
            ringer?.apply(settings)
            tell(.settingsChanged(settings))
            applied?()
        case .authorizationChanged(let appID, let state):
            tell(.authorizationChanged(appID: appID, state))
        case .alertSent:
            break // `handle` ran the rest of the firing before this
        case .sound(let request, let answer):
            guard let ringer else { return answer(.failure(.agentUnavailable("this reveille-agent plays no sound"))) }
            answer(Result { () throws(AlarmError) in try ringer.answer(request) })
        }
    }

    /// Writes the alarms over the limits (a store written by hand, or by an older Reveille)
    /// beside the store as `alarms.over-limit-STAMP.json`, never dropped unseen; returns the rest.
    private func keepAside(_ over: [AlarmRecord], of records: [AlarmRecord]) -> [AlarmRecord] {
        guard !over.isEmpty else { return records }
        let asideIDs = Set(over.map(\.id))
        let kept = records.filter { !asideIDs.contains($0.id) }
        do {
            let aside = try store.keepAside(over, stamp: ISO8601Local.compactStamp(clock.now))
            try store.save(kept)
            logger.error("\(over.count) alarm(s) beyond the limits (\(engine.settings.limitForUser) for the user, \(engine.settings.limitPerApp) per app) were kept aside in \(aside)")
            return kept
        } catch {
            logger.error("\(over.count) alarm(s) are beyond the limits but could not be kept aside (\(error)); they stay")
            return records
        }
    }

    // MARK: Clients

    /// A client's command: proposed by the engine, written, then made current. Silencing a
    /// ringing alarm is made current first and written after, as a firing rings first and
    /// writes after: the sound stops without waiting for the disk, and a crash in between rings
    /// the alarm again at start, never loses it. It is never refused: a write that fails leaves
    /// it in memory, written as soon as the disk allows. Any other change that cannot be
    /// written is not made. Either way the client is answered after the write.
    private func perform(_ command: AlarmEngine.Command, owner: String?) throws(AlarmError) -> AlarmRecord? {
        let proposal = try AlarmError.worded { () throws(AlarmRuleError) in
            try engine.propose(command, owner: owner, now: clock.now, timeZone: clock.timeZone)
        }
        if proposal.silencesRingingAlarm { run(engine.commit(proposal)) }
        do {
            try write(proposal.changes)
        } catch {
            guard proposal.silencesRingingAlarm else { throw .storageFailure(L("could not write %@; nothing was changed", "\(error)")) }
            logger.error("\(proposal.summary), applied but not saved (could not write \(error)); after a restart before the next successful write it may ring again")
            tell(.notice(summary: L("Reveille could not save a change"),
                         body: L("The alarm was silenced, but %@. If Reveille restarts before it can save, the alarm may ring again.",
                                 L("could not write %@", "\(error)"))))
            retryWrite()
        }
        if !proposal.silencesRingingAlarm { run(engine.commit(proposal)) }
        return proposal.result
    }

    // MARK: Buttons

    /// A button on an alarm's notification was pressed: its change (as the user's), then its
    /// intent and the app told. A change the state no longer allows does nothing more.
    @discardableResult
    private func press(_ role: AlarmButtonRole, on id: UUID, snoozeLength: TimeInterval?) -> Result<AlarmRecord?, AlarmError> {
        let pressed: AlarmEngine.ButtonPress?
        do { pressed = try engine.press(role, on: id, snoozeLength: snoozeLength) } catch {
            return .failure(AlarmError(error))
        }
        guard let press = pressed else { return .failure(.notFound("no alarm \(id.uuidString.lowercased())")) }
        var after = engine.alarms[id]
        if let command = press.command {
            do { after = try perform(command, owner: nil) } catch {
                return .failure(error)
            }
        }
        run(press.effects)
        return .success(after)
    }

    // MARK: Effects

    /// Performs the engine's effects, in order. `alertFirst` (the firing path): at the publish,
    /// the ringer and the alerter follow, and the other followers and the effects after it wait
    /// for the alert to leave (`afterAlert`).
    private func run(_ effects: [AlarmEngine.Effect], alertFirst: Bool = false) {
        // The firing's log lines are written after its alert is sent: before it, they took 30 µs (perf, make bench).
        let effects = alertFirst ? effects.filter { !$0.isLog } + effects.filter(\.isLog) : effects
        for (index, effect) in effects.enumerated() {
            switch effect {
            case .log(let level, let message):
                logger.log(level: level, "\(message)")
            case .arm(let instant):
                timer?.arm(at: instant)
            case .publish(let changes):
                if let ringer { book.sounding = ringer.ring(changes, in: AlarmTable(book)) }
                guard alertFirst, let alerter else {
                    publish(changes)
                    continue
                }
                alerter.follow(changes, in: AlarmTable(book))
                afterAlert = (changes, Array(effects[(index + 1)...]))
                afterAlertBound = clock.after(Self.alertHeadStart) { [weak self] in self?.receive(.alertSent) }
                alerter.whenSent { [weak self] in self?.receive(.alertSent) }
                return
            case .save(let changes):
                do { try write(changes) } catch {
                    // Keep ringing from memory; the store writes a whole snapshot next time.
                    logger.error("could not write \(error); the change lives in memory until the next write")
                    retryWrite()
                }
                rememberClock()
            case .reportMissed(let record, let due, let reason):
                tell(.missed(record, due: due, reason: reason))
            case .withdrawMissed(let id):
                tell(.missedWithdrawn(id))
            case .runIntent(let intent, let record, let role):
                intents?.perform(intent, alarm: record, button: role.rawValue)
            case .announceButton(let record, let role):
                tell(.buttonPressed(record, role))
            case .ended(let entry):
                history?.append(entry)
                for follower in followers { follower.ended(entry) }
            }
        }
    }

    /// Hands `changes` and the alarms as they are now to every follower (but one that followed already).
    private func publish(_ changes: [AlarmChange], skipping done: (any AlarmFollower)? = nil) {
        let alarms = AlarmTable(book)
        for follower in followers where follower !== done { follower.follow(changes, in: alarms) }
    }

    /// Runs now what a firing left waiting for its alert (its signals and its save), and moves
    /// nothing after: the agent is stopping, and a firing's save must not be lost to the 0.1 s it
    /// may wait. A change asked after is refused as before the start; the outboxes are read
    /// until their parts go, so no caller waits for an answer that never comes.
    package func settle() {
        finishAfterAlert()
        rememberClock(always: true)
        isRunning = false
        settled = true
    }

    /// Runs the rest of a firing now, if it waits for its alert.
    private func finishAfterAlert() {
        guard let rest = afterAlert else { return }
        afterAlert = nil
        if let bound = afterAlertBound { clock.cancel(bound) }
        afterAlertBound = nil
        publish(rest.changes, skipping: alerter)
        run(rest.effects)
    }

    private func tell(_ notice: AgentNotice) {
        for follower in followers { follower.hear(notice) }
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
        clock.after(30) { [weak self] in
            guard let self else { return }
            self.retryPending = false
            do {
                try self.store.save(Array(self.engine.alarms.values))
                self.logger.info("the alarms are saved again in \(self.store.location)")
            } catch {
                self.retryWrite()
            }
        }
    }

    // MARK: The clock

    /// The wall clock jumped (set, or a resume from suspend): recompute and fire what is due.
    private func clockChanged() {
        // How far the wall clock moved against the boot clock (which counts suspend, so a
        // resume is no jump).
        let offset = wallMinusBoot()
        let jump = offset - clockOffset
        clockOffset = offset
        run(engine.clockSet(by: jump, now: clock.now, timeZone: clock.timeZone), alertFirst: true)
    }

    /// The wall clock minus `CLOCK_BOOTTIME`.
    private func wallMinusBoot() -> TimeInterval {
        clock.now.timeIntervalSince1970 - clock.bootTime
    }

    private var clockOffset: TimeInterval = 0
}

private extension AlarmEngine.Effect {
    var isLog: Bool {
        if case .log = self { true } else { false }
    }
}

/// Reads one part's outbox into the runtime, from the start until the part goes (its outbox
/// ends the stream); it holds neither, so the runtime goes when the agent lets it go, and an
/// event read after that is refused, never left unanswered.
@GLibActor
private final class OutboxReader {
    private weak var runtime: AgentRuntime?
    private weak var outbox: AgentOutbox?
    private let origin: ObjectIdentifier

    init(runtime: AgentRuntime, outbox: AgentOutbox) {
        self.runtime = runtime
        self.outbox = outbox
        origin = ObjectIdentifier(outbox)
    }

    /// Waits on its task's executor (the loop's thread, `urgentTaskExecutor`), and hands each
    /// event to the runtime there: the loop's thread is the actor's.
    nonisolated func read(_ events: AsyncStream<AgentEvent>) async {
        for await event in events {
            GLibActor.assumeIsolated { self.hand(event) }
        }
    }

    private func hand(_ event: AgentEvent) {
        if let runtime { runtime.receive(event, from: origin) } else { AgentRuntime.refuse(event, AgentRuntime.stopping) }
        outbox?.unread -= 1
    }
}

/// What the runtime holds of the alarms, behind the read-only `AlarmTable` it hands out: only
/// this file changes it, in place.
@GLibActor
package final class AlarmBook {
    package fileprivate(set) var engine: AlarmEngine
    /// The alarms the ringer rings itself, as it last said.
    package fileprivate(set) var sounding: Set<UUID> = []
    /// The outbox whose event is being handled, if one is.
    package fileprivate(set) var origin: ObjectIdentifier?
    /// When the runtime began handling the event it handles now, if it handles one.
    package fileprivate(set) var handlingSince: SuspendingClock.Instant?

    package nonisolated init(_ engine: AlarmEngine) {
        self.engine = engine
    }
}
