import Logging
import ReveilleRules

extension Logger {
    /// Logs one of the engine's lines (`AlarmEngine.Effect.log`) at its level.
    package func log(level: AlarmEngine.LogLevel, _ message: @autoclosure () -> Logger.Message) {
        // The levels are named in full: `.info` alone would be the engine's and call this again.
        let level: Logger.Level = switch level {
        case .info: Logger.Level.info
        case .warning: Logger.Level.warning
        }
        log(level: level, message())
    }
}
