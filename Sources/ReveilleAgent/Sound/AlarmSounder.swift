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
    private let now: () -> Date
    /// The rules: which alarm has a stream, what is prepared, restarted, raised.
    private var machine = SoundMachine()
    /// The streams the machine asked for, playing or prepared, by alarm.
    private var streams: [UUID: LoopingStream] = [:]
    /// The alarms, read-only: what a stream is opened for.
    private var alarms = AlarmTable.empty
    /// Hears which alarms ring when that changes outside a change of the alarms.
    private weak var runtime: AgentRuntime?
    private let sounds = SoundCache()
    private var previews: [UUID: LoopingStream] = [:]
    private var prepareSource: UInt32?
    /// Events the machine has yet to handle, and whether it is handling one: what the
    /// sound server reports while effects run waits its turn.
    private var pending: [SoundMachine.Event] = []
    private var feeding = false
    /// Inside `ring`: what rings is the answer, not a separate report to the runtime.
    private var answeringRuntime = false

    init(library: SoundLibrary, sinkGuard: SinkGuard, logger: Logger, runtime: AgentRuntime?,
         now: @escaping () -> Date = Date.init) {
        self.library = library
        self.sinkGuard = sinkGuard
        self.runtime = runtime
        self.logger = logger
        self.now = now
        pulse = PulseAudio(appName: "Reveille", appID: "io.github.reveille.Reveille")
        pulse.onReadyChange = { [weak self] ready in self?.feed(.server(ready: ready)) }
        pulse.onBreakthrough = { [logger] muted, volume in
            logger.info("an alarm's sound came up \(muted ? "muted" : "at \(Int(volume * 100))%") (a stored stream setting); made it audible")
        }
    }

    /// Connects to the sound server (and repairs a sink a crashed agent left raised): only
    /// once this agent owns the bus name and the state folder. Connecting early means the
    /// first alarm does not wait for it.
    func start() {
        feed(.started)
    }

    /// Follows the alarms' changes: one stream per alerting alarm, and a corked stream opened
    /// just before the next alarm is due.
    func ring(_ changes: [AlarmChange], in alarms: AlarmTable) -> Set<UUID> {
        self.alarms = alarms
        answeringRuntime = true
        defer { answeringRuntime = false }
        feed(.changed(changes.map { .init(id: $0.id, state: $0.record?.state, fireDate: $0.record?.fireDate) }))
        return machine.sounding
    }

    /// Stops every sound and gives the sink back, as at shutdown.
    func silenceAll() {
        feed(.silence)
    }

    private func feed(_ event: SoundMachine.Event) {
        pending.append(event)
        guard !feeding else { return }
        feeding = true
        defer { feeding = false }
        while !pending.isEmpty {
            for effect in machine.handle(pending.removeFirst(), now: now()) { perform(effect) }
        }
    }

    private func perform(_ effect: SoundMachine.Effect) {
        switch effect {
        case .open(let id, let corked):
            guard let record = alarms[id], let stream = openStream(for: record, corked: corked) else {
                return pending.append(.openFailed(id))
            }
            streams[id] = stream
            stream.onFailure = { [weak self] in
                guard let self, self.streams[id] === stream else { return }
                self.streams[id] = nil
                self.feed(.streamEnded(id))
            }
        case .uncork(let id):
            streams[id]?.uncork()
        case .stop(let id):
            streams.removeValue(forKey: id)?.stop()
        case .armPrepare(let id, let instant):
            if let source = prepareSource { MainLoopSources.remove(source) }
            // One wakeup, not a poll. GLib timeouts run on the monotonic clock, which stops in
            // suspend: after a resume this may come late, and the alert then opens uncorked.
            let wait = max(0, instant.timeIntervalSince(now()))
            prepareSource = MainLoopSources.after(milliseconds: UInt32(wait * 1000)) { [weak self] in
                self?.prepareSource = nil
                self?.feed(.prepareDue(id))
            }
        case .disarmPrepare:
            if let source = prepareSource { MainLoopSources.remove(source) }
            prepareSource = nil
        case .restartLater(let id, let seconds):
            MainLoopSources.after(milliseconds: UInt32(seconds * 1000)) { [weak self] in self?.feed(.restartDue(id)) }
        case .connect:
            pulse.connect()
        case .reconnectLater:
            MainLoopSources.after(milliseconds: 1000) { [weak self] in self?.feed(.reconnectDue) }
        case .raiseSink:
            sinkGuard.makeAudible(pulse)
        case .restoreSink:
            sinkGuard.restore(pulse)
        case .sounding(let sounding):
            if !answeringRuntime { runtime?.receive(.soundChanged(sounding)) }
        case .log(let level, let message):
            logger.log(level: level, "\(message)\(level >= .error && !pulse.lastError.isEmpty ? " (\(pulse.lastError))" : "")")
        }
    }

    /// Plays a sound for `seconds`, for `reveille play`. Returns the file played.
    func preview(_ sound: AlertConfiguration.AlertSound, seconds: TimeInterval) throws(AlarmError) -> String {
        let path = try library.resolve(sound, allowPaths: true)
        guard machine.started else { throw .agentUnavailable("this reveille-agent does not run the alarms (it does not own the bus name)") }
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
        return stream
    }
}
