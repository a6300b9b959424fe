import FoundationEssentials
import Logging
import ReveilleBus
import ReveilleCore

/// Rings every alerting alarm: one looping stream each, from the moment it alerts until it
/// leaves `alerting`. Never lets audio trouble reach the agent: without PulseAudio it logs
/// one line, lets the notification carry a sound hint, and reconnects while anything rings.
@GLibActor
final class AlarmSounder: AlarmRinger {
    let library: SoundLibrary
    private let pulse: PulseAudio
    private let sinkGuard: SinkGuard
    private let logger: Logger
    private var ringing: [UUID: AlarmRecord] = [:]
    /// When each scheduled or counting-down alarm is due.
    private var upcoming: [UUID: Date] = [:]
    /// The alarms, read-only.
    private var alarms = AlarmTable.empty
    /// Hears which alarms ring when that changes outside a change of the alarms.
    private weak var runtime: AgentRuntime?
    /// The alarms the runtime was last told this rings.
    private var told: Set<UUID> = []
    private var streams: [UUID: LoopingStream] = [:]
    private let sounds = SoundCache()
    private var reconnectPending = false
    private var reportedOutage = false
    private var previews: [UUID: LoopingStream] = [:]
    /// Corked streams opened just before an alarm is due, by alarm.
    private var prepared: [UUID: LoopingStream] = [:]
    private var prepareTimer: (id: UUID, due: Date, source: UInt32)?
    /// Whether `start()` was called; before, nothing touches the sound server or the sink.
    private var started = false
    /// How often each ringing alarm's stream was started again after it ended.
    private var restarts: [UUID: Int] = [:]
    /// How long before an alert its stream is opened corked.
    static let prepareAhead: TimeInterval = 1.5

    init(library: SoundLibrary, sinkGuard: SinkGuard, logger: Logger, runtime: AgentRuntime?) {
        self.library = library
        self.sinkGuard = sinkGuard
        self.runtime = runtime
        self.logger = logger
        pulse = PulseAudio(appName: "Reveille", appID: "io.github.reveille.Reveille")
        pulse.onReadyChange = { [weak self] ready in self?.readyChanged(ready) }
        pulse.onBreakthrough = { [logger] muted, volume in
            logger.info("an alarm's sound came up \(muted ? "muted" : "at \(Int(volume * 100))%") (a stored stream setting); made it audible")
        }
    }

    /// Connects to the sound server (and repairs a sink a crashed agent left raised): only
    /// once this agent owns the bus name and the state folder. Connecting early means the
    /// first alarm does not wait for it.
    func start() {
        started = true
        pulse.connect()
    }

    /// Follows the alarms' changes: one stream per alerting alarm, and a corked stream opened
    /// just before the next alarm is due.
    func ring(_ changes: [AlarmChange], in alarms: AlarmTable) -> Set<UUID> {
        self.alarms = alarms
        update(changes)
        told = Set(streams.keys)
        return told
    }

    /// Tells the runtime which alarms ring, when that changed since it last heard.
    private func tellSounding() {
        let now = Set(streams.keys)
        guard now != told else { return }
        told = now
        runtime?.receive(.soundChanged(now))
    }

    private func update(_ changes: [AlarmChange]) {
        for change in changes {
            let state = change.record?.state
            ringing[change.id] = state == .alerting ? change.record : nil
            upcoming[change.id] = state == .scheduled || state == .countdown ? change.record?.fireDate : nil
            if state != .alerting, let stream = streams.removeValue(forKey: change.id) { stream.stop() }
            if state != .alerting { restarts[change.id] = nil }
            if upcoming[change.id] == nil, state != .alerting, let stream = prepared.removeValue(forKey: change.id) { stream.stop() }
        }
        reconcile()
    }

    /// Stops every sound and gives the sink back, as at shutdown.
    func silenceAll() {
        update(ringing.keys.map { AlarmChange(id: $0, record: nil) } + upcoming.keys.map { AlarmChange(id: $0, record: nil) })
    }

    private func reconcile() {
        guard started else { return }
        prepareNext()
        if ringing.isEmpty {
            sinkGuard.restore(pulse)
            return
        }
        // A connection under way reports its outcome; only a failed one is an outage.
        guard pulse.isReady else { return pulse.isConnecting ? () : waitForPulse() }
        sinkGuard.makeAudible(pulse)
        for (id, record) in ringing where streams[id] == nil { start(record) }
    }

    /// Plays a sound for `seconds`, for `reveille play`. Returns the file played.
    func preview(_ sound: AlertConfiguration.AlertSound, seconds: TimeInterval) throws(AlarmError) -> String {
        let path = try library.resolve(sound, allowPaths: true)
        guard started else { throw .agentUnavailable("this reveille-agent does not run the alarms (it does not own the bus name)") }
        guard pulse.isReady else {
            pulse.connect()
            throw .agentUnavailable("PulseAudio is not reachable (\(pulse.lastError)); cannot play \(path)")
        }
        let id = UUID()
        let sound: any SoundReader
        do { sound = try sounds.reader(for: path) } catch { throw .invalidConfiguration(L("sound %@", error.description)) }
        guard let stream = pulse.play(sound, volume: 1, fadeIn: 0, mediaName: "Reveille preview", eventID: "alarm-clock-elapsed") else {
            throw .invalidConfiguration("cannot play \(path); see the agent's log")
        }
        previews[id] = stream
        MainLoopSources.after(milliseconds: UInt32(max(0.1, min(seconds, 60)) * 1000)) { [weak self] in
            self?.previews.removeValue(forKey: id)?.stop()
        }
        return path
    }

