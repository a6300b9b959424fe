import FoundationEssentials
import Logging
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import SystemPackage

/// Makes a muted or nearly silent sink audible while an alarm rings on it, as AlarmKit breaks
/// through silent mode, and puts back exactly what it changed when ringing stops: every sink
/// rung (the default, or those `ringOn` names). What it changed is written to the state folder
/// first, so a crash is repaired at the next start.
@GLibActor
package final class SinkGuard {
    /// Below this loudness the sink counts as nearly silent.
    package static let quietBelow = 0.1
    /// The loudness the sink is raised to.
    package static let raisedTo = 0.5
    /// The name PulseAudio reads as the default sink.
    package static let defaultSink = "@DEFAULT_SINK@"

    private let file: FilePath
    /// Whether a muted or silent sink is raised (`unmuteMutedSink`); what was raised is restored either way.
    package var enabled: Bool
    private let logger: Logger
    /// What a sink was, and what this guard made it; written to disk before the change.
    package struct Override: Codable, Equatable {
        package var original: PulseAudio.SinkState
        /// `nil` in a record from before this field existed.
        package var applied: PulseAudio.SinkState?
    }

    /// Whether an alarm rings now (the last word was `makeAudible`, not `restore`): the answer
    /// of a sink read for the other word is not acted on. Without it, a restore asked for just
    /// before an alarm rang (an agent restarted mid-ring) muted the sink under the alarm.
    private var wanted = false
    /// The sinks raised, by their real name; `nil` until read from disk.
    private var saved: [Override]?
    /// The sinks being looked at (as asked for, or by their real name while restored).
    private var checking: Set<String> = []

    package init(stateDirectory: FilePath, enabled: Bool, logger: Logger) {
        file = stateDirectory.appending("sink-override.json")
        self.enabled = enabled
        self.logger = logger
    }

    /// Unmutes / raises each of `sinks` (names; `defaultSink` for the default) that would
    /// silence the alarm.
    package func makeAudible(_ pulse: PulseAudio, sinks: [String] = [defaultSink]) {
        // Switched off (`unmuteMutedSink`): what an earlier ring or a crash raised goes back.
        guard enabled else { return restore(pulse) }
        wanted = true
        let raised = overrides()
        for name in sinks where !checking.contains(name) && !raised.contains(where: { $0.original.name == name }) {
            checking.insert(name)
            pulse.sink(named: name) { [weak self] state in
                guard let self else { return }
                self.checking.remove(name)
                guard self.wanted, let state, state.muted || state.loudest < Self.quietBelow,
                      !self.overrides().contains(where: { $0.original.name == state.name }) else { return }
                let raised = UInt32(Self.raisedTo * 65536)
                let applied = PulseAudio.SinkState(name: state.name, muted: false, volumes: state.volumes.map { max($0, raised) })
                let all = self.overrides() + [Override(original: state, applied: applied)]
                guard self.write(all) else {
                    return self.logger.error("not unmuting \(state.name): cannot record its state to restore it")
                }
                pulse.setSink(applied)
                self.logger.info("sink \(state.name) was \(state.muted ? "muted" : "nearly silent"); made audible for the alarm")
            }
        }
    }

    /// Puts each sink back as it was, if this guard changed it (now or before a crash), and
    /// only if it is still as the guard left it: a change the user made meanwhile stays.
    package func restore(_ pulse: PulseAudio) {
        wanted = false
        guard pulse.isReady else { return }
        for saved in overrides() where !checking.contains(saved.original.name) {
            let name = saved.original.name
            checking.insert(name)
            pulse.sink(named: name) { [weak self] current in
                guard let self else { return }
                self.checking.remove(name)
                // An alarm that began to ring while the sink was read keeps it as raised.
                guard !self.wanted, self.overrides().contains(saved) else { return }
                _ = self.write(self.overrides().filter { $0 != saved })
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

    /// What is raised: as kept in memory, else as a crash left it on disk (a list; one
    /// override, or one sink's state, from earlier versions).
    private func overrides() -> [Override] {
        if let saved { return saved }
        // A record is a few hundred bytes: what cannot be read within 64 KiB is no record of ours.
        let data = ((try? StoredFile.read(file, maximumBytes: 64 << 10)) ?? nil) ?? Data()
        let read = (try? JSONDecoder().decode([Override].self, from: data))
            ?? (try? JSONDecoder().decode(Override.self, from: data)).map { [$0] }
            ?? (try? JSONDecoder().decode(PulseAudio.SinkState.self, from: data)).map { [Override(original: $0, applied: nil)] }
            ?? []
        saved = read
        return read
    }

    /// Keeps `overrides` on disk (the file removed when none is left); `false` when it could not.
    private func write(_ overrides: [Override]) -> Bool {
        do {
            if overrides.isEmpty {
                try? FileManager.default.removeItem(atPath: file.string)
            } else {
                try AtomicFile.makePrivateDirectory(file.removingLastComponent())
                try AtomicFile.write(try JSONEncoder().encode(overrides), to: file)
            }
        } catch {
            logger.error("cannot write \(file): \(error)")
            return false
        }
        saved = overrides
        return true
    }
}

private extension PulseAudio.SinkState {
    /// The same mute, and volumes within 1 % (PipeWire's pulse server returns them through floats).
    func isClose(to other: Self) -> Bool {
        muted == other.muted && volumes.count == other.volumes.count
            && zip(volumes, other.volumes).allSatisfy { abs(Int($0) - Int($1)) <= 655 }
    }
}
