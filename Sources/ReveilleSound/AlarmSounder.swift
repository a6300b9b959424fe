import FoundationEssentials
import Logging
import ReveilleAgentRuntime
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleModel
import ReveilleRules
import ReveilleWords

/// Rings every alerting alarm: one looping stream each, from the moment it alerts until it
/// leaves `alerting`. Never lets audio trouble reach the agent: without PulseAudio it logs
/// one line, lets the notification carry a sound hint, and reconnects while anything rings.
@GLibActor
package final class AlarmSounder: AlarmRinger, AgentEventSource {
    package let library: SoundLibrary
    private let output: any SoundOutput
    private let logger: Logger
    private let clock: any AgentClock
    /// The rules: which alarm has a stream, what is prepared, restarted, raised.
    private var machine = SoundMachine()
    /// The streams the machine asked for, playing or prepared, by alarm.
    private var streams: [UUID: any RingingStream] = [:]
    /// The alarms, read-only: what a stream is opened for.
    private var alarms = AlarmTable.empty
    /// Where it tells which alarms ring when that changes outside a change of the alarms.
    package let outbox = AgentOutbox()
    private let sounds = SoundCache()
    /// The previews that play, oldest first, each with the client that asked for it.
    private var previews: [(id: UUID, owner: String, stream: any RingingStream)] = []
    /// Previews that play at once, in all: a sound server has a few hundred streams (PulseAudio
    /// 256), and an alarm's must always find one. A client has one at a time.
    package static let maximumPreviews = 4
    private var prepareTimer: ClockTimer?
    /// Events the machine has yet to handle, and whether it is handling one: what the
    /// sound server reports while effects run waits its turn.
    private var pending: [SoundMachine.Event] = []
    private var feeding = false
    /// Inside `ring`: what rings is the answer, not a separate report to the runtime.
    private var answeringRuntime = false

    package init(library: SoundLibrary, output: any SoundOutput, logger: Logger, clock: any AgentClock) {
        self.library = library
        self.output = output
        self.logger = logger
        self.clock = clock
        output.onReadyChange = { [weak self] ready in self?.feed(.server(ready: ready)) }
    }

    /// Connects to the sound server (and repairs a sink a crashed agent left raised): only
    /// once this agent owns the bus name and the state folder. Connecting early means the
    /// first alarm does not wait for it.
    package func start() {
        feed(.started)
    }

    /// The settings changed: the output takes where alarms ring and whether a muted sink is raised.
    package func apply(_ settings: AgentSettings) {
        output.apply(settings)
    }

    /// Follows the alarms' changes: one stream per alerting alarm, and a corked stream opened
    /// just before the next alarm is due.
    package func ring(_ changes: [AlarmChange], in alarms: AlarmTable) -> Set<UUID> {
        self.alarms = alarms
        answeringRuntime = true
        defer { answeringRuntime = false }
        feed(.changed(changes.map { .init(id: $0.id, state: $0.record?.state, fireDate: $0.record?.fireDate) }))
        return machine.sounding
    }

    /// Stops every sound and gives the sink back, as at shutdown.
    package func silenceAll() {
        feed(.silence)
    }

    private func feed(_ event: SoundMachine.Event) {
        pending.append(event)
        guard !feeding else { return }
        feeding = true
        defer { feeding = false }
        while !pending.isEmpty {
            for effect in machine.handle(pending.removeFirst(), now: clock.now) { perform(effect) }
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
            if let timer = prepareTimer { clock.cancel(timer) }
            // One wakeup, not a poll. After a resume this may come late (the loop's timers stop
            // in suspend), and the alert then opens uncorked.
            prepareTimer = clock.after(instant.timeIntervalSince(clock.now)) { [weak self] in
                self?.prepareTimer = nil
                self?.feed(.prepareDue(id))
            }
        case .disarmPrepare:
            if let timer = prepareTimer { clock.cancel(timer) }
            prepareTimer = nil
        case .restartLater(let id, let seconds):
            clock.after(seconds) { [weak self] in self?.feed(.restartDue(id)) }
        case .connect:
            output.connect()
        case .reconnectLater:
            clock.after(1) { [weak self] in self?.feed(.reconnectDue) }
        case .raiseSink:
            output.raiseSink()
        case .restoreSink:
            output.restoreSink()
        case .sounding(let sounding):
            if !answeringRuntime { outbox.send(.soundChanged(sounding)) }
        case .log(let level, let message):
            logger.log(level: level, "\(message)\(level >= .error && !output.lastError.isEmpty ? " (\(output.lastError))" : "")")
        }
    }

    /// A client's request of the sound, as the runtime hands it on.
    package func answer(_ request: SoundRequest) throws(AlarmError) -> [String] {
        switch request {
        case .outputs:
            let outputs = try outputs()
            do { return [String(decoding: try JSONCoding.compactEncoder.encode(outputs), as: UTF8.self)] } catch {
                throw .invalidState("the outputs could not be encoded: \(error)")
            }
        case .preview(let sound, let seconds, let volume, let alone, let owner):
            return [try preview(sound, seconds: seconds, volume: volume, alone: alone, owner: owner)]
        case .stopPreviews:
            stopPreviews()
            return []
        }
    }

    /// The sinks alarms can ring on (`reveille sounds --outputs`).
    package func outputs() throws(AlarmError) -> [PulseAudio.Output] {
        guard output.isReady else {
            output.connect()
            throw .agentUnavailable("PulseAudio is not reachable (\(output.lastError)); its outputs cannot be listed")
        }
        return output.outputs
    }

    /// Plays a sound for `seconds` at the stream volume `volume`, for `reveille play` and a
    /// dialog choosing a sound; `alone`: the previews that play stop first. `owner`'s earlier
    /// preview stops (one a client), and past `maximumPreviews` the oldest. Returns the file played.
    package func preview(_ sound: AlertConfiguration.AlertSound, seconds: TimeInterval, volume: Double = 1, alone: Bool = false,
                         owner: String = "") throws(AlarmError) -> String {
        let path = try library.resolve(sound, allowPaths: true)
        guard machine.started else { throw .agentUnavailable("this reveille-agent does not run the alarms (it does not own the bus name)") }
        guard output.isReady else {
            output.connect()
            throw .agentUnavailable("PulseAudio is not reachable (\(output.lastError)); cannot play \(path)")
        }
        let id = UUID()
        let sound: any SoundReader
        do { sound = try sounds.reader(for: path) } catch { throw .invalidConfiguration(L("sound %@", error.description)) }
        // Previews asked for faster than the server makes streams wait for it: stopped before it
        // made them, each still takes one of the sink's places (256 in all, the alarm's among them).
        guard output.streamsEnding < Self.maximumPreviews else {
            throw .invalidState("the previews asked for before this one are still ending; play it again in a moment")
        }
        if alone { stopPreviews() }
        stopPreviews { $0.owner == owner }
        while previews.count >= Self.maximumPreviews { previews.removeFirst().stream.stop() }
        guard let stream = output.play(sound, volume: volume, fadeIn: 0, mediaName: "Reveille preview", eventID: "alarm-clock-elapsed", corked: false) else {
            throw .invalidConfiguration("cannot play \(path); see the agent's log")
        }
        previews.append((id, owner, stream))
        clock.after(min(max(seconds, WireLimits.previewSeconds.lowerBound), WireLimits.previewSeconds.upperBound)) { [weak self] in
            self?.stopPreviews { $0.id == id }
        }
        return path
    }

    /// Stops every preview that plays (`which`: those it says).
    package func stopPreviews(_ which: ((id: UUID, owner: String, stream: any RingingStream)) -> Bool = { _ in true }) {
        let stopping = previews.filter(which)
        previews.removeAll(where: which)
        for preview in stopping { preview.stream.stop() }
    }

    /// Opens the alarm's sound (its own, else the default), failures logged. A preview that
    /// plays stops first (also for a stream prepared ahead of its alarm): the alarm takes its
    /// stream back, whatever the previews took.
    private func openStream(for record: AlarmRecord, corked: Bool) -> (any RingingStream)? {
        stopPreviews()
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
        let path = playable?.path ?? ""
        let stream = output.play(sound, more: { [sounds] in try? sounds.reader(for: path) }, volume: record.ring.volume ?? 1,
                                 fadeIn: record.ring.fadeIn ?? 0, mediaName: "Alarm: \(NotificationContent.displayable(record.title, limit: 80))",
                                 eventID: "alarm-clock-elapsed", corked: corked)
        guard let stream else {
            logger.error("could not open a PulseAudio stream for \(record.id): \(output.lastError)")
            return nil
        }
        return stream
    }
}

