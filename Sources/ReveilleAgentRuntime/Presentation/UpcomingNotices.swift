import FoundationEssentials
import Logging
import ReveilleLoop
import ReveilleModel
import ReveilleRules

/// Shows the upcoming-alarm notices `UpcomingNoticePolicy` decides on, and turns their Skip
/// into `reveille skip`: the shell around the policy (the alarms and settings in; the
/// notification server, one timer and the runtime out).
@GLibActor
package final class UpcomingNotices: AlarmFollower, AgentEventSource {
    private var policy: UpcomingNoticePolicy
    private let server: any NotificationTransport
    private let clock: any AgentClock
    /// What this part has to say, read by the runtime alone.
    package let outbox = AgentOutbox()
    private let logger: Logger
    private var alarms = AlarmTable.empty
    /// Each alarm's notice on screen, by the id the server gave it, and back.
    private var shownIDs: [UUID: UInt32] = [:]
    private var alarmOf: [UInt32: UUID] = [:]
    private var timer: ClockTimer?

    isolated deinit {
        if let timer { clock.cancel(timer) }
    }

    package init(settings: AgentSettings, server: any NotificationTransport, clock: any AgentClock, logger: Logger) {
        policy = UpcomingNoticePolicy(which: settings.upcomingNotice, lead: settings.upcomingLead)
        (self.server, self.clock, self.logger) = (server, clock, logger)
        server.observe { [weak self] event in self?.heard(event) }
    }

    package func follow(_ changes: [AlarmChange], in alarms: AlarmTable) {
        self.alarms = alarms
        reconcile()
    }

    package func hear(_ notice: AgentNotice) {
        guard case .settingsChanged(let settings) = notice else { return }
        (policy.which, policy.lead) = (settings.upcomingNotice, settings.upcomingLead)
        reconcile()
    }

    private func reconcile() {
        for effect in policy.reconcile(alarms.records, now: clock.now, timeZone: clock.timeZone) {
            switch effect {
            case .show(let id, let content):
                server.show(content.request(), replacing: shownIDs[id] ?? 0) { [weak self] shownID in
                    guard let self, let shownID else { return }
                    // Withdrawn before the server answered: it goes at once.
                    guard self.policy.shown[id] != nil else { return self.server.close(shownID) }
                    if let old = self.shownIDs[id], old != shownID { self.alarmOf[old] = nil }
                    self.shownIDs[id] = shownID
                    self.alarmOf[shownID] = id
                }
            case .withdraw(let id):
                guard let shownID = shownIDs.removeValue(forKey: id) else { continue }
                alarmOf[shownID] = nil
                server.close(shownID)
            case .wake(let instant):
                if let timer { clock.cancel(timer) }
                timer = instant.map { instant in
                    clock.after(max(0, instant.timeIntervalSince(clock.now))) { [weak self] in
                        self?.timer = nil
                        self?.reconcile()
                    }
                }
            }
        }
    }

    private func heard(_ event: NotificationEvent) {
        switch event {
        case .ready:
            reconcile()
        case .left:
            (shownIDs, alarmOf) = ([:], [:])
            policy.serverLeft()
        case .missing:
            break
        case .action(let shownID, let key):
            guard let id = alarmOf[shownID], key == NotificationContent.Key.skipUpcoming.actionKey else { return }
            // As `reveille skip`, the person's own: a repeating alarm skips this ring, a
            // one-time one is done. Its change withdraws the notice.
            outbox.send(.call(.skip(id: .id(id)), owner: nil) { [logger] result in
                if case .failure(let error) = result { logger.notice("upcoming notice: skipping \(id) was refused: \(error)") }
            })
        case .closed(let shownID, let reason):
            guard let id = alarmOf.removeValue(forKey: shownID) else { return }
            shownIDs[id] = nil
            // Dismissed by the person (2): not again for this occurrence. Expired or closed
            // otherwise (1, 4): shown again at the next look.
            if reason == 2 { policy.closedByPerson(id) } else { policy.forget(id) }
        }
    }
}
