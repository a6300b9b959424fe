import Foundation
import Logging
import ReveilleBus
import ReveilleCore

/// Rings every alerting alarm: one looping stream each, from the moment it alerts until it
/// leaves `alerting`. Never lets audio trouble reach the agent: without PulseAudio it logs
/// one line, lets the notification carry a sound hint, and reconnects while anything rings.
@GLibActor
final class AlarmSounder {
    let library: SoundLibrary
    private let pulse: PulseAudio
    private let sinkGuard: SinkGuard
    private let logger: Logger
    private var ringing: [UUID: AlarmRecord] = [:]
    private var streams: [UUID: LoopingStream] = [:]
    private var decoded: [String: DecodedSound] = [:]
    private var reconnectPending = false
    private var reportedOutage = false
    private var previews: [UUID: LoopingStream] = [:]

    init(library: SoundLibrary, sinkGuard: SinkGuard, logger: Logger) {
        self.library = library
        self.sinkGuard = sinkGuard
        self.logger = logger
        pulse = PulseAudio(appName: "Reveille", appID: "io.github.reveille.Reveille")
        pulse.onReadyChange = { [weak self] ready in self?.readyChanged(ready) }
        // Connect now, so the first alarm does not wait for it.
        pulse.connect()
    }

    /// Whether the alarm's own sound is playing (else the notification should carry a sound hint).
    func isPlaying(_ id: UUID) -> Bool { streams[id] != nil }

    /// Makes the streams match the alarms: one per alerting alarm.
    func reconcile(_ records: [AlarmRecord]) {
        ringing = Dictionary(records.filter { $0.alarm.state == .alerting }.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for (id, stream) in streams where ringing[id] == nil {
            stream.stop()
            streams[id] = nil
        }
        if ringing.isEmpty {
            sinkGuard.restore(pulse)
            return
        }
        guard pulse.isReady else { return waitForPulse() }
        sinkGuard.makeAudible(pulse)
        for (id, record) in ringing where streams[id] == nil { start(record) }
    }

    /// Plays a sound for `seconds`, for `reveille play`. Returns the file played.
    func preview(_ sound: AlertConfiguration.AlertSound, seconds: TimeInterval) throws(AlarmError) -> String {
        let path = try library.resolve(sound, allowPaths: true)
        guard pulse.isReady else {
            pulse.connect()
            throw .agentUnavailable("PulseAudio is not reachable (\(pulse.lastError)); cannot play \(path)")
        }
        let id = UUID()
        guard let sound = decode(path), let stream = pulse.play(sound, volume: 1, fadeIn: 0, mediaName: "Reveille preview",
                                                                 eventID: "alarm-clock-elapsed") else {
            throw .invalidConfiguration("cannot play \(path); see the agent's log")
        }
        previews[id] = stream
        MainLoopSources.after(milliseconds: UInt32(max(0.1, min(seconds, 60)) * 1000)) { [weak self] in
            self?.previews.removeValue(forKey: id)?.stop()
        }
        return path
    }

    private func start(_ record: AlarmRecord) {
        var path = try? library.resolve(record.sound, allowPaths: true)
        if path == nil {
            logger.warning("sound \(record.sound) of \(record.id) is gone; ringing the default sound instead")
            path = try? library.resolve(.default, allowPaths: false)
        }
        guard let path, let sound = decode(path) ?? (try? library.resolve(.default, allowPaths: false)).flatMap(decode) else {
            logger.error("no playable sound for \(record.id); the notification asks the server to play \(SoundLibrary.themeFallback)")
            return
        }
        let stream = pulse.play(sound, volume: record.ring.volume ?? 1, fadeIn: record.ring.fadeIn ?? 0,
                                mediaName: "Alarm: \(record.title)", eventID: "alarm-clock-elapsed")
        guard let stream else {
            logger.error("could not open a PulseAudio stream for \(record.id): \(pulse.lastError)")
            return
        }
        let id = record.id
        stream.onFailure = { [weak self] in
            guard let self, self.streams[id] === stream else { return }
            self.streams[id] = nil
            self.logger.error("the sound stream of \(id) failed: \(self.pulse.lastError)")
            self.waitForPulse()
        }
        streams[id] = stream
    }

    /// Decodes once per file; a file that cannot be decoded is logged, not fatal.
    private func decode(_ path: String) -> DecodedSound? {
        if let sound = decoded[path] { return sound }
        do {
            let sound = try DecodedSound(path: path)
            decoded[path] = sound
            return sound
        } catch {
            logger.error("\(error)")
            return nil
        }
    }

    private func readyChanged(_ ready: Bool) {
        if ready {
            if reportedOutage { logger.info("PulseAudio is back; ringing resumes") }
            reportedOutage = false
            sinkGuard.restore(pulse)   // a change left behind by a crash
            reconcile(Array(ringing.values))
        } else {
            for stream in streams.values { stream.stop() }
            streams = [:]
            if !ringing.isEmpty { waitForPulse() }
        }
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
