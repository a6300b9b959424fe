import FoundationEssentials
import Logging
import ReveilleBus
import ReveilleCore

/// Shows each alarm that has something to show as one notification: the countdown and the
/// paused notice updated in place, every alert as a fresh notification (a server may keep a
/// replaced banner collapsed, without its buttons); turns button presses into actions;
/// follows the notification server as it comes, goes and changes.
@GLibActor
final class AlarmPresenter {

    /// One alarm's notification.
    private final class Slot {
        /// The server's id of what is on screen; `nil` when nothing is (or not yet).
        var shownID: UInt32?
        /// A Notify call has not answered yet; `needsUpdate` says the alarm changed meanwhile.
        var inFlight = false
        var needsUpdate = false
        var content: NotificationContent?
        var state: Alarm.State
        /// A button of the notification on screen was pressed: servers may close it after that.
        var answered = false
        /// A countdown or paused notice the user dismissed stays away until the next change.
        var dismissed = false
        var reshow = AlertReshowPolicy()
        var pendingReshow: UInt32?
        var refresh: UInt32?

        init(state: Alarm.State) { self.state = state }
    }

    private var slots: [UUID: Slot] = [:]
    private let server: NotificationServer
    /// The alarm with an id, and every alarm, as the scheduler has them now.
    private let alarm: (UUID) -> AlarmRecord?
    private let allAlarms: () -> [AlarmRecord]
    private let logger: Logger
    /// The agent's clock (the same the scheduler reads), for the text a notification shows.
    private let now: () -> Date
    private let timeZone: () -> any TimeZoneRules
    private let isSounding: (UUID) -> Bool
    /// Called when a button is pressed: the alarm and the button's role.
    var onButton: (@GLibActor (UUID, AlarmButtonRole) -> Void)?

    init(server: NotificationServer, logger: Logger, now: @escaping () -> Date = Date.init,
         timeZone: @escaping () -> any TimeZoneRules,
         isSounding: @escaping (UUID) -> Bool, alarm: @escaping (UUID) -> AlarmRecord?,
         allAlarms: @escaping () -> [AlarmRecord]) {
        self.server = server
        self.now = now
        self.logger = logger
        self.alarm = alarm
        self.allAlarms = allAlarms
        self.timeZone = timeZone
        self.isSounding = isSounding
        server.onServerChange = { [weak self] profile in self?.serverChanged(profile) }
    }

    /// Makes the notifications follow the alarms' changes.
    func update(_ changes: [AlarmChange]) {
        for change in changes {
            if let record = change.record { present(record) } else { withdraw(change.id) }
        }
    }

    /// Closes every notification, so none is left with buttons nobody answers.
    func withdrawAll() {
        for id in Array(slots.keys) { withdraw(id) }
    }

    /// A persistent notice that an occurrence did not ring, or rang unanswered.
    func showMissed(_ record: AlarmRecord, due: Date, reason: MissReason) {
        show(.missed(record, due: due, reason: reason, timeZone: timeZone()))
    }

    /// A persistent notice with one Dismiss button, for what the user should know.
    func showNotice(summary: String, body: String) {
        show(.notice(summary: summary, body: body))
    }

    private func show(_ notice: NotificationContent) {
        // Its one button dismisses it; nothing else to follow.
        server.show(notice.request(), handlers: .init(onAction: { [weak self] id, _ in self?.server.close(id) })) { _ in }
    }

    // MARK: Slots

    private func present(_ record: AlarmRecord) {
        guard let content = NotificationContent(record, now: now(), timeZone: timeZone()) else {
            return withdraw(record.id)
        }
        let slot = slots[record.id] ?? Slot(state: record.state)
        slots[record.id] = slot
        let stateChanged = slot.state != record.state
        if !stateChanged && (slot.dismissed || (slot.content == content && (slot.shownID != nil || slot.inFlight))) { return }
        if slot.inFlight {
            slot.needsUpdate = true
            return
        }
        if stateChanged {
            slot.dismissed = false
            slot.reshow = AlertReshowPolicy()
            cancelReshow(slot)
        }
        // What needs attention (an alert) comes as a new notification, and so does anything
        // after a button press (the server may have closed the old one and reuse its id).
        let fresh = slot.shownID == nil || slot.answered || (stateChanged && record.state == .alerting)
        if fresh, let old = slot.shownID { server.close(old) }
        let replacing = fresh ? 0 : slot.shownID ?? 0
        if fresh { slot.shownID = nil }
        slot.state = record.state
        slot.content = content
        slot.answered = false
        slot.inFlight = true
        let id = record.id
        // The slot is held until the answer: one withdrawn meanwhile must still close what was shown.
        server.show(content.request(soundingItself: isSounding(record.id)), replacing: replacing, handlers: handlers(for: slot, id: id)) {
            [weak self, slot] shownID in
            guard let self else { return }
            slot.inFlight = false
            guard self.slots[id] === slot else {
                // Withdrawn while the server was being asked.
                if let shownID { self.server.close(shownID) }
                return
            }
            slot.shownID = shownID
            if shownID == nil { self.shownNothing(slot, id: id) }
            if slot.needsUpdate {
                slot.needsUpdate = false
                if let record = self.alarm(id) { self.present(record) }
            }
        }
        scheduleRefresh(slot, record: record)
    }