    /// Arms a one-shot loop timeout to open the next alert's stream corked, just before it is due.
    /// Only an optimisation: the alert itself is driven by the runtime's timerfd.
    private func prepareNext() {
        var next: (key: UUID, value: Date)?
        for entry in upcoming where prepared[entry.key] == nil && entry.value < (next?.value ?? .distantFuture) { next = entry }
        if let armed = prepareTimer, armed.id == next?.key, armed.due == next?.value { return }
        if let armed = prepareTimer { MainLoopSources.remove(armed.source) }
        prepareTimer = nil
        guard let (id, due) = next else { return }
        let wait = due.timeIntervalSinceNow - Self.prepareAhead
        // One wakeup, not a poll. GLib timeouts run on the monotonic clock, which stops in
        // suspend: after a resume this may come late, and the alert then simply opens uncorked.
        guard wait < 40 * 86_400 else { return }
        let source = MainLoopSources.after(milliseconds: UInt32(max(0, wait) * 1000)) { [weak self] in
            guard let self else { return }
            self.prepareTimer = nil
            if self.pulse.isReady, self.prepared[id] == nil, self.upcoming[id] != nil, let record = self.alarms[id],
               let stream = self.openStream(for: record, corked: true) {
                self.prepared[id] = stream
            }
        }
        prepareTimer = (id, due, source)
    }

    private func start(_ record: AlarmRecord) {
        let id = record.id
        if let stream = prepared.removeValue(forKey: id) {
            stream.uncork()
            streams[id] = stream
            return
        }
        guard let stream = openStream(for: record, corked: false) else { return }
        streams[id] = stream
    }

    /// Opens the alarm's sound (its own, else the default), failures logged.
    private func openStream(for record: AlarmRecord, corked: Bool) -> LoopingStream? {
        var own: String?
        do { own = try library.resolve(record.sound, allowPaths: true) } catch {
            logger.warning("\(record.id): \(error.reason); ringing the default sound instead")
        }
        let playable = sounds.firstPlayable([own].compactMap { $0 } + library.defaultPaths()) { [logger] failure in
            logger.error("\(record.id): \(failure); ringing the default sound instead")
        }
        guard let sound = playable?.reader else {
            logger.error("no playable sound for \(record.id); the notification asks the server to play \(SoundLibrary.themeFallback)")
            return nil
        }
        let stream = pulse.play(sound, volume: record.ring.volume ?? 1, fadeIn: record.ring.fadeIn ?? 0,
                                mediaName: "Alarm: \(NotificationContent.displayable(record.title, limit: 80))", eventID: "alarm-clock-elapsed", corked: corked)
        guard let stream else {
            logger.error("could not open a PulseAudio stream for \(record.id): \(pulse.lastError)")
            return nil
        }
        let id = record.id
        stream.onFailure = { [weak self] in
            guard let self else { return }
            if self.prepared[id] === stream { self.prepared[id] = nil }
            guard self.streams[id] === stream else { return }
            self.streams[id] = nil
            self.tellSounding()
            guard self.pulse.isReady else { return self.waitForPulse() }
            // The server is there but the stream ended (its sink input killed, the sink gone,
            // the server stalled past its deadline): ring again, with growing pauses.
            let attempt = self.restarts[id, default: 0]
            self.restarts[id] = attempt + 1
            let pause = min(30, 0.25 * Double(1 << min(attempt, 8)))
            self.logger.error("the sound stream of \(id) ended (\(self.pulse.lastError)); starting it again in \(pause) s")
            MainLoopSources.after(milliseconds: UInt32(pause * 1000)) { [weak self] in
                self?.reconcile()
                self?.tellSounding()
            }
        }
        return stream
    }

    private func readyChanged(_ ready: Bool) {
        if ready {
            if reportedOutage { logger.info("PulseAudio is back; ringing resumes") }
            reportedOutage = false
            sinkGuard.restore(pulse)   // a change left behind by a crash
            reconcile()
        } else {
            for stream in Array(streams.values) + Array(prepared.values) { stream.stop() }
            streams = [:]
            prepared = [:]
            if !ringing.isEmpty { waitForPulse() }
        }
        tellSounding()
    }

    /// Retries the connection every second while something should ring; idle otherwise.
    private func waitForPulse() {
        if !reportedOutage {
            logger.error("PulseAudio is not reachable (\(pulse.lastError)); alarms alert without Reveille's sound until it returns")
            reportedOutage = true
        }
        guard !reconnectPending else { return }
        reconnectPending = true
        MainLoopSources.after(milliseconds: 1000) { [weak self] in
            guard let self else { return }
            self.reconnectPending = false
            guard !self.ringing.isEmpty, !self.pulse.isReady else { return }
            self.pulse.connect()
            self.waitForPulse()
        }
    }
}
