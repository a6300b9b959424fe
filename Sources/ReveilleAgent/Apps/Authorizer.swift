import FoundationEssentials
import Logging
import ReveilleAgentRuntime
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleModel

/// The user's decision per app: asks once with a notification (Allow / Don't Allow), keeps
/// the answer in the config folder, and tells those waiting for it.
@GLibActor
final class Authorizer: AgentEventSource {
    private let store: AuthorizationStore
    private let logger: Logger
    private var decisions: [String: AppAuthorization]
    /// A question on screen: the app's reason, and the notification's id once the server showed it.
    private struct Prompt {
        var usageDescription: String
        var id: UInt32?
    }
    /// The apps waiting for the user's answer.
    private var prompts: [String: Prompt] = [:]
    /// Where the prompts are shown.
    private let server: any NotificationTransport
    /// When a decision is made.
    private let clock: any AgentClock
    private var waiting: [String: [@GLibActor (AuthorizationState) -> Void]] = [:]
    /// Where every change of an app's state is told, read by the runtime.
    package let outbox = AgentOutbox()

    init(store: AuthorizationStore, server: any NotificationTransport, logger: Logger, clock: any AgentClock) {
        self.store = store
        self.server = server
        self.clock = clock
        self.logger = logger
        decisions = store.load()
        server.observe { [weak self] event in self?.heard(event) }
    }

    /// A prompt's button pressed, or the prompt closed without an answer.
    private func heard(_ event: NotificationEvent) {
        switch event {
        case .action(let id, let key):
            guard let (appID, prompt) = prompts.first(where: { $0.value.id == id }) else { return }
            let allowed = key == NotificationContent.Key.allow.actionKey
            do { try set(appID, allowed ? .authorized : .denied, usageDescription: prompt.usageDescription) } catch {
                logger.error("\(error)")
            }
        case .closed(let id, _):
            // Closed without an answer: the app stays undecided and may ask again.
            guard let appID = prompts.first(where: { $0.value.id == id })?.key else { return }
            prompts[appID] = nil
            finish(appID, with: .notDetermined)
        case .ready, .left, .missing:
            break
        }
    }

    func state(of identity: ClientIdentity) -> AuthorizationState {
        identity.isUser ? .authorized : decisions[identity.appID]?.state ?? .notDetermined
    }

    /// Every decision, and every app waiting for one (`notDetermined`, never stored: an app
    /// undecided and not waiting is not listed), by app id.
    var all: [AppAuthorization] {
        let asking = prompts.filter { decisions[$0.key] == nil }
            .map { AppAuthorization(appID: $0.key, state: .notDetermined, usageDescription: $0.value.usageDescription, decided: nil) }
        return (Array(decisions.values) + asking).sorted { $0.appID < $1.appID }
    }

    /// Hands `completion` the decision for the app, asking the user first if there is none
    /// (then later, from the prompt's buttons). Without a usage description there is nothing to
    /// ask with: the app stays undecided. A callback, not an `await`: resuming a continuation
    /// would start Swift's global executor and its once-a-second wakeups.
    func request(for identity: ClientIdentity, usageDescription: String?,
                 completion: @escaping @GLibActor (AuthorizationState) -> Void) {
        let current = state(of: identity)
        guard current == .notDetermined, let usageDescription else { return completion(current) }
        waiting[identity.appID, default: []].append(completion)
        prompt(identity.appID, usageDescription: usageDescription)
    }

    /// Records the user's decision (the prompt's buttons, or `reveille auth`).
    func set(_ appID: String, _ state: AuthorizationState, usageDescription: String? = nil) throws(AlarmError) {
        var next = decisions
        if state == .notDetermined {
            next[appID] = nil
        } else {
            next[appID] = AppAuthorization(appID: appID, state: state,
                                           usageDescription: usageDescription ?? decisions[appID]?.usageDescription, decided: clock.now)
        }
        do {
            try store.save(next)
        } catch {
            throw .storageFailure("could not write \(store.file): \(error); the decision was not changed")
        }
        decisions = next
        logger.info("\(appID) is now \(state.rawValue)")
        if let id = prompts.removeValue(forKey: appID)?.id { server.close(id) }
        finish(appID, with: state)
        outbox.send(.authorizationChanged(appID: appID, state))
    }

    /// How many apps may be asking the user at once.
    static let maximumPrompts = 3

    private func prompt(_ appID: String, usageDescription: String) {
        guard prompts[appID] == nil else { return }
        guard prompts.count < Self.maximumPrompts else {
            // The user is asked about a few apps at a time; this one stays undecided and may ask later.
            logger.notice("not asking about \(appID): \(prompts.count) apps are already waiting for the user")
            return finish(appID, with: .notDetermined)
        }
        prompts[appID] = Prompt(usageDescription: usageDescription, id: nil)
        let request = NotificationContent.authorizationPrompt(appID: appID, usageDescription: usageDescription).request()
        server.show(request) { [weak self] id in
            guard let self, let prompt = self.prompts[appID], prompt.id == nil else {
                // Decided (by `reveille auth`) while the server was being asked.
                if let id { self?.server.close(id) }
                return
            }
            guard let id else {
                self.logger.error("could not ask about \(appID): the notification server did not show the prompt")
                self.prompts[appID] = nil
                return self.finish(appID, with: .notDetermined)
            }
            self.prompts[appID]?.id = id
        }
    }

    private func finish(_ appID: String, with state: AuthorizationState) {
        for reply in waiting.removeValue(forKey: appID) ?? [] { reply(state) }
    }
}
