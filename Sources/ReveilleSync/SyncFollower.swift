import FoundationEssentials
import Logging
import ReveilleAgentRuntime
import ReveilleBus
import ReveilleCalendar
import ReveilleCore
import ReveilleLoop
import ReveilleModel
import ReveilleRules
import ReveilleTimeZone
import ReveilleWords
import SystemPackage

/// What the sync keeps in the state folder (`sync.json`, 0600): the collection, the sync
/// token, and per alarm what both sides last agreed on (its settings as a digest: an href and
/// an ETag of bounded length, so at most about 1 KiB an alarm), a Stop or snooze not yet sent,
/// removals held for a second round, the events to read again, and the alarms taken from
/// the collection (their own quota).
package struct SyncState: Codable, Sendable, Equatable {
    package var collection: String
    package var user: String
    package var token: String?
    package var alarms: [UUID: SyncedAlarm] = [:]
    package var unsentReminders: [UUID: AlarmCalendar.Reminder] = [:]
    package var lastProblem: String?
    /// Removals a round listed and held until the next confirms them.
    package var heldRemovals: Set<UUID> = []
    /// Events to read again next round whatever the listing says: an edit waiting for the
    /// occurrence ringing here to be answered, or an alarm left for a later batch.
    package var revisit: [UUID: String] = [:]
    /// Alarms made here from the collection's events (`AlarmEngine.Settings.limitForSynced`).
    package var adopted: Set<UUID> = []
    /// One-time alarms stopped (here or elsewhere) whose event keeps the acknowledgement a while.
    package var ended: [UUID: EndedAlarm] = [:]
    /// Alarms removed elsewhere while they rang here, cancelled once answered.
    package var cancelLater: Set<UUID> = []
    /// When removals made elsewhere were taken here, within `SyncPlan.removalsCounted`.
    package var removalsTaken: [Date] = []
    /// When a damaged `sync.json` was kept aside and this state began anew, and the name it was kept as.
    package var keptAside: Date?
    package var keptAsideAs: String?

    package init(collection: String, user: String) { (self.collection, self.user) = (collection, user) }

    private enum CodingKeys: String, CodingKey {
        case collection, user, token, alarms, unsentReminders, lastProblem, heldRemovals, revisit, adopted, ended, cancelLater, removalsTaken, keptAside, keptAsideAs
    }
    package init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        collection = try container.decode(String.self, forKey: .collection)
        user = try container.decode(String.self, forKey: .user)
        token = try container.decodeIfPresent(String.self, forKey: .token)
        alarms = try container.decodeIfPresent([UUID: SyncedAlarm].self, forKey: .alarms) ?? [:]
        unsentReminders = try container.decodeIfPresent([UUID: AlarmCalendar.Reminder].self, forKey: .unsentReminders) ?? [:]
        lastProblem = try container.decodeIfPresent(String.self, forKey: .lastProblem)
        heldRemovals = try container.decodeIfPresent(Set<UUID>.self, forKey: .heldRemovals) ?? []
        revisit = try container.decodeIfPresent([UUID: String].self, forKey: .revisit) ?? [:]
        adopted = try container.decodeIfPresent(Set<UUID>.self, forKey: .adopted) ?? []
        ended = try container.decodeIfPresent([UUID: EndedAlarm].self, forKey: .ended) ?? [:]
        cancelLater = try container.decodeIfPresent(Set<UUID>.self, forKey: .cancelLater) ?? []
        removalsTaken = Array((try container.decodeIfPresent([Date].self, forKey: .removalsTaken) ?? []).suffix(64))
        keptAside = try container.decodeIfPresent(Date.self, forKey: .keptAside)
        keptAsideAs = try container.decodeIfPresent(String.self, forKey: .keptAsideAs).map { String($0.prefix(255)) }
    }
}

/// The account sync follows: the collection and the user (the password is the Secret Service's).
package struct SyncAccount: Codable, Sendable, Equatable {
    package var collection: String
    package var user: String
    package init(collection: String, user: String) { (self.collection, self.user) = (collection, user) }
}

extension AlarmCalendar.Reminder: Codable {
    private enum CodingKeys: String, CodingKey { case acknowledged, snoozedUntil }
    package init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(acknowledged: try container.decodeIfPresent(Date.self, forKey: .acknowledged),
                  snoozedUntil: try container.decodeIfPresent(Date.self, forKey: .snoozedUntil))
    }
    package func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(acknowledged, forKey: .acknowledged)
        try container.encodeIfPresent(snoozedUntil, forKey: .snoozedUntil)
    }
}

