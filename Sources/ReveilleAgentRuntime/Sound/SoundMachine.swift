import FoundationEssentials
import Logging
import ReveilleModel

/// The sounder's rules, pure: which alarm has a stream, when the next alarm's stream is
/// opened corked ahead of its instant, when a stream that ended is started again (with growing
/// pauses), when the sound server is asked again, and when the sink is raised and given back.
/// Events in, effects out; `AlarmSounder` performs the effects with PulseAudio and feeds back
/// what the sound server did. Tested on virtual time (SoundMachineTests).
package struct SoundMachine {
    package init() {}

    /// What happened.
    package enum Event: Equatable {
        /// The agent owns the alarms: from now on the sound server may be touched.
        case started
        /// Alarms changed: each alarm's state and instant after the change (`nil`: it ended).
        case changed([AlarmSound])
        /// The sound server became reachable (`true`) or was lost (`false`).
        case server(ready: Bool)
        /// A connection to the sound server is under way; its outcome comes as `.server`.
        case connecting
        /// An alarm's stream could not be opened (no playable sound, the server refused it).
        case openFailed(UUID)
        /// An alarm's stream ended on the server's side (its sink input killed, the sink gone).
        case streamEnded(UUID)
        /// The timer of `.armPrepare` ran out.
        case prepareDue(UUID)
        /// The pause of `.restartLater` ran out.
        case restartDue(UUID)
        /// The pause of `.reconnectLater` ran out.
        case reconnectDue
        /// Everything goes silent, as at shutdown: as if every alarm had ended.
        case silence
    }

    /// An alarm as the sounder needs it: its id, state and instant. (Not named `Alarm`, which
    /// would hide the model's type inside the machine.)
    package struct AlarmSound: Equatable {
        package var id: UUID
        package var state: Alarm.State?
        package var fireDate: Date?

        package init(id: UUID, state: Alarm.State?, fireDate: Date?) {
            (self.id, self.state, self.fireDate) = (id, state, fireDate)
        }
    }

    /// What to do.
    package enum Effect: Hashable {
        /// Open the alarm's looping stream; corked: ready to start at once when it alerts.
        case open(UUID, corked: Bool)
        /// Start a prepared (corked) stream.
        case uncork(UUID)
        /// Stop and forget the alarm's stream.
        case stop(UUID)
        /// Report `.prepareDue(id)` at `instant` (replacing any armed before).
        case armPrepare(UUID, at: Date)
        /// Forget the armed `.prepareDue`.
        case disarmPrepare
        /// Report `.restartDue(id)` after `seconds`.
        case restartLater(UUID, seconds: TimeInterval)
        /// Connect to the sound server.
        case connect
        /// Report `.reconnectDue` after a second.
        case reconnectLater
        /// Make the sink audible for the alarm (unmute, raise a near-silent volume).
        case raiseSink
        /// Give the sink back as it was.
        case restoreSink
        /// These alarms ring with Reveille's own sound now (the runtime is told).
        case sounding(Set<UUID>)
        case log(Logger.Level, String)
    }

    /// How long before an alert its stream is opened corked.
    package static let prepareAhead: TimeInterval = 1.5
    /// A prepare timer further ahead than this is not armed (a GLib timeout cannot hold it,
    /// and the alarm opens its stream uncorked anyway).
    package static let prepareHorizon: TimeInterval = 40 * 86_400

    package private(set) var started = false
    private var ready = false
    private var connecting = false
    /// The alerting alarms.
    private var ringing: Set<UUID> = []
    /// When each scheduled or counting-down alarm is due.
    private var upcoming: [UUID: Date] = [:]
    /// Streams playing, by alarm.
    package private(set) var playing: Set<UUID> = []
    /// Corked streams opened before their alarm is due.
    package private(set) var prepared: Set<UUID> = []
    private var armed: (id: UUID, due: Date)?
    /// The last prepare that fell due, opened or not: never armed again (a past instant fires at once, in a loop).
    private var tried: (id: UUID, due: Date)?
    /// How often each ringing alarm's stream was started again after it ended.
    private var restarts: [UUID: Int] = [:]
    private var restartPending: Set<UUID> = []
    /// Alarms whose stream could not be opened.
    private var failed: Set<UUID> = []
    private var reconnectPending = false
    private var reportedOutage = false
    /// What the runtime was last told rings.
    private var told: Set<UUID> = []

    /// Handles `event` at `now`.
    package mutating func handle(_ event: Event, now: Date) -> [Effect] {
        var effects: [Effect] = []
        switch event {
        case .started:
            started = true
            connecting = true
            effects.append(.connect)
        case .changed(let alarms):
            for alarm in alarms { effects += follow(alarm) }
        case .server(ready: true):
            ready = true
            connecting = false
            failed = []
            tried = nil
            if reportedOutage { effects.append(.log(.info, "PulseAudio is back; ringing resumes")) }
            reportedOutage = false
            // A change left behind by a crash is put back by `reconcile`, and only when nothing
            // rings: an agent restarted while its alarm still rings keeps the sink audible.
        case .server(ready: false):
            ready = false
            connecting = false
            effects += (playing.union(prepared)).sorted { $0.uuidString < $1.uuidString }.map { .stop($0) }
            playing = []
            prepared = []
            armed = nil
            if !ringing.isEmpty { effects += waitForServer() }
        case .connecting:
            connecting = true
        case .openFailed(let id):
            // Not tried again until the alarm rings anew or the server comes back: the
            // notification asks the server for a sound meanwhile.
            if playing.remove(id) != nil { failed.insert(id) }
            prepared.remove(id)
        case .streamEnded(let id):
            prepared.remove(id)
            guard playing.remove(id) != nil else { break }
            guard ready else { effects += waitForServer(); break }
            let attempt = restarts[id, default: 0]
            restarts[id] = attempt + 1
            let pause = min(30, 0.25 * Double(1 << min(attempt, 8)))
            restartPending.insert(id)
            effects.append(.log(.error, "the sound stream of \(id) ended; starting it again in \(pause) s"))
            effects.append(.restartLater(id, seconds: pause))
        case .prepareDue(let id):
            guard armed?.id == id else { break }
            tried = armed
            armed = nil
            if ready, !prepared.contains(id), !playing.contains(id), upcoming[id] != nil {
                prepared.insert(id)
                effects.append(.open(id, corked: true))
            }
        case .restartDue(let id):
            restartPending.remove(id)
        case .silence:
            let known = ringing.union(upcoming.keys).sorted { $0.uuidString < $1.uuidString }
            for id in known { effects += follow(AlarmSound(id: id, state: nil, fireDate: nil)) }
        case .reconnectDue:
            reconnectPending = false
            if !ringing.isEmpty, !ready {
                connecting = true
                effects.append(.connect)
                effects += waitForServer()
            }
        }
        effects += reconcile(now: now)
        if started, playing != told {
            told = playing
            effects.append(.sounding(playing))
        }
        return effects
    }

    /// The alarms that ring with Reveille's own sound, as the runtime was last told.
    package var sounding: Set<UUID> { told }

    private mutating func follow(_ alarm: AlarmSound) -> [Effect] {
        let id = alarm.id
        var effects: [Effect] = []
        if alarm.state == .alerting { ringing.insert(id) } else { ringing.remove(id) }
        let due = alarm.state == .scheduled || alarm.state == .countdown ? alarm.fireDate : nil
        upcoming[id] = due
        if alarm.state != .alerting {
            restarts[id] = nil
            restartPending.remove(id)
            failed.remove(id)
            if playing.remove(id) != nil { effects.append(.stop(id)) }
            if due == nil, prepared.remove(id) != nil { effects.append(.stop(id)) }
        }
        return effects
    }

    /// Opens what should play and prepares what comes next; gives the sink back when
    /// nothing rings.
    private mutating func reconcile(now: Date) -> [Effect] {
        guard started else { return [] }
        var effects = prepareNext(now: now)
        // The sink guard keeps what it changed on disk and acts only when there is something
        // to do: saying it again is cheap, and nothing is left raised after a missed turn.
        guard !ringing.isEmpty else { return effects + [.restoreSink] }
        guard ready else { return connecting ? effects : effects + waitForServer() }
        effects.append(.raiseSink)
        // Only what does not play yet is sorted (for a stable order): sorting every ringing alarm
        // by its text on each change cost the firing path 0.12 ms with 100 ringing (perf).
        let silent = ringing.filter { !playing.contains($0) && !restartPending.contains($0) && !failed.contains($0) }
        for id in silent.sorted(by: { $0.uuidString < $1.uuidString }) {
            playing.insert(id)
            if prepared.remove(id) != nil { effects.append(.uncork(id)) } else { effects.append(.open(id, corked: false)) }
        }
        return effects
    }

    /// Arms one timer for the next alarm's corked stream; a change of the next alarm re-arms it.
    private mutating func prepareNext(now: Date) -> [Effect] {
        var next: (id: UUID, due: Date)?
        for (id, due) in upcoming where !prepared.contains(id) && due < (next?.due ?? .distantFuture) && !(tried?.id == id && tried?.due == due) { next = (id, due) }
        if let armed, armed.id == next?.id, armed.due == next?.due { return [] }
        var effects: [Effect] = armed == nil ? [] : [.disarmPrepare]
        armed = nil
        guard let next, next.due.timeIntervalSince(now) - Self.prepareAhead < Self.prepareHorizon else { return effects }
        armed = next
        effects.append(.armPrepare(next.id, at: next.due.addingTimeInterval(-Self.prepareAhead)))
        return effects
    }

    /// Says once that the sound server is away, and asks again every second while anything rings.
    private mutating func waitForServer() -> [Effect] {
        var effects: [Effect] = []
        if !reportedOutage {
            reportedOutage = true
            effects.append(.log(.error, "PulseAudio is not reachable; alarms alert without Reveille's sound until it returns"))
        }
        if !reconnectPending {
            reconnectPending = true
            effects.append(.reconnectLater)
        }
        return effects
    }
}
