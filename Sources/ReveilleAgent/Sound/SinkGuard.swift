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
    /// What the sink was, and what this guard made it; written to disk before the change.
    struct Override: Codable, Equatable {
        var original: PulseAudio.SinkState
        /// `nil` in a record from before this field existed.
        var applied: PulseAudio.SinkState?
    }

    private var saved: Override?
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
        pulse.sink { [weak self] state in
            guard let self else { return }
            self.checking = false
            guard let state, state.muted || state.loudest < Self.quietBelow else { return }
            let raised = UInt32(Self.raisedTo * 65536)
            let applied = PulseAudio.SinkState(name: state.name, muted: false, volumes: state.volumes.map { max($0, raised) })
            let record = Override(original: state, applied: applied)
            do {
                try AtomicFile.makePrivateDirectory(self.file.removingLastComponent())
                try AtomicFile.write(try JSONEncoder().encode(record), to: self.file)
            } catch {
                self.logger.error("not unmuting \(state.name): cannot record its state to restore it (\(error))")
                return
            }
            self.saved = record
            pulse.setSink(applied)
            self.logger.info("sink \(state.name) was \(state.muted ? "muted" : "nearly silent"); made audible for the alarm")
        }
    }

    /// Puts the sink back as it was, if this guard changed it (now or before a crash), and
    /// only if it is still as the guard left it: a change the user made meanwhile stays.
    func restore(_ pulse: PulseAudio) {
        if saved == nil, let data = FileManager.default.contents(atPath: file.string) {
            saved = (try? JSONDecoder().decode(Override.self, from: data))
                ?? (try? JSONDecoder().decode(PulseAudio.SinkState.self, from: data)).map { Override(original: $0, applied: nil) }
        }
        guard let saved, pulse.isReady, !checking else { return }
        checking = true
        pulse.sink(named: saved.original.name) { [weak self] current in
            guard let self else { return }
            self.checking = false
            guard self.saved == saved else { return }
            self.saved = nil
            try? FileManager.default.removeItem(atPath: self.file.string)
            let original = saved.original
            if let applied = saved.applied, let current, !current.isClose(to: applied) {
                self.logger.info("sink \(original.name) was changed since the alarm raised it; left as it is now")
                return
            }
            pulse.setSink(original)
            self.logger.info("sink \(original.name) restored (\(original.muted ? "muted" : "unmuted"), volume \(Int(original.loudest * 100))%)")
        }
    }
}

private extension PulseAudio.SinkState {
    /// The same mute, and volumes within 1 % (PipeWire's pulse server returns them through floats).
    func isClose(to other: Self) -> Bool {
        muted == other.muted && volumes.count == other.volumes.count
            && zip(volumes, other.volumes).allSatisfy { abs(Int($0) - Int($1)) <= 655 }
    }
}
