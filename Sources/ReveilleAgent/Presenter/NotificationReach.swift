import FoundationEssentials
import Logging
import ReveilleBus
import ReveilleCore

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
    /// says of itself, its known behaviour, and whether its Do Not Disturb is on.
    static func of(_ profile: NotificationServerProfile?, doNotDisturb: Bool = false) -> NotificationReach {
        guard let profile else { return .unseen }
        let reach: NotificationReach = profile.hasActions && !profile.quirks.contains(.actionsNeedMenu) ? .answerable : .seenOnly
        guard doNotDisturb else { return reach }
        switch profile.criticalInDoNotDisturb {
        case .shownWithButtons: return reach
        case .shownWithoutButtons: return .seenOnly
        case .heldBack, .dropped: return .unseen
        }
    }

    /// Whether the change from `old` to `new` is the end of a Do Not Disturb that dropped the
    /// alerts shown meanwhile (MATE, LXQt: without a signal), so they must be shown again.
    static func endsDroppingDoNotDisturb(from old: NotificationReach?, to new: NotificationReach,
                                         on profile: NotificationServerProfile?) -> Bool {
        old == .unseen && new != .unseen && profile?.criticalInDoNotDisturb == .dropped
    }
}

/// Follows the notification server and its Do Not Disturb state, and tells the runtime each
/// change of `NotificationReach` (logged at info).
@GLibActor
final class NotificationReachWatch: AlarmFollower {
    private let events: AgentEvents
    private let bus: BusConnection
    private let logger: Logger
    private var profile: NotificationServerProfile?
    private var doNotDisturb = false
    private var doNotDisturbWatch: DoNotDisturbWatch?
    private var ringing = false
    /// The alarms that ring now.
    private var alerting: Set<UUID> = []
    private var reach: NotificationReach?

    init(server: NotificationClient, bus: BusConnection, logger: Logger, events: AgentEvents) {
        self.events = events
        self.bus = bus
        self.logger = logger
        server.observe { [weak self] event in
            switch event {
            case .ready(let profile): self?.serverReady(profile)
            case .missing: self?.serverReady(nil)
            // Another server may be activated by the next notification: not known until then.
            case .left: self?.stopWatching()
            case .action, .closed: break
            }
        }
    }

    /// Whether an alarm rings: a Do Not Disturb state no signal announces is read only then.
    /// Followed from the changes alone: a look at every alarm would cost each change a sort of
    /// all of them (16 ms per Schedule with 10,000 alarms).
    func follow(_ changes: [AlarmChange], in alarms: AlarmTable, events: AgentEvents) {
        for change in changes {
            if change.record?.state == .alerting { alerting.insert(change.id) } else { alerting.remove(change.id) }
        }
        ringing = !alerting.isEmpty
        doNotDisturbWatch?.polling(ringing)
    }

    private func serverReady(_ new: NotificationServerProfile?) {
        stopWatching()
        profile = new
        let source = new?.known?.doNotDisturbSource ?? .none
        doNotDisturbWatch = DoNotDisturbWatch(source: source, bus: bus, logger: logger) { [weak self] on in
            guard let self else { return }
            self.doNotDisturb = on
            self.logger.info("the notification server's Do Not Disturb is \(on ? "on" : "off")")
            self.update()
        }
        doNotDisturbWatch?.polling(ringing)
        update()
    }

    private func stopWatching() {
        doNotDisturbWatch?.stop()
        doNotDisturbWatch = nil
        doNotDisturb = false
    }

    private func update() {
        let new = NotificationReach.of(profile, doNotDisturb: doNotDisturb)
        guard new != reach else { return }
        reach = new
        logger.info("notifications reach the user: \(new)")
        events.send(.notificationReach(new))
    }
}