    private func handlers(for slot: Slot, id: UUID) -> NotificationServer.Handlers {
        NotificationServer.Handlers(
            onAction: { [weak self, weak slot] _, key in
                guard let self, let slot, self.slots[id] === slot,
                      let role = slot.content?.buttons.first(where: { $0.key.actionKey == key })?.role else { return }
                slot.answered = true
                self.onButton?(id, role)
                // A custom button leaves the alarm ringing: its alert comes back at once, as a
                // new notification (most servers close one after an action).
                if self.slots[id] === slot, let record = self.alarm(id), record.state == .alerting,
                   AlarmEngine.action(for: role, of: record) == nil {
                    slot.content = nil
                    self.present(record)
                }
            },
            onClosed: { [weak self, weak slot] _, reason in
                guard let self, let slot, self.slots[id] === slot else { return }
                self.closed(slot, id: id, reason: reason)
            })
    }

    private func closed(_ slot: Slot, id: UUID, reason: UInt32) {
        let afterAction = slot.answered
        slot.shownID = nil
        slot.answered = false
        guard slot.state == .alerting else {
            if !afterAction { slot.dismissed = true }
            return
        }
        decide(slot.reshow.closed(reason: reason, afterAction: afterAction), slot, id: id, reason: "closed (reason \(reason))")
    }

    /// The server did not show the notification (it failed, or did not answer in time).
    private func shownNothing(_ slot: Slot, id: UUID) {
        guard slot.state == .alerting else { return }
        decide(slot.reshow.failedToShow(), slot, id: id, reason: "could not be shown")
    }

    private func decide(_ decision: AlertReshowPolicy.Decision, _ slot: Slot, id: UUID, reason: String) {
        switch decision {
        case .ignore:
            break
        case .giveUp:
            logger.notice("alert for \(id) \(reason) again; not showing it again (stop it with: reveille stop \(id.uuidString.lowercased().prefix(8)))")
        case .reshow(let pause):
            logger.info("alert for \(id) \(reason) while still ringing; showing it again in \(pause) s")
            cancelReshow(slot)
            slot.pendingReshow = MainLoopSources.after(milliseconds: UInt32(pause * 1000)) { [weak self, weak slot] in
                guard let self, let slot, self.slots[id] === slot else { return }
                slot.pendingReshow = nil
                guard slot.shownID == nil, !slot.inFlight, let record = self.alarm(id), record.state == .alerting else { return }
                slot.content = nil
                self.present(record)
            }
        }
    }

    private func cancelReshow(_ slot: Slot) {
        if let pending = slot.pendingReshow { MainLoopSources.remove(pending) }
        slot.pendingReshow = nil
    }

    private func withdraw(_ id: UUID) {
        guard let slot = slots.removeValue(forKey: id) else { return }
        if let refresh = slot.refresh { MainLoopSources.remove(refresh) }
        cancelReshow(slot)
        if let shownID = slot.shownID { server.close(shownID) }
    }

    /// Redraws a countdown when its text next changes.
    private func scheduleRefresh(_ slot: Slot, record: AlarmRecord) {
        if let refresh = slot.refresh { MainLoopSources.remove(refresh) }
        slot.refresh = nil
        guard let wait = NotificationContent.nextRefresh(record, now: now()) else { return }
        let id = record.id
        slot.refresh = MainLoopSources.after(milliseconds: UInt32(wait * 1000)) { [weak self, weak slot] in
            guard let self, let slot, self.slots[id] === slot else { return }
            slot.refresh = nil
            if let record = self.alarm(id) { self.present(record) }
        }
    }

    // MARK: The server

    private func serverChanged(_ profile: NotificationServerProfile?) {
        // A server that left took our notifications with it; a new one knows none of them.
        for slot in slots.values {
            slot.shownID = nil
            slot.answered = false
            slot.content = nil
        }
        guard profile != nil else {
            // An alert must not wait for someone else to start a server: asking again starts an
            // activatable one. Counted like a close, so a server that dies at once is not
            // restarted in a loop.
            for (id, slot) in slots where slot.state == .alerting && !slot.inFlight {
                decide(slot.reshow.failedToShow(), slot, id: id, reason: "was lost with the notification server")
            }
            return
        }
        for record in allAlarms() where !(slots[record.id]?.inFlight ?? false) { present(record) }
    }
}
