import FoundationEssentials
import Logging
import ReveilleBus
import ReveilleCore
import SystemPackage

/// Makes a muted or nearly silent default sink audible while an alarm rings, as AlarmKit
/// breaks through silent mode, and puts back exactly what it changed when ringing stops.
/// What it changed is written to the state folder first, so a crash is repaired at the next start.
@GLibActor
final class SinkGuard {
    /// Below this loudness the sink counts as nearly silent.
    static let quietBelow = 0.1
    /// The loudness the sink is raised to.
    static let raisedTo = 0.5

    private let file: FilePath
    private let enabled: Bool
    private let logger: Logger
    private var saved: PulseAudio.SinkState?
    private var checking = false

    init(stateDirectory: FilePath, enabled: Bool, logger: Logger) {
        file = stateDirectory.appending("sink-override.json")
        self.enabled = enabled
        self.logger = logger
    }

    /// Unmutes / raises the default sink if it would silence the alarm.
    func makeAudible(_ pulse: PulseAudio) {
        guard enabled, saved == nil, !checking else { return }
        checking = true
        pulse.defaultSink { [weak self] state in
            guard let self else { return }
            self.checking = false
            guard let state, state.muted || state.loudest < Self.quietBelow else { return }
            do {
                try AtomicFile.makePrivateDirectory(self.file.removingLastComponent())
                try AtomicFile.write(try JSONEncoder().encode(state), to: self.file)
            } catch {
                self.logger.error("not unmuting \(state.name): cannot record its state to restore it (\(error))")
                return
            }
            self.saved = state
            let raised = UInt32(Self.raisedTo * 65536)
            pulse.setSink(.init(name: state.name, muted: false, volumes: state.volumes.map { max($0, raised) }))
            self.logger.info("sink \(state.name) was \(state.muted ? "muted" : "nearly silent"); made audible for the alarm")
        }
    }

    /// Puts the sink back as it was, if this guard changed it (now or before a crash).
    func restore(_ pulse: PulseAudio) {
        if saved == nil, let data = FileManager.default.contents(atPath: file.string) {
            saved = try? JSONDecoder().decode(PulseAudio.SinkState.self, from: data)
        }
        guard let saved, pulse.isReady else { return }
        pulse.setSink(saved)
        self.saved = nil
        try? FileManager.default.removeItem(atPath: file.string)
        logger.info("sink \(saved.name) restored (\(saved.muted ? "muted" : "unmuted"), volume \(Int(saved.loudest * 100))%)")
    }
}
