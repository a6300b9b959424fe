import FoundationEssentials
import ReveilleLoop
import ReveilleModel
import ReveilleRules
import ReveilleWords

/// Everything that can move the alarms, as the one kind of input `AgentRuntime.receive` takes.
package enum AgentEvent {
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
    /// The person changed the settings (`SetSettings`): the parts they steer apply them now.
    case settingsChanged(AgentSettings)
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

    /// The one alarm whose id starts with `prefix`, among `owner`'s when given.
    package func resolve(_ prefix: String, owner: String?) throws(AlarmError) -> UUID {
        try AlarmError.worded { () throws(AlarmRuleError) in try engine.resolve(prefix, owner: owner) }
    }
}

/// Where a part sends what it has to say: into the runtime's one queue, where it waits its turn.
/// A value, not the runtime: a part holding it can neither read the alarms nor run effects.
/// Made before the parts (each adapter with I/O of its own keeps one from its construction) and
/// given to the runtime, which alone reads from it; what is sent before the runtime is made, or
/// after it went, is dropped, as an event with nothing to move.
@GLibActor
package struct AgentEvents {
    /// The runtime that reads the events, set once by the runtime's construction.
    @GLibActor
    package final class Inbox {
        package weak var runtime: AgentRuntime?
        package nonisolated init() {}
    }

    package let inbox: Inbox

    package nonisolated init() { inbox = Inbox() }

    /// Whether the runtime has loaded the alarms: before, and after it went, an event changes nothing.
    package var isRunning: Bool { inbox.runtime?.isRunning ?? false }

    /// Queues `event` (handled at once when nothing else is being handled).
    package func send(_ event: AgentEvent) {
        inbox.runtime?.receive(event)
    }

    /// A client's change, answered at once (`AgentRuntime.call`).
    @discardableResult
    package func call(_ command: AlarmEngine.Command, owner: String? = nil) throws(AlarmError) -> AlarmRecord? {
        guard let runtime = inbox.runtime else { throw AgentRuntime.notStarted }
        return try runtime.call(command, owner: owner)
    }

    /// A button a client pressed as the person, answered at once (`AgentRuntime.press`).
    @discardableResult
    package func press(_ role: AlarmButtonRole, on id: UUID) throws(AlarmError) -> AlarmRecord? {
        guard let runtime = inbox.runtime else { throw AgentRuntime.notStarted }
        return try runtime.press(role, on: id)
    }
}

/// A part that shows, sounds, tells or acts on the alarms: it is handed each change with the
/// alarms as they now are and where to send what it has to say, and never asks the runtime for
/// state. What it has to say back is an `AgentEvent`, which waits its turn.
@GLibActor
package protocol AlarmFollower: AnyObject {
    /// The alarms that changed or ended (all of them once, at start), and all alarms after it.
    func follow(_ changes: [AlarmChange], in alarms: AlarmTable, events: AgentEvents)
    /// Something happened that is not a change of an alarm.
    func hear(_ notice: AgentNotice, events: AgentEvents)
    /// An occurrence ended, as the history keeps it: after the change that ended it.
    func ended(_ entry: AlarmHistory.Entry)
}

extension AlarmFollower {
    package func hear(_ notice: AgentNotice, events: AgentEvents) {}
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
}

/// Runs the intent of a button pressed on an alarm (`AlarmEngine.Effect.runIntent`): the app's
/// own action, started on the session bus.
@GLibActor
package protocol IntentPerformer: AnyObject {
    func perform(_ intent: AlarmIntent, alarm: AlarmRecord, button: String)
}