/// What the sounder asks of the sound server: PulseAudio with the sink guard
/// (`PulseSoundOutput`), or a recording one in process for tests on virtual time.
@GLibActor
package protocol SoundOutput: AnyObject {
    /// Hears the server become reachable (`true`) or be lost.
    var onReadyChange: (@GLibActor (Bool) -> Void)? { get set }
    var isReady: Bool { get }
    /// Streams stopped that the server has not ended yet (it had not made them when stopped).
    var streamsEnding: Int { get }
    /// The server's last error, for the log.
    var lastError: String { get }
    func connect()
    /// `sound` looping on a stream of its own until `stop()`; `nil` when it cannot open.
    func play(_ sound: any SoundReader, volume: Double, fadeIn: TimeInterval, mediaName: String,
              eventID: String, corked: Bool) -> (any RingingStream)?
    /// `sound` on every output the alarm rings on: `more` gives a reader of it from its start for
    /// each output after the first.
    func play(_ sound: any SoundReader, more: @escaping () -> (any SoundReader)?, volume: Double, fadeIn: TimeInterval,
              mediaName: String, eventID: String, corked: Bool) -> (any RingingStream)?
    /// Makes a muted or silent sink audible while an alarm rings (as the settings allow), and
    /// gives it back as the user left it.
    func raiseSink()
    func restoreSink()
    /// The sinks there are now (`ringOn` names one of them).
    var outputs: [PulseAudio.Output] { get }
    /// The settings changed: `ringOn` from the next ring, `unmuteMutedSink` from the next raise.
    func apply(_ settings: AgentSettings)
}