/// The sync's shell: follows the user's alarms, and every `interval` (and soon after a change
/// here) asks the collection what changed, plans with `SyncPlan`, performs the plan, and keeps
/// what was agreed in `sync.json`. It never holds an alarm back: the runtime rings from its own
/// store, and a server that fails is retried on the next round and reported once.
@GLibActor
package final class SyncFollower: AlarmFollower {
    private let collection: CalDAVCollection
    /// Where it sends its changes and notices: the outbox of the service that made it (a
    /// follower begun after the start is read through it).
    private let outbox: AgentOutbox
    private let file: FilePath
    private let logger: Logger
    /// The time, the zone and the timer of the rounds.
    private let clock: any AgentClock
    package let interval: TimeInterval
    package private(set) var state: SyncState
    private var local: [UUID: LocalAlarm] = [:]
    /// The alarms as last followed (read, never asked of the runtime).
    private var table = AlarmTable.empty
    /// The user's alarms ringing or counting down here, as last followed: a one-time alarm's
    /// record is gone once stopped, and its acknowledgement is written from this.
    private var answering: [UUID: AlarmRecord] = [:]
    /// Those of `answering` that just ended here, until the runtime says how (`ended`).
    private var justEnded: [UUID: AlarmRecord] = [:]
    private var syncing = false
    /// A round was asked for while one ran.
    private var asked = false
    /// A write met another machine's (412): the round is done again.
    private var conflicted = false
    private var stopped = false
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var timer: ClockTimer?
    /// Called after each round (tests wait on it).
    package var onRound: (@GLibActor () -> Void)?

    package static let fileName = "sync.json"

    /// Rounds done, and when the last ended (`reveille sync status`).
    package private(set) var rounds = 0
    package private(set) var lastRound: Date?

    /// The account, apart from the state (`sync-account.json`, 0600): a damaged `sync.json`
    /// (set aside, read from the server's listing again) loses no account.
    package static let accountFileName = "sync-account.json"

    /// The account set up in `stateDirectory`, if any: from `sync-account.json`, else (set up
    /// before it existed) from `sync.json`, then kept in its own file; fails naming why
    /// neither could be read (a damaged file kept aside).
    package static func account(in stateDirectory: FilePath, logger: Logger) -> Result<(url: String, user: String)?, StoreError> {
        let accountFile = stateDirectory.appending(accountFileName)
        var damaged: StoreError?
        do throws(StoreError) {
            if let data = try StoredFile.read(accountFile, maximumBytes: 64 << 10) {
                if let account = try? JSONDecoder().decode(SyncAccount.self, from: data) { return .success((account.collection, account.user)) }
                damaged = StoreError("\(accountFileName) is not a sync account")
                _ = try? StoredFile.moveAside(accountFile)
            }
        } catch {
            damaged = error
        }
        switch load(stateDirectory.appending(fileName), logger: logger).state {
        case .success(let state?):
            keep(SyncAccount(collection: state.collection, user: state.user), in: stateDirectory, logger: logger)
            return .success((state.collection, state.user))
        case .success(nil): return damaged.map { .failure($0) } ?? .success(nil)
        case .failure(let failure): return .failure(damaged ?? failure)
        }
    }

    /// Writes the account's own file (atomically, private to the user).
    package static func keep(_ account: SyncAccount, in stateDirectory: FilePath, logger: Logger) {
        do {
            try AtomicFile.write(try JSONEncoder().encode(account), to: stateDirectory.appending(accountFileName))
        } catch {
            logger.error("sync: could not save \(accountFileName): \(error)")
        }
    }

    /// The largest `sync.json` read: what `limitForUser + limitForSynced` alarms take, at
    /// most about 1 KiB each, with room to spare.
    package static let maximumStateBytes = 16 << 20
    /// Alarms made from the collection's events in one round, and between two turns of the
    /// loop: a firing is never late behind a collection of 10,000 events; the rest come in
    /// the rounds after.
    package static let adoptionsPerRound = 500
    /// Events asked for in one multiget.
    package static let eventsPerFetch = 500
    /// The longest a round holds the loop before it lets it turn (a firing, a call waits).
    package static let turnLength = Duration.milliseconds(10)
    /// When the loop last turned during this round.
    private var lastTurn = ContinuousClock.now

    /// How many alarms the sync may make from the collection's events.
    private let adoptionLimit: Int

    package init(collection: CalDAVCollection, user: String, outbox: AgentOutbox, stateDirectory: FilePath, interval: TimeInterval = 30,
         logger: Logger, clock: any AgentClock, adoptionLimit: Int = AlarmEngine.Settings().limitForSynced) {
        self.collection = collection
        self.outbox = outbox
        self.interval = interval
        self.logger = logger
        self.clock = clock
        self.adoptionLimit = adoptionLimit
        file = stateDirectory.appending(Self.fileName)
        let (loaded, aside) = Self.load(file, logger: logger)
        state = (try? loaded.get()).flatMap { $0.collection == collection.url && $0.user == user ? $0 : nil }
            ?? SyncState(collection: collection.url, user: user)
        if case .failure(let failure) = loaded {
            state.lastProblem = Self.unreadable(failure)
            (state.keptAside, state.keptAsideAs) = (clock.now, aside?.lastComponent?.string)
        }
    }

    /// The problem reported for a `sync.json` that could not be read.
    package static func unreadable(_ failure: StoreError) -> String {
        "sync.json could not be read (\(failure)) and was kept aside; the alarms here are kept, and sync starts again from the server's listing"
    }

    // MARK: Following

    package func follow(_ changes: [AlarmChange], in alarms: AlarmTable) {
        table = alarms
        // A change from the server, applied: not one made here.
        let applying = alarms.changeCame(from: outbox)
        let now = clock.now
        var answered = false
        justEnded = [:]
        for change in changes {
            guard let record = change.record, record.appID == ClientIdentity.userAppID else {
                local.removeValue(forKey: change.id)
                if let last = answering.removeValue(forKey: change.id), !applying, change.record == nil { justEnded[change.id] = last }
                continue
            }
            if record.state == .alerting || record.state == .countdown { answering[change.id] = record } else { answering[change.id] = nil }
            let previous = local[change.id]
            // A ring after unanswered ones belongs to the occurrence that first rang: a Stop
            // elsewhere since then ends it.
            var entry = LocalAlarm(request: record.request, disabled: record.disabled, changedAt: previous?.changedAt ?? now,
                                   ringingSince: record.alertingSince, occurrence: record.unanswered?.since ?? record.lastOccurrence,
                                   countingDownSince: record.countdownStart,
                                   reminder: previous?.reminder ?? state.unsentReminders[change.id] ?? state.alarms[change.id]?.reminder ?? .init())
            if !applying {
                if previous.map({ $0.request != record.request || $0.disabled != record.disabled }) ?? true { entry.changedAt = now }
                // An occurrence that rang here was answered here, or its snooze stopped: the other
                // machines hear of it.
                // Resting between unanswered rings is no answer: the chain is this machine's own.
                if previous?.ringingSince != nil, record.state != .alerting, record.unanswered == nil {
                    if case .countdown(let until, _, _) = record.phase { entry.reminder.snoozedUntil = until } else {
                        entry.reminder.acknowledged = now
                    }
                    state.unsentReminders[change.id] = entry.reminder
                    answered = true
                } else if previous?.countingDownSince != nil, record.state == .scheduled {
                    entry.reminder.acknowledged = now
                    state.unsentReminders[change.id] = entry.reminder
                    answered = true
                }
            }
            local[change.id] = entry
        }
        // A Stop or snooze to tell is on disk before the caller hears it was done: the agent
        // may end a moment later, and the other machines would ring on.
        if answered { save() }
        if !applying { syncSoon() }
    }

    /// An occurrence ended (as the history keeps it): a one-time alarm stopped here has its
    /// acknowledgement written, not its event removed, so every machine's history says "stopped".
    package func ended(_ entry: AlarmHistory.Entry) {
        guard entry.outcome == .stopped, let record = justEnded.removeValue(forKey: entry.alarmID), table[entry.alarmID] == nil,
              state.alarms[entry.alarmID] != nil else { return }
        let reminder = AlarmCalendar.Reminder(acknowledged: entry.ended)
        guard case .success(let (event, _)) = AlarmCalendar.event(record, now: clock.now, timeZone: clock.timeZone, reminder: reminder,
                                                                rang: entry.due) else { return }
        state.ended[entry.alarmID] = EndedAlarm(acknowledged: entry.ended, event: Self.calendarText(event))
        // On disk before the caller hears it was done, as any Stop to tell.
        save()
        syncSoon()
    }

    /// Starts the rounds: one now, then every `interval`.
    package func start() {
        syncSoon()
    }

    /// A round at once (the network came back), unless one runs: then one right after it.
    package func syncNow() {
        syncSoon(after: 0)
    }

    /// Stops the rounds; a round under way ends without saving (the account may be gone).
    package func stop() {
        stopped = true
        if let timer { clock.cancel(timer) }
        timer = nil
    }

    private func syncSoon(after seconds: TimeInterval = 0.2) {
        guard !stopped else { return }
        if let timer { clock.cancel(timer) }
        timer = clock.after(seconds) { [weak self] in
            guard let self else { return }
            timer = nil
            Task { @GLibActor in await self.sync() }
        }
    }

    // MARK: One round

    /// Asks, plans, performs, saves; another round follows if a write met another machine's
    /// (up to `maximumRounds`) or if a round was asked for meanwhile. Called while a round
    /// runs, it returns when a round that began after the call is done.
    package func sync() async {
        guard !syncing else {
            asked = true
            await withCheckedContinuation { waiters.append($0) }
            return
        }
        syncing = true
        let before = state
        var conflicts = 0
        repeat {
            asked = false
            conflicted = false
            // Those who asked before this round began are answered by it.
            let answered = waiters
            waiters = []
            switch await round() {
            case .success:
                if state.lastProblem != nil { logger.info("sync with \(collection.url) works again") }
                state.lastProblem = nil
            case .failure(let failure):
                // Said once per problem, not every round.
                if state.lastProblem != failure.description { logger.warning("sync with \(collection.url): \(failure)") }
                state.lastProblem = failure.description
                conflicted = false
            }
            answered.forEach { $0.resume() }
            if conflicted { conflicts += 1 }
        } while asked || (conflicted && conflicts < Self.maximumRounds)
        syncing = false
        rounds += 1
        lastRound = clock.now
        // Rounds come every 2 s while an alarm rings, and most change nothing: sync.json (megabytes
        // with thousands of alarms) is written when something did.
        if state != before { save() }
        onRound?()
        syncSoon(after: SyncPlan.interval(normal: interval, local: local.values, now: clock.now))
    }

    /// Rounds one `sync` runs at most (a server that keeps answering 412 cannot keep it busy).
    package static let maximumRounds = 3

    private func round() async -> Result<Void, HTTPFailure> {
        let asked = state.token
        let listing: SyncListing
        switch await collection.changes(since: asked) {
        case .success(let answer):
            switch SyncPlan.listing(answer.changes, token: answer.token, asked: asked, synced: state.alarms) {
            case .success(let judged): listing = judged
            case .failure(let failure): return .failure(failure)
            }
        case .failure(let failure):
            // A token the server no longer knows: everything, from the start.
            guard asked != nil else { return .failure(failure) }
            state.token = nil
            return await round()
        }
        // Read again whatever waits (an edit of an alarm that rang, a later batch), unless gone.
        var present = listing.present
        let listed = Set(present)
        present += state.revisit.values.filter { !listed.contains($0) && !listing.removed.contains($0) }.sorted()
        var remote: [UUID: RemoteAlarm] = [:]
        // In batches (a multiget each), the loop turning between them and within.
        for start in stride(from: 0, to: present.count, by: Self.eventsPerFetch) {
            switch await collection.fetch(Array(present[start..<min(start + Self.eventsPerFetch, present.count)])) {
            case .failure(let failure): return .failure(failure)
            case .success(let events):
                for event in events {
                    if let (id, alarm) = read(event) { remote[id] = SyncPlan.admitted(alarm, now: clock.now) }
                    await turn()
                }
            }
        }
        state.revisit = [:]
        // A removal waiting for a ringing alarm to be answered is still a removal, whatever the listing says now.
        state.cancelLater = state.cancelLater.filter { state.alarms[$0] != nil }
        let removed = listing.removed.union(state.cancelLater.compactMap { state.alarms[$0]?.href })
        let planned = SyncPlan.actions(local: local, remote: remote, removed: removed, synced: state.alarms, ended: state.ended,
                                       now: clock.now)
        state.removalsTaken = state.removalsTaken.filter { clock.now.timeIntervalSince($0) < SyncPlan.removalsCounted }
        let (actions, held) = SyncPlan.holdingRemovals(planned, synced: state.alarms.count, heldBefore: state.heldRemovals,
                                                       recent: state.removalsTaken.count)
        var removedTitles: [String] = []
        logger.debug("sync round: \(listing.present.count + listing.removed.count) listed since \(asked == nil ? "the start" : "the last token"), \(remote.count) read, \(listing.removed.count) removed; \(actions.count) steps\(actions.prefix(8).map { " \($0.summary)" }.joined())\(actions.count > 8 ? " …" : "")")
        var adoptions = 0
        for action in actions {
            if case .createLocal(let id, _, _) = action {
                // Its own quota, and a bounded share of each round.
                guard adoptions < Self.adoptionsPerRound, state.adopted.count < adoptionLimit else {
                    if let there = remote[id] { state.revisit[id] = there.href }
                    continue
                }
                adoptions += 1
            }
            if case .cancelLocal(let id) = action {
                removedTitles.append(table[id]?.title ?? id.uuidString)
                state.removalsTaken.append(clock.now)
            }
            await perform(action, remote: remote)
            // The loop turns between batches: a firing due meanwhile rings on time.
            await turn()
        }
        if state.adopted.count >= adoptionLimit, !state.revisit.isEmpty {
            logger.warning("sync: \(adoptionLimit) alarms were taken from \(collection.url), as many as the sync may take; the others are not")
        }
        if !removedTitles.isEmpty {
            // Each removal another machine made is said, not only a crowd of them.
            logger.notice("sync: removed on another machine, so here too: \(removedTitles.joined(separator: ", "))")
            outbox.send(.notice(summary: L("Alarms removed on another machine"),
                                body: L("Removed here too: %@", removedTitles.map { String($0.prefix(80)) }.joined(separator: ", "))))
        }
        // What was listed and needed no step is agreed as it is there now.
        let stepped = Set(actions.map(\.id))
        for (id, there) in remote where !stepped.contains(id) {
            state.alarms[id]?.etag = there.etag
            state.alarms[id]?.acknowledged = there.reminder.acknowledged
            state.alarms[id]?.snoozedUntil = there.reminder.snoozedUntil
            // Taken here too, or the next round would send the older reminder back.
            local[id]?.reminder = there.reminder
        }
        // An ended alarm's event removed (by another machine, after its while) is forgotten.
        for id in state.ended.keys where state.alarms[id].map({ listing.removed.contains($0.href) }) ?? true {
            state.ended[id] = nil
        }
        if held.isEmpty {
            state.heldRemovals = []
            state.token = listing.token
        } else {
            // Not taken yet: the next round asks from the same token, and a removal it lists
            // again is confirmed.
            state.heldRemovals = held
            let problem = "the server's listing would remove \(held.count) of the \(state.alarms.count) synced alarms; they are kept until the next round confirms it"
            logger.warning("sync with \(collection.url): \(problem)")
            outbox.send(.notice(summary: L("Synced alarms would be removed"),
                                    body: L("The server no longer lists %@ of your synced alarms. They are kept here until the next round confirms it.", String(held.count))))
            return .failure(HTTPFailure(description: problem))
        }
        return .success(())
    }

    /// Lets the loop turn when the round has held it for `turnLength`.
    private func turn() async {
        guard ContinuousClock.now - lastTurn >= Self.turnLength else { return }
        await Task.yield()
        lastTurn = .now
    }

    /// An event's alarm and reminder, by its UID; `nil` for one that is not a Reveille alarm's.
    private func read(_ event: (href: String, etag: String?, text: String)) -> (UUID, RemoteAlarm)? {
        guard let document = try? ICalParser.parse(event.text, limits: .resource),
              let component = document.components.first?.components.first(where: { $0.name == "VEVENT" }),
              let id = component.value("UID").flatMap(UUID.init(uuidString:)) else {
            logger.warning("sync: \(event.href.prefix(200)) is not an alarm's event; left alone")
            return nil
        }
        let reading = AlarmCalendar.alarms(in: [component], now: clock.now, timeZone: clock.timeZone, zones: { GLibTimeZone(identifier: $0) },
                                           defaultTitle: L("Alarm"))
        let changedAt = (component.property("LAST-MODIFIED") ?? component.property("DTSTAMP"))
            .flatMap(ICalDateTime.init).flatMap { $0.form == .utc ? $0.instant(in: UTCTimeZone()) : nil }
        return (id, RemoteAlarm(href: event.href, etag: event.etag, alarm: reading.alarms.first, reminder: .init(component),
                                changedAt: changedAt))
    }

    private func perform(_ action: SyncAction, remote: [UUID: RemoteAlarm]) async {
        switch action {
        case .upload(let id, let etag):
            guard let here = local[id], let record = table[id] else { return }
            let reminder = here.reminder
            guard case .success(let (event, _)) = AlarmCalendar.event(record, now: clock.now, timeZone: clock.timeZone, reminder: reminder) else { return }
            let text = Self.calendarText(event)
            let name = CalDAVCollection.name(for: id)
            switch await collection.put(name, text: text, ifMatch: etag) {
            case .success(let newTag):
                state.alarms[id] = SyncedAlarm(href: collection.path + name, etag: newTag, agreed: here.request, disabled: here.disabled,
                                               acknowledged: reminder.acknowledged, snoozedUntil: reminder.snoozedUntil)
                state.unsentReminders.removeValue(forKey: id)
            case .failure(.conflict): conflicted = true
            case .failure(.failed(let text)): logger.warning("sync: could not write \(id): \(text)")
            }
        case .acknowledgeEnded(let id, let etag):
            guard let ending = state.ended[id], let text = ending.event, let agreed = state.alarms[id] else { return }
            switch await collection.put(SyncPlan.eventName(agreed.href), text: text, ifMatch: etag) {
            case .success(let newTag):
                state.ended[id]?.event = nil
                state.alarms[id]?.etag = newTag
                state.alarms[id]?.acknowledged = ending.acknowledged
                state.alarms[id]?.snoozedUntil = nil
            case .failure(.conflict): conflicted = true
            case .failure(.failed(let text)): logger.warning("sync: could not write the Stop of \(id): \(text)")
            }
        case .createLocal(let id, let request, let disabled):
            guard await apply(.schedule(id: id, request: request, appID: ClientIdentity.userAppID)) else { return }
            state.adopted.insert(id)
            if disabled { await apply(.setEnabled(false, id: .id(id))) }
            agree(id, remote[id])
        case .takeLater(let id, let href):
            state.revisit[id] = href
        case .updateLocal(let id, let request, let disabled):
            await apply(.update(id: .id(id), request: request))
            if table[id]?.disabled != disabled { await apply(.setEnabled(!disabled, id: .id(id))) }
            agree(id, remote[id])
        case .cancelLocal(let id):
            await apply(.apply(.cancel, id: .id(id)))
            state.alarms.removeValue(forKey: id)
            state.adopted.remove(id)
            state.cancelLater.remove(id)
        case .cancelLater(let id):
            state.cancelLater.insert(id)
        case .stopLocal(let id, let acknowledged):
            await apply(.apply(.stop, id: .id(id)))
            agree(id, remote[id])
            // A one-time alarm ends: its event keeps the acknowledgement a while, for the others.
            if table[id] == nil { state.ended[id] = EndedAlarm(acknowledged: acknowledged, event: nil) }
        case .snoozeLocal(let id, let until):
            // Until the instant the other machine snoozed to, not for this alarm's own length
            // from now: every machine rings the snoozed occurrence at the same moment, once.
            await apply(.snooze(id: .id(id), length: min(until.timeIntervalSince(clock.now), WireLimits.maximumSnooze)))
            agree(id, remote[id])
        case .deleteRemote(let id, let href, let etag):
            switch await collection.delete(href, ifMatch: etag) {
            case .success:
                state.alarms.removeValue(forKey: id)
                state.adopted.remove(id)
                state.ended.removeValue(forKey: id)
            case .failure(.conflict): conflicted = true
            case .failure(.failed(let text)): logger.warning("sync: could not remove \(id): \(text)")
            }
        case .conflictSettled(let id, let keptHere):
            let title = table[id]?.title ?? id.uuidString.lowercased()
            outbox.send(.notice(summary: L("An alarm was changed on two machines"),
                                    body: keptHere ? L("“%@”: the change made here was later, and is kept on every machine.", title)
                                                   : L("“%@”: the change made on another machine was later, and is kept here.", title)))
        }
    }

    /// Applies a change from the server as the user's own, once the runtime has made it (its
    /// change is followed as the sync's own); refusals are logged, never thrown.
    @discardableResult
    private func apply(_ command: AlarmEngine.Command) async -> Bool {
        let result = await withCheckedContinuation { (answered: CheckedContinuation<Result<AlarmRecord?, AlarmError>, Never>) in
            outbox.send(.call(command, owner: ClientIdentity.userAppID) { answered.resume(returning: $0) })
        }
        if case .failure(let error) = result {
            logger.warning("sync: a change from \(collection.url) was refused: \(error.reason)")
            return false
        }
        return true
    }

    /// Both sides now hold what the server has: the alarm as it is here after the change, the
    /// reminder as it is there.
    private func agree(_ id: UUID, _ there: RemoteAlarm?) {
        guard let there else { return }
        guard let record = table[id] else {
            // Ended here by the change taken (a one-time alarm stopped there): what the server
            // has is agreed, or the next round would write over it with an old ETag.
            state.alarms[id]?.etag = there.etag
            state.alarms[id]?.acknowledged = there.reminder.acknowledged
            state.alarms[id]?.snoozedUntil = there.reminder.snoozedUntil
            return
        }
        state.alarms[id] = SyncedAlarm(href: there.href, etag: there.etag, agreed: record.request, disabled: record.disabled,
                                       acknowledged: there.reminder.acknowledged, snoozedUntil: there.reminder.snoozedUntil)
        // A Stop or snooze made here and not yet told stays to be told.
        if state.unsentReminders[id] == nil { local[id]?.reminder = there.reminder }
    }

    /// `event` as the calendar object written for it.
    private static func calendarText(_ event: ICalComponent) -> String {
        ICalComponent("VCALENDAR", properties: [ICalProperty("VERSION", "2.0"), ICalProperty("PRODID", AlarmCalendar.productID)],
                      components: [event]).text
    }

    // MARK: The state file

    /// The state in `file`: `nil` when there is none; a file that cannot be read (damaged,
    /// over `maximumStateBytes`) is kept aside, never read again nor overwritten unseen, and
    /// the failure names why.
    /// The state in `file`, or why it could not be read, and then the name it was kept aside as.
    private static func load(_ file: FilePath, logger: Logger) -> (state: Result<SyncState?, StoreError>, aside: FilePath?) {
        let failure: StoreError
        do throws(StoreError) {
            guard let data = try StoredFile.read(file, maximumBytes: maximumStateBytes) else { return (.success(nil), nil) }
            do { return (.success(try JSONDecoder().decode(SyncState.self, from: data)), nil) } catch {
                failure = StoreError("it is not a sync state: \(String(describing: error).prefix(300))")
            }
        } catch {
            failure = error
        }
        do {
            let aside = try StoredFile.moveAside(file)
            logger.error("sync: \(file) could not be read (\(failure)); kept as \(aside)")
            return (.failure(failure), aside)
        } catch {
            logger.error("sync: \(file) could not be read (\(failure)) nor kept aside (\(error))")
            return (.failure(failure), nil)
        }
    }

    private func save() {
        guard !stopped else { return }
        do {
            try AtomicFile.write(try JSONEncoder().encode(state), to: file)
        } catch {
            logger.error("sync: could not save \(file): \(error)")
        }
    }
}

