import FoundationEssentials

/// Whether the user lets an app schedule alarms (AlarmKit's `AlarmManager.AuthorizationState`).
public enum AuthorizationState: String, Codable, Hashable, Sendable, CaseIterable {
    case notDetermined
    case authorized
    case denied
}

/// Who is calling the agent, as the agent established it.
public struct ClientIdentity: Codable, Hashable, Sendable {
    /// The app id alarms are filed under; `userAppID` for the user's own tools.
    public var appID: String
    /// Whether the id comes from a sandbox (Flatpak) and cannot be claimed by others.
    public var sandboxed: Bool
    /// How the id was established: `declared`, `systemd` or `flatpak`, or `user`.
    public var source: String

    /// The user's own tools (the CLI, gdbus, scripts): they see and manage every alarm.
    public static let userAppID = "reveille"

    public var isUser: Bool { appID == Self.userAppID && !sandboxed }

    public init(appID: String, sandboxed: Bool, source: String) {
        self.appID = appID
        self.sandboxed = sandboxed
        self.source = source
    }

    public static let user = ClientIdentity(appID: userAppID, sandboxed: false, source: "user")
}

/// One app's decision, as stored and as `reveille auth list` shows it.
public struct AppAuthorization: Codable, Hashable, Sendable {
    public var appID: String
    public var state: AuthorizationState
    public var usageDescription: String?
    public var decided: Date?

    public init(appID: String, state: AuthorizationState, usageDescription: String?, decided: Date?) {
        self.appID = appID
        self.state = state
        self.usageDescription = usageDescription
        self.decided = decided
    }
}
