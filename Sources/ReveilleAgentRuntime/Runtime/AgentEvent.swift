import FoundationEssentials
import ReveilleLoop
import ReveilleModel
import ReveilleRules
import ReveilleWords

/// Everything that can move the alarms, as the one kind of input `AgentRuntime.receive` takes.
package enum AgentEvent: Sendable {
    /// The wall-clock timer reached the earliest due instant.
    case timerFired
    /// The wall clock was set, or the machine resumed.
    case clockSet
    /// The local time zone changed.
    case timeZoneChanged
    /// A button on an alarm's notification, by the alarm's id and the button's role; the
    /// alert's longer snooze is the second button with its own `snoozeLength`. `answer`, when
    /// a client pressed it (the alert window), hears the alarm after it or why nothing was done.
    case buttonPressed(UUID, AlarmButtonRole, snoozeLength: TimeInterval? = nil,
                       answer: (@GLibActor (Result<AlarmRecord?, AlarmError>) -> Void)? = nil)
    /// A client's change; `answer` hears the alarm after it (`nil`: it ended) or the refusal.
    case call(AlarmEngine.Command, owner: String?, answer: @GLibActor (Result<AlarmRecord?, AlarmError>) -> Void)
    /// A part has something the user should know (summary, body).
    case notice(summary: String, body: String)
    /// The alarms Reveille's own sound rings changed on the sound server's side (it came or
    /// went, a stream ended or started again): the notifications follow.
    case soundChanged(Set<UUID>)
    /// Whether what the notification server shows now is seen and answerable changed.
    case notificationReach(NotificationReach)
    /// What the alerter sent the notification server for a firing has left (it answered), or
    /// `AgentRuntime.alertHeadStart` passed: the firing's other followers and its save run.
    case alertSent
    /// The person unlocked the session while an alarm rings: its alert is shown afresh.
    case sessionUnlocked
    /// The user decided whether an app may set alarms (its prompt, or `reveille auth`).
    case authorizationChanged(appID: String, AuthorizationState)
    /// The person changed the settings (`SetSettings`): the parts they steer apply them now;
    /// `applied`, when the change is answered, hears that they did.
    case settingsChanged(AgentSettings, applied: (@GLibActor () -> Void)? = nil)
    /// A client's request of the sound (a preview, the outputs), for the ringer; `answer` hears
    /// the reply's strings or the refusal.
    case sound(SoundRequest, answer: @GLibActor (Result<[String], AlarmError>) -> Void)
}

/// What a client asks of the sound beside the alarms, answered by the ringer through the
/// runtime (which knows whether one rings).
package enum SoundRequest: Sendable {
    /// The outputs alarms can ring on, as one JSON array (`reveille sounds --outputs`).
    case outputs
    /// `sound` played for `seconds` at the stream volume `volume` (`reveille play`, a dialog
    /// choosing a sound), for the client `owner`; `alone`: the other previews stop first.
    /// Answered with the file played.
    case preview(AlertConfiguration.AlertSound, seconds: TimeInterval, volume: Double, alone: Bool, owner: String)
    /// Every preview that plays stops.
    case stopPreviews
}

/// What the followers hear besides the alarms' changes.
package enum AgentNotice {
    /// An occurrence did not ring (`late`) or rang unanswered, due at `due`.
    case missed(AlarmRecord, due: Date, reason: MissReason)
    /// An alarm told `missed` is ahead again (the clock was set back before its time): its
    /// missed notice was a mistake.
    case missedWithdrawn(UUID)
    /// A button was pressed on the alarm's notification, after its change.
    case buttonPressed(AlarmRecord, AlarmButtonRole)
    /// Something the user should know, shown as a persistent notice.
    case notice(summary: String, body: String)
    /// How far a notification reaches the person now (told at once when known, then on each change).
    case notificationReach(NotificationReach)
    /// The person unlocked the session while an alarm rings: show the alert afresh, in front of them.
    case sessionUnlocked
    /// The user decided whether an app may set alarms: the app and the user's tools hear it.
    case authorizationChanged(appID: String, AuthorizationState)
    /// The settings changed: each part applies what it is steered by.
    case settingsChanged(AgentSettings)
}

