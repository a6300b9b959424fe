import ReveilleAgentRuntime
import ReveilleCore
import ReveilleModel
import ReveilleRules
import SystemPackage

// The runtime keeps its alarms and history through protocols; here the composition root gives
// it the files of ReveilleCore.

extension AlarmStore: AlarmPersistence {
    package var location: String { file.string }

    package var damageOfLastLoad: StoreDamage {
        StoreDamage(damagedCount: lastLoad.damaged.count, keptAside: lastLoad.keptAside.map(\.string))
    }

    package func keepAside(_ alarms: [AlarmRecord], stamp: String) throws -> String {
        try writeAside(alarms, stamp: stamp).string
    }

    package func loadClockMemory() -> AlarmEngine.ClockMemory { clockMemory.load() }

    package func saveClockMemory(_ memory: AlarmEngine.ClockMemory) throws { try clockMemory.save(memory) }

    package var clockMemoryLocation: String { clockMemory.file.string }
}

extension HistoryFile: HistoryRecording {}