private extension AlarmRecord {
    /// When its countdown began, while it counts down; resting between unanswered rings, when
    /// the occurrence first rang (a Stop elsewhere since then ends the chain).
    var countdownStart: Date? {
        if case .countdown(let until, let length, _) = phase { unanswered?.since ?? until.addingTimeInterval(-length) } else { nil }
    }
}

private extension SyncAction {
    /// The step in a few words, for the log (a round may have 10,000).
    var summary: String {
        switch self {
        case .upload(let id, let etag): "upload \(id) over \(etag ?? "nothing")"
        case .createLocal(let id, _, _): "create \(id)"
        case .updateLocal(let id, _, _): "update \(id)"
        case .takeLater(let id, _): "later \(id)"
        case .cancelLocal(let id): "cancel \(id)"
        case .cancelLater(let id): "cancel later \(id)"
        case .stopLocal(let id, let acknowledged): "stop \(id) (\(acknowledged))"
        case .snoozeLocal(let id, let until): "snooze \(id) until \(until)"
        case .deleteRemote(let id, _, _): "delete \(id)"
        case .acknowledgeEnded(let id, _): "acknowledge \(id)"
        case .conflictSettled(let id, let keptHere): "conflict \(id) kept \(keptHere ? "here" : "there")"
        }
    }
}
