import Logging
import ReveilleAgentRuntime
@testable import ReveilleRules
import Synchronization
import Testing

/// The engine names a level without swift-log; the runtime logs its lines at the same level.
@Suite("Engine log lines")
struct EngineLogTests {
    /// What was logged, in order.
    final class Lines: Sendable {
        let recorded = Mutex<[(Logger.Level, String)]>([])
    }

    /// Keeps what is logged through it in `lines`.
    struct Recorder: LogHandler {
        let lines: Lines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String,
                 file: String, function: String, line: UInt) {
            lines.recorded.withLock { $0.append((level, message.description)) }
        }
    }

    @Test(arguments: [(AlarmEngine.LogLevel.info, Logger.Level.info), (.warning, .warning)])
    func eachEngineLevelIsLoggedOnceAtTheSameLevel(_ level: AlarmEngine.LogLevel, _ expected: Logger.Level) {
        let lines = Lines()
        let logger = Logger(label: "test") { _ in Recorder(lines: lines) }
        logger.log(level: level, "recomputing alarms")
        let recorded = lines.recorded.withLock { $0 }
        #expect(recorded.count == 1)
        #expect(recorded.first?.0 == expected && recorded.first?.1 == "recomputing alarms")
    }
}
