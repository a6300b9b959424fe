import FoundationEssentials

/// Whether the user lets an app schedule alarms (AlarmKit's `AlarmManager.AuthorizationState`).
public enum AuthorizationState: String, Codable, Hashable, Sendable, CaseIterable {
    case notDetermined
    case authorized
    case denied
}

/// Who is calling the agent, as the agent established it.
package struct ClientIdentity: Codable, Hashable, Sendable {
    /// The app id alarms are filed under; `userAppID` for the user's own tools.
    package var appID: String
    /// Whether the id comes from a sandbox (Flatpak) and cannot be claimed by others.
    package var sandboxed: Bool
    /// How the id was established: `declared`, `systemd` or `flatpak`, or `user`.
    package var source: String

    /// The user's own tools (the CLI, gdbus, scripts): they see and manage every alarm.
    package static let userAppID = "reveille"

    package var isUser: Bool { appID == Self.userAppID && !sandboxed }

    package init(appID: String, sandboxed: Bool, source: String) {
        self.appID = appID
        self.sandboxed = sandboxed
        self.source = source
    }

    package static let user = ClientIdentity(appID: userAppID, sandboxed: false, source: "user")
}

/// One app's decision, as stored and as `reveille auth list` shows it.
package struct AppAuthorization: Codable, Hashable, Sendable {
    package var appID: String
    package var state: AuthorizationState
    package var usageDescription: String?
    package var decided: Date?

    package init(appID: String, state: AuthorizationState, usageDescription: String?, decided: Date?) {
        self.appID = appID
        self.state = state
        self.usageDescription = usageDescription
        self.decided = decided
    }
}