extension SoundOutput {
    package var outputs: [PulseAudio.Output] { [] }

    /// One output unless the output says otherwise.
    package func play(_ sound: any SoundReader, more: @escaping () -> (any SoundReader)?, volume: Double, fadeIn: TimeInterval,
              mediaName: String, eventID: String, corked: Bool) -> (any RingingStream)? {
        play(sound, volume: volume, fadeIn: fadeIn, mediaName: mediaName, eventID: eventID, corked: corked)
    }
}

/// One alarm's looping stream.
@GLibActor
package protocol RingingStream: AnyObject {
    /// Hears the stream fail (the server went away); not called after `stop()`.
    var onFailure: (@GLibActor () -> Void)? { get set }
    func uncork()
    func stop()
}

extension LoopingStream: RingingStream {}

/// An alarm's streams on the outputs `ringOn` names (other than the default), started and
/// stopped together, following the outputs while it rings (`follow`). It fails only when every
/// stream has: a speaker unplugged leaves the others ringing.
@GLibActor
package final class RingingStreams: RingingStream {
    /// The streams by the sink they play on (`nil`: the default sink).
    private var streams: [(sink: String?, stream: any RingingStream)] = []
    private let open: (String?, _ first: Bool, _ corked: Bool) -> (any RingingStream)?
    /// Whether streams open corked: until `uncork` (a stream cannot be uncorked before it connects).
    private var corked: Bool
    private var stopped = false
    package var onFailure: (@GLibActor () -> Void)?

    /// `open` opens the sound on a sink (the first stream reads the reader already made), corked or not.
    package init(corked: Bool, open: @escaping (String?, _ first: Bool, _ corked: Bool) -> (any RingingStream)?) {
        self.corked = corked
        self.open = open
    }

    /// Rings on `sinks` (`nil`: the default sink): a stream opens on each that has none; once one
    /// rings where asked, those elsewhere stop (a named output that came replaces the default
    /// it fell back to; one that went is replaced by the default).
    package func follow(_ sinks: [String?]) {
        guard !stopped else { return }
        for sink in sinks where !streams.contains(where: { $0.sink == sink }) {
            guard let stream = open(sink, streams.isEmpty, corked) else { continue }
            stream.onFailure = { [weak self, weak stream] in
                guard let self else { return }
                self.streams.removeAll { $0.stream === stream }
                if self.streams.isEmpty { self.onFailure?() }
            }
            streams.append((sink, stream))
        }
        guard streams.contains(where: { sinks.contains($0.sink) }) else { return }
        let elsewhere = streams.filter { !sinks.contains($0.sink) }
        streams.removeAll { !sinks.contains($0.sink) }
        elsewhere.forEach { $0.stream.stop() }
    }

    package var isEmpty: Bool { streams.isEmpty }

    package func uncork() {
        corked = false
        streams.forEach { $0.stream.uncork() }
    }

    package func stop() {
        stopped = true
        let ended = streams
        streams = []
        ended.forEach { $0.stream.stop() }
    }
}

