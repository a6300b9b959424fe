import ReveilleBus

/// How far a notification shown now reaches the person. Where it is not `.answerable` while
/// an alarm rings, the alert window opens (settings: `alertWindow`).
enum NotificationReach: Equatable, Sendable {
    /// Shown, with buttons a click answers.
    case answerable
    /// Shown, but its buttons cannot be clicked: the server draws none, or reaches them only
    /// through a menu that may not be installed, or withdraws them in Do Not Disturb.
    case seenOnly
    /// Not shown at all: no server, or Do Not Disturb holds it back or drops it.
    case unseen

    /// The reach of a server with `profile` (`nil`: none runs nor is activatable), from what it
    /// says of itself and its known behaviour.
    static func of(_ profile: NotificationServerProfile?) -> NotificationReach {
        guard let profile else { return .unseen }
        guard profile.hasActions, !profile.quirks.contains(.actionsNeedMenu) else { return .seenOnly }
        return .answerable
    }
}

/// Follows the notification server and tells the runtime each change of `NotificationReach`.
@GLibActor
final class NotificationReachWatch {
    private let runtime: AgentRuntime
    private var reach: NotificationReach?

    init(server: NotificationServer, runtime: AgentRuntime) {
        self.runtime = runtime
        server.observeServer { [weak self] event in
            switch event {
            case .ready(let profile): self?.update(.of(profile))
            case .missing: self?.update(.of(nil))
            // Another server may be activated by the next notification: not known until then.
            case .left: break
            }
        }
    }

    private func update(_ new: NotificationReach) {
        guard new != reach else { return }
        reach = new
        runtime.receive(.notificationReach(new))
    }
}
