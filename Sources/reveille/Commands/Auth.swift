import ArgumentParser
import FoundationEssentials
import ReveilleKit

/// `reveille auth`: the user's decisions about which apps may schedule alarms.
struct Auth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth",
        abstract: "See and change which apps may schedule alarms.",
        subcommands: [AuthList.self, AuthAllow.self, AuthDeny.self, AuthReset.self],
        defaultSubcommand: AuthList.self)
}

struct AuthList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Every app asked about, with your decision.")

    @Flag(help: "Print a JSON array of {appID, state, usageDescription, decided}.")
    var json = false

    func run() async throws {
        let apps = try await AgentConnection.perform { client throws(AlarmError) in try await client.authorizations() }
        if json { return try Output.json(apps) }
        if apps.isEmpty { return Output.line("No app has asked to schedule alarms.") }
        let width = max(4, apps.map(\.appID.count).max()!) + 2
        Output.line("APP".padded(to: width) + "STATE          WHY")
        for app in apps {
            Output.line(app.appID.padded(to: width)
                        + app.state.words.padded(to: 15) + (app.usageDescription ?? ""))
        }
    }
}

/// The commands that set one app's decision.
protocol AuthDecisionCommand: AsyncParsableCommand {
    static var state: AuthorizationState { get }
    var app: String { get }
}

extension AuthDecisionCommand {
    func run() async throws {
        let app = self.app
        try await AgentConnection.perform { client throws(AlarmError) in try await client.setAuthorization(Self.state, for: app) }
        Output.line("\(app) is now \(Self.state.words)\(Self.state == .notDetermined ? ": it will be asked again" : "").")
    }
}

struct AuthAllow: AuthDecisionCommand {
    static let configuration = CommandConfiguration(commandName: "allow", abstract: "Let an app schedule alarms.")
    static let state = AuthorizationState.authorized
    @Argument(help: "The app's id, as `reveille auth list` shows it.") var app: String
}

struct AuthDeny: AuthDecisionCommand {
    static let configuration = CommandConfiguration(commandName: "deny", abstract: "Refuse an app; its requests fail with notAuthorized.")
    static let state = AuthorizationState.denied
    @Argument(help: "The app's id, as `reveille auth list` shows it.") var app: String
}

struct AuthReset: AuthDecisionCommand {
    static let configuration = CommandConfiguration(commandName: "reset", abstract: "Forget the decision; the app will ask again.")
    static let state = AuthorizationState.notDetermined
    @Argument(help: "The app's id, as `reveille auth list` shows it.") var app: String
}

extension AuthorizationState {
    /// The decision in a person's words.
    var words: String {
        switch self {
        case .authorized: "allowed"
        case .denied: "denied"
        case .notDetermined: "undecided"
        }
    }
}