/// The sound server as PulseAudio (or pipewire-pulse) speaks it, with the sink guard.
@GLibActor
package final class PulseSoundOutput: SoundOutput {
    private let pulse = PulseAudio(appName: "Reveille", appID: "io.github.reveille.Reveille")
    private let sinkGuard: SinkGuard
    private var ringOn: RingOn
    private let logger: Logger
    /// The alarms' streams while they ring (weak: the sounder owns them), to follow the outputs
    /// that come and go meanwhile.
    private var ringing: [WeakStreams] = []
    /// Each with the `ringOn` it started with: a change of the setting applies from the next ring.
    private struct WeakStreams { weak var streams: RingingStreams?; let ringOn: RingOn }
    /// Whether the sound machine asked for the sinks to be made audible (an alarm rings): an
    /// output that comes meanwhile is raised too; one that comes while only a preview plays is not.
    private var raising = false

    package init(sinkGuard: SinkGuard, ringOn: RingOn = .defaultOutput, logger: Logger) {
        self.sinkGuard = sinkGuard
        self.ringOn = ringOn
        self.logger = logger
        pulse.onBreakthrough = { [logger] muted, volume in
            logger.info("an alarm's sound came up \(muted ? "muted" : "at \(Int(volume * 100))%") (a stored stream setting); made it audible")
        }
        pulse.onOutputsChange = { [weak self] in self?.outputsChanged() }
    }

    package func apply(_ settings: AgentSettings) {
        ringOn = settings.ringOn
        sinkGuard.enabled = settings.unmuteMutedSink
    }

    package var onReadyChange: (@GLibActor (Bool) -> Void)? {
        get { pulse.onReadyChange }
        set { pulse.onReadyChange = newValue }
    }

    package var isReady: Bool { pulse.isReady }
    package var streamsEnding: Int { LoopingStream.ending }
    package var lastError: String { pulse.lastError }
    package func connect() { pulse.connect() }

    package func play(_ sound: any SoundReader, volume: Double, fadeIn: TimeInterval, mediaName: String,
              eventID: String, corked: Bool) -> (any RingingStream)? {
        play(sound, more: { nil }, volume: volume, fadeIn: fadeIn, mediaName: mediaName, eventID: eventID, corked: corked)
    }

    package func play(_ sound: any SoundReader, more: @escaping () -> (any SoundReader)?, volume: Double, fadeIn: TimeInterval,
              mediaName: String, eventID: String, corked: Bool) -> (any RingingStream)? {
        let (sinks, missing) = ringOn.sinks(among: pulse.outputs.map(\.name))
        if let missing { logger.warning("the output \(missing) (ringOn) is not there now; the alarm rings on the default output") }
        guard ringOn != .defaultOutput else {
            return pulse.play(sound, volume: volume, fadeIn: fadeIn, mediaName: mediaName, eventID: eventID, corked: corked)
        }
        let streams = RingingStreams(corked: corked) { [pulse] sink, first, corked in
            guard let reader = first ? sound : more() else { return nil }
            return pulse.play(reader, volume: volume, fadeIn: fadeIn, mediaName: mediaName, eventID: eventID, corked: corked, sink: sink)
        }
        streams.follow(sinks)
        guard !streams.isEmpty else { return nil }
        ringing = ringing.filter { $0.streams != nil } + [WeakStreams(streams: streams, ringOn: ringOn)]
        return streams
    }

    /// An output came or went: the alarms ringing follow what `ringOn` names now, made audible.
    private func outputsChanged() {
        ringing = ringing.filter { $0.streams != nil }
        guard !ringing.isEmpty else { return }
        let names = pulse.outputs.map(\.name)
        ringing.forEach { $0.streams?.follow($0.ringOn.sinks(among: names).sinks) }
        if raising { sinkGuard.makeAudible(pulse, sinks: sinksRung) }
    }

    /// The sinks the sink guard looks after: those rung.
    private var sinksRung: [String] {
        ringOn.sinks(among: pulse.outputs.map(\.name)).sinks.map { $0 ?? SinkGuard.defaultSink }
    }

    package var outputs: [PulseAudio.Output] { pulse.outputs }
    package func raiseSink() {
        raising = true
        sinkGuard.makeAudible(pulse, sinks: sinksRung)
    }

    package func restoreSink() {
        raising = false
        sinkGuard.restore(pulse)
    }
}
