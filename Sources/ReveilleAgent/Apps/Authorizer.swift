import FoundationEssentials
import Logging
import ReveilleBus
import ReveilleCore

/// The user's decision per app: asks once with a notification (Allow / Don't Allow), keeps
/// the answer in the config folder, and tells those waiting for it.
@GLibActor
final class Authorizer {
    private let store: AuthorizationStore
    private let logger: Logger
    private var decisions: [String: AppAuthorization]
    private var prompts: [String: DesktopNotification] = [:]
    private var waiting: [String: [@GLibActor (AuthorizationState) -> Void]] = [:]
    /// Hears every change of an app's state.
    var onChange: (@GLibActor (String, AuthorizationState) -> Void)?

    init(store: AuthorizationStore, logger: Logger) {
        self.store = store
        self.logger = logger
        decisions = store.load()
    }

    func state(of identity: ClientIdentity) -> AuthorizationState {
        identity.isUser ? .authorized : decisions[identity.appID]?.state ?? .notDetermined
    }

    var all: [AppAuthorization] { decisions.values.sorted { $0.appID < $1.appID } }

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
                                           usageDescription: usageDescription ?? decisions[appID]?.usageDescription, decided: Date())
        }
        do {
            try store.save(next)
        } catch {
            throw .storageFailure("could not write \(store.file): \(error); the decision was not changed")
        }
        decisions = next
        logger.info("\(appID) is now \(state.rawValue)")
        prompts.removeValue(forKey: appID).map { $0.onClosed = nil; $0.close() }
        finish(appID, with: state)
        onChange?(appID, state)
    }

    private func prompt(_ appID: String, usageDescription: String) {
        guard prompts[appID] == nil else { return }
        let notification = DesktopNotification(summary: "\(appID) wants to schedule alarms",
                                               body: NotificationContent.displayable(usageDescription), icon: AlarmPresenter.icon)
        notification.setUrgency(.normal)
        notification.setTimeout(milliseconds: nil)
        notification.setHint("desktop-entry", .string(AlarmPresenter.desktopEntry))
        notification.setHint("resident", .bool(true))
        notification.setActions([(key: "allow", label: "Allow"), (key: "deny", label: "Don't Allow")])
        notification.onAction = { [weak self] key in
            do { try self?.set(appID, key == "allow" ? .authorized : .denied, usageDescription: usageDescription) } catch {
                self?.logger.error("\(error)")
            }
        }
        // Closed without an answer: the app stays undecided and may ask again.
        notification.onClosed = { [weak self] _ in
            guard let self, self.prompts[appID] === notification else { return }
            self.prompts[appID] = nil
            self.finish(appID, with: .notDetermined)
        }
        prompts[appID] = notification
        do { try notification.show() } catch {
            logger.error("could not ask about \(appID): \(error)")
            prompts[appID] = nil
            finish(appID, with: .notDetermined)
        }
    }

    private func finish(_ appID: String, with state: AuthorizationState) {
        for reply in waiting.removeValue(forKey: appID) ?? [] { reply(state) }
    }
}
