import FoundationEssentials

/// Why an alarm operation failed. Every case but `maximumLimitReached` carries
/// a sentence that names what was wrong and what is accepted.
public enum AlarmError: Error, Hashable, Sendable {
    /// The app has as many alarms as it may have.
    case maximumLimitReached
    /// No alarm with that identifier belongs to the caller.
    case notFound(String)
    /// An ID prefix matched more than one alarm.
    case ambiguousID(String)
    /// The operation is not allowed in the alarm's current state.
    case invalidState(String)
    /// The configuration or request is malformed or contradictory.
    case invalidConfiguration(String)
    /// The user has not authorized the app.
    case notAuthorized(String)
    /// The agent could not be reached or started.
    case agentUnavailable(String)
    /// The agent could not write its store; the change was not made.
    case storageFailure(String)

    /// The name of the case, used as the last part of the D-Bus error name.
    public var code: String {
        switch self {
        case .maximumLimitReached: "MaximumLimitReached"
        case .notFound: "NotFound"
        case .ambiguousID: "AmbiguousID"
        case .invalidState: "InvalidState"
        case .invalidConfiguration: "InvalidConfiguration"
        case .notAuthorized: "NotAuthorized"
        case .agentUnavailable: "AgentUnavailable"
        case .storageFailure: "StorageFailure"
        }
    }

    public var reason: String {
        switch self {
        case .maximumLimitReached: "the limit of alarms is reached (100 for each app, 10000 for the user's own tools); cancel some first"
        case .notFound(let text), .ambiguousID(let text), .invalidState(let text),
             .invalidConfiguration(let text), .notAuthorized(let text),
             .agentUnavailable(let text), .storageFailure(let text):
            text
        }
    }

    /// Rebuilds an error from its `code` and `reason`, as they cross D-Bus.
    public init(code: String, reason: String) {
        switch code {
        case "MaximumLimitReached": self = .maximumLimitReached
        case "NotFound": self = .notFound(reason)
        case "AmbiguousID": self = .ambiguousID(reason)
        case "InvalidState": self = .invalidState(reason)
        case "InvalidConfiguration": self = .invalidConfiguration(reason)
        case "NotAuthorized": self = .notAuthorized(reason)
        case "StorageFailure": self = .storageFailure(reason)
        default: self = .agentUnavailable(reason)
        }
    }
}

extension AlarmError: CustomStringConvertible, LocalizedError {
    public var description: String { reason }
    public var errorDescription: String? { reason }
}
