import FoundationEssentials
import Logging
import ReveilleAgentRuntime
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleModel
import ReveilleRules

/// Follows the notification server and its Do Not Disturb state, and tells the runtime each
/// change of `NotificationReach` (logged at info).
@GLibActor
package final class NotificationReachWatch: AlarmFollower, AgentEventSource {
    /// What this part has to say, read by the runtime alone.
    package let outbox = AgentOutbox()
    private let bus: BusConnection
    private let logger: Logger
    private var profile: NotificationServerProfile?
    private var doNotDisturb = false
    private var doNotDisturbWatch: DoNotDisturbWatch?
    private var ringing = false
    /// The alarms that ring now.
    private var alerting: Set<UUID> = []
    private var reach: NotificationReach?

    package init(server: NotificationClient, bus: BusConnection, logger: Logger) {
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
    package func follow(_ changes: [AlarmChange], in alarms: AlarmTable) {
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
        outbox.send(.notificationReach(new))
    }
}
