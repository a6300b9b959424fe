import ArgumentParser
import FoundationEssentials
import ReveilleCore
import ReveilleKit
import ReveilleWords

/// `reveille auth`: the user's decisions about which apps may schedule alarms.
struct Auth: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth",
        abstract: L("See and change which apps may schedule alarms."),
        subcommands: [AuthList.self, AuthAllow.self, AuthDeny.self, AuthReset.self],
        defaultSubcommand: AuthList.self)
}

struct AuthList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: L("Every app asked about, with your decision, and the apps waiting for it."))

    @Flag(help: ArgumentHelp(L("Print a JSON array of {appID, state, usageDescription, decided}; an app waiting for your answer is notDetermined, without decided.")))
    var json = false

    func run() async throws {
        let apps = try await AgentConnection.perform { client async throws(AlarmError) in try await client.authorizations() }
        if json { return try Output.json(apps) }
        if apps.isEmpty { return Output.line(L("No app has asked to schedule alarms.")) }
        Output.lines(Table.lines(header: [L("APP"), L("STATE"), L("WHY")],
                                 rows: apps.map { [$0.appID, $0.state.listed, $0.usageDescription ?? ""] }))
        if let waiting = apps.first(where: { $0.state == .notDetermined }) {
            Output.line(L("To answer: reveille auth allow %@ (or deny)", waiting.appID))
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
        try await AgentConnection.perform { client async throws(AlarmError) in try await client.setAuthorization(Self.state, for: app) }
        Output.line(Self.state == .notDetermined ? L("%@ is now undecided: it will be asked again.", app)
                    : L("%@ is now %@.", app, Self.state.words))
    }
}

struct AuthAllow: AuthDecisionCommand {
    static let configuration = CommandConfiguration(commandName: "allow", abstract: L("Let an app schedule alarms."))
    static let state = AuthorizationState.authorized
    @Argument(help: ArgumentHelp(L("The app's id, as `reveille auth list` shows it."))) var app: String
}

struct AuthDeny: AuthDecisionCommand {
    static let configuration = CommandConfiguration(commandName: "deny", abstract: L("Refuse an app; its requests fail with notAuthorized."))
    static let state = AuthorizationState.denied
    @Argument(help: ArgumentHelp(L("The app's id, as `reveille auth list` shows it."))) var app: String
}

struct AuthReset: AuthDecisionCommand {
    static let configuration = CommandConfiguration(commandName: "reset", abstract: L("Forget the decision; the app will ask again."))
    static let state = AuthorizationState.notDetermined
    @Argument(help: ArgumentHelp(L("The app's id, as `reveille auth list` shows it."))) var app: String
}

extension AuthorizationState {
    /// The decision in a person's words.
    var words: String {
        switch self {
        case .authorized: L("allowed")
        case .denied: L("denied")
        case .notDetermined: L("undecided")
        }
    }

    /// The state in `auth list`, where only an app waiting for the user is undecided.
    var listed: String { self == .notDetermined ? L("waiting for your answer") : words }
}
