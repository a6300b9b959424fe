import Logging

extension Logger {
    /// Logs one of the engine's lines (`AlarmEngine.Effect.log`) at its level.
    package func log(level: AlarmEngine.LogLevel, _ message: @autoclosure () -> Logger.Message) {
        switch level {
        case .info: log(level: .info, message())
        case .warning: log(level: .warning, message())
        }
    }
}