/// The alarms as the runtime has them, read-only: what followers keep and read instead of
/// asking the runtime. It cannot change while a follower follows (events wait their turn), and
/// each change to it is followed. Not a copy: a copy kept per change would make every change
/// cost a copy of all alarms (4.4 ms more per change with 10,000 alarms, debug build).
@GLibActor
package struct AlarmTable {
    private let book: AlarmBook

    package init(_ book: AlarmBook) { self.book = book }

    /// No alarms (before the store is loaded).
    package static let empty = AlarmTable(AlarmBook(AlarmEngine()))

    private var engine: AlarmEngine { book.engine }

    /// The alarms Reveille's own sound rings (the others' notifications ask the server for one).
    package var sounding: Set<UUID> { book.sounding }

    package subscript(id: UUID) -> AlarmRecord? { engine.alarms[id] }

    /// Every alarm, in no order.
    package var records: Dictionary<UUID, AlarmRecord>.Values { engine.alarms.values }

    /// Every alarm: alerting first, then by the instant they next act.
    package var list: [AlarmRecord] { engine.list }

    /// Whether the change being followed now is the answer to an event `outbox` sent (a part
    /// telling its own changes from the others'); false outside `follow`, and for the clock's.
    package func changeCame(from outbox: AgentOutbox) -> Bool {
        book.origin == ObjectIdentifier(outbox)
    }

    /// The loop time the runtime has spent on the event it handles now (what a client's change
    /// costs, charged to its caller when answered); zero outside an event.
    package var timeOnThisEvent: Duration {
        book.handlingSince.map { SuspendingClock.now - $0 } ?? .zero
    }

    /// The one alarm whose id starts with `prefix`, among `owner`'s when given.
    package func resolve(_ prefix: String, owner: String?) throws(AlarmError) -> UUID {
        try AlarmError.worded { () throws(AlarmRuleError) in try engine.resolve(prefix, owner: owner) }
    }
}

/// What one part has to say, in the order it said it: the part makes it and owns it, and the
/// runtime alone reads it (as an `AsyncStream`, from `AgentRuntime.start` on). It leads into its
/// own buffer only: a part holding it can neither reach the runtime nor read the alarms nor run
/// effects, and nothing in it is set after it is made. What is sent before the runtime reads it
/// waits; what is sent after the runtime stopped is dropped, as an event with nothing to move.
@GLibActor
package final class AgentOutbox {
    /// Read by the runtime alone, once.
    package nonisolated let events: AsyncStream<AgentEvent>
    private nonisolated let continuation: AsyncStream<AgentEvent>.Continuation

    package nonisolated init() {
        (events, continuation) = AsyncStream.makeStream(of: AgentEvent.self, bufferingPolicy: .unbounded)
    }

    /// Events sent and not yet handled: bounded by what sends them (each client's calls by the
    /// gate's budgets, a notification's presses by its buttons), told by the runtime as it reads.
    package internal(set) var unread = 0

    /// Queues `event` for the runtime, which handles it in a later turn of the loop.
    package func send(_ event: AgentEvent) {
        unread += 1
        continuation.yield(event)
    }

    deinit {
        continuation.finish()
    }
}

/// A part with something of its own to say (a signal it watched, a button pressed on what it
/// shows, a timer of its own): the runtime reads its outbox.
@GLibActor
package protocol AgentEventSource: AnyObject {
    var outbox: AgentOutbox { get }
}

/// A part that shows, sounds, tells or acts on the alarms: it is handed each change with the
/// alarms as they now are, and never asks the runtime for state. What it has to say back is an
/// `AgentEvent` in its own outbox (`AgentEventSource`), which waits its turn.
@GLibActor
package protocol AlarmFollower: AnyObject {
    /// The alarms that changed or ended (all of them once, at start), and all alarms after it.
    func follow(_ changes: [AlarmChange], in alarms: AlarmTable)
    /// Something happened that is not a change of an alarm.
    func hear(_ notice: AgentNotice)
    /// An occurrence ended, as the history keeps it: after the change that ended it.
    func ended(_ entry: AlarmHistory.Entry)
}

extension AlarmFollower {
    package func hear(_ notice: AgentNotice) {}
    package func ended(_ entry: AlarmHistory.Entry) {}
}

/// The follower that shows the alerts. On the firing path it follows right after the ringer,
/// and the other followers and the save wait until what it sent the notification server has
/// left: the agent's loop then takes no processor the notification's own threads need.
@GLibActor
package protocol AlarmAlerter: AlarmFollower {
    /// Calls `body` once everything sent to the notification server so far was answered, or
    /// can go no further (no server yet); at once when nothing is under way.
    func whenSent(_ body: @escaping @GLibActor () -> Void)
}

/// The part that rings the alarms. It is handed each change before the followers, and its
/// answer, which alarms it rings itself, is in the table they read: a notification asks the
/// server for a sound only when Reveille plays none.
@GLibActor
package protocol AlarmRinger: AnyObject {
    /// Follows `changes`; returns the alarms it now rings itself.
    func ring(_ changes: [AlarmChange], in alarms: AlarmTable) -> Set<UUID>
    /// The settings changed (where alarms ring, whether a muted output is raised).
    func apply(_ settings: AgentSettings)
    /// A client's request of the sound: the reply's strings.
    func answer(_ request: SoundRequest) throws(AlarmError) -> [String]
}

/// Runs the intent of a button pressed on an alarm (`AlarmEngine.Effect.runIntent`): the app's
/// own action, started on the session bus.
@GLibActor
package protocol IntentPerformer: AnyObject {
    func perform(_ intent: AlarmIntent, alarm: AlarmRecord, button: String)
}
