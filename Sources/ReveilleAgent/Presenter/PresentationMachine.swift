import FoundationEssentials
import Logging
import ReveilleCore

/// The rules of the alarms' notifications as a value: events in (an alarm changed, the server
/// answered or closed a notification, a button was pressed, the server came or went, a timer
/// fell due), effects out (show, close, report a button, arm a timer). `AlarmPresenter` is its
/// shell: it performs the effects on the notification server and the main loop's timers.
///
/// Each alarm with something to show has one slot. A slot's `generation` tells an answer that
/// belongs to it from one for a slot withdrawn (and perhaps created again) meanwhile.
struct PresentationMachine {
    struct Slot: Equatable {
        let generation: Int
        /// The server's id of what is on screen; `nil` when nothing is (or not yet).
        var shownID: UInt32?
        /// What a fresh notification replaces: closed once the server has answered for the new
        /// one, never in the same instant (swaync 0.7.3 then left the new popup out).
        var retiring: UInt32?
        /// What is on screen may not have been seen (dropped in Do Not Disturb): the next
        /// show is a fresh notification.
        var unseen = false
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
    }

    enum Effect: Equatable {
        /// Ask the server to show `request` (in place of `replacing` when not 0); its answer
        /// comes back as `shown(id, generation, shownID)`.
        case show(UUID, generation: Int, NotificationServer.Request, replacing: UInt32)
        case close(UInt32)
        /// A button of the alarm's notification was pressed (`snoozeLength`: the longer snooze's).
        case button(UUID, AlarmButtonRole, snoozeLength: TimeInterval? = nil)
        /// Call `reshowDue` after this many seconds; `cancelReshow` drops a pending one.
        case scheduleReshow(UUID, generation: Int, after: TimeInterval)
        case cancelReshow(UUID)
        /// Call `refreshDue` after this many seconds (a countdown's text changes then).
        case scheduleRefresh(UUID, generation: Int, after: TimeInterval)
        case cancelRefresh(UUID)
        case log(Logger.Level, String)
    }

    private(set) var slots: [UUID: Slot] = [:]
    /// The server shows buttons a click answers: alarms' texts leave out the terminal commands,
    /// and snoozing alerts offer a longer snooze. Set before `serverChanged` or
    /// `showAlertsAgain`, which show everything again.
    var buttonsAnswer = false
    /// The server needs the notification a fresh one replaces closed before the fresh one is
    /// sent (`Quirk.closeBeforeFresh`); otherwise it is closed once the server has answered.
    var closeBeforeFresh = false
    private var nextGeneration = 0

    // MARK: The alarms

    /// The alarm changed (or its text is due for a refresh): show what it needs now.
    /// `soundingItself`: Reveille plays its sound, so the server must not.
    mutating func present(_ record: AlarmRecord, now: Date, timeZone: any TimeZoneRules, soundingItself: Bool) -> [Effect] {
        guard let content = NotificationContent(record, now: now, timeZone: timeZone, buttonsAnswer: buttonsAnswer) else { return withdraw(record.id) }
        var effects: [Effect] = []
        var slot = slots[record.id] ?? newSlot(state: record.state)
        let stateChanged = slot.state != record.state
        defer { slots[record.id] = slot }
        if !stateChanged && (slot.dismissed || (slot.content == content && (slot.shownID != nil || slot.inFlight))) { return [] }
        if slot.inFlight {
            slot.needsUpdate = true
            return []
        }
        if stateChanged {
            slot.dismissed = false
            slot.reshow = AlertReshowPolicy()
            effects.append(.cancelReshow(record.id))
        }
        // What needs attention (an alert) comes as a new notification, and so does anything
        // after a button press (the server may have closed the old one and reuse its id).
        let fresh = slot.shownID == nil || slot.answered || slot.unseen || (stateChanged && record.state == .alerting)
        let replacing = fresh ? 0 : slot.shownID ?? 0
        if fresh {
            if closeBeforeFresh {
                if let old = slot.shownID { effects.append(.close(old)) }
            } else {
                // Closed when the server has answered for the new one (`shown`), not before it.
                slot.retiring = slot.shownID
            }
            slot.shownID = nil
        }
        slot.state = record.state
        slot.content = content
        slot.answered = false
        slot.unseen = false
        slot.inFlight = true
        effects.append(.show(record.id, generation: slot.generation, content.request(soundingItself: soundingItself), replacing: replacing))
        effects.append(.cancelRefresh(record.id))
        if let wait = NotificationContent.nextRefresh(record, now: now) {
            effects.append(.scheduleRefresh(record.id, generation: slot.generation, after: wait))
        }
        return effects
    }

    /// The alarm ended or shows nothing now: its notification goes.
    mutating func withdraw(_ id: UUID) -> [Effect] {
        guard let slot = slots.removeValue(forKey: id) else { return [] }
        return [.cancelRefresh(id), .cancelReshow(id)] + [slot.shownID, slot.retiring].compactMap { $0.map { .close($0) } }
    }

    // MARK: The server's answers

    /// The server answered a `show`: the notification's id, or `nil` when it showed nothing.
    /// `current`: the alarm as it is now, for a change that came while the server was asked.
    mutating func shown(_ id: UUID, generation: Int, shownID: UInt32?, current: AlarmRecord?,
                        now: Date, timeZone: any TimeZoneRules, soundingItself: Bool) -> [Effect] {
        guard var slot = slots[id], slot.generation == generation else {
            // Withdrawn while the server was being asked: what it showed must still go.
            return shownID.map { [.close($0)] } ?? []
        }
        slot.inFlight = false
        slot.shownID = shownID
        var effects: [Effect] = []
        if let old = slot.retiring {
            slot.retiring = nil
            // A server that closed the old one after an action may have given its id to the new one.
            if old != shownID { effects.append(.close(old)) }
        }
        if shownID == nil, slot.state == .alerting {
            effects += decide(slot.reshow.failedToShow(), &slot, id: id, reason: "could not be shown")
        }
        let again = slot.needsUpdate
        slot.needsUpdate = false
        slots[id] = slot
        if again, let current { effects += present(current, now: now, timeZone: timeZone, soundingItself: soundingItself) }
        return effects
    }

    /// A button of a shown notification was pressed (`key`: its action key).
    mutating func pressed(_ id: UUID, generation: Int, key: String) -> [Effect] {
        guard var slot = slots[id], slot.generation == generation,
              let button = slot.content?.buttons.first(where: { $0.key.actionKey == key }), let role = button.role else { return [] }
        slot.answered = true
        slots[id] = slot
        return [.button(id, role, snoozeLength: button.snoozeLength)]
    }

    /// After a button's change: a custom button leaves the alarm ringing, so its alert comes
    /// back at once, as a new notification (most servers close one after an action).
    mutating func afterPress(_ id: UUID, role: AlarmButtonRole, current: AlarmRecord?,
                             now: Date, timeZone: any TimeZoneRules, soundingItself: Bool) -> [Effect] {
        guard var slot = slots[id], let current, current.state == .alerting, AlarmEngine.action(for: role, of: current) == nil else { return [] }
        slot.content = nil
        slots[id] = slot
        return present(current, now: now, timeZone: timeZone, soundingItself: soundingItself)
    }

    /// The server closed the alarm's notification, for `reason` (1 expired, 2 dismissed, 3 by a
    /// call, 4 other).
    mutating func closed(_ id: UUID, generation: Int, shownID: UInt32, reason: UInt32) -> [Effect] {
        guard var slot = slots[id], slot.generation == generation, slot.shownID == shownID else { return [] }
        let afterAction = slot.answered
        slot.shownID = nil
        slot.answered = false
        defer { slots[id] = slot }
        guard slot.state == .alerting else {
            if !afterAction { slot.dismissed = true }
            return []
        }
        return decide(slot.reshow.closed(reason: reason, afterAction: afterAction), &slot, id: id, reason: "closed (reason \(reason))")
    }

    /// A re-show fell due. `current`: the alarm now.
    mutating func reshowDue(_ id: UUID, generation: Int, current: AlarmRecord?,
                            now: Date, timeZone: any TimeZoneRules, soundingItself: Bool) -> [Effect] {
        guard var slot = slots[id], slot.generation == generation, slot.shownID == nil, !slot.inFlight,
              let current, current.state == .alerting else { return [] }
        slot.content = nil
        slots[id] = slot
        return present(current, now: now, timeZone: timeZone, soundingItself: soundingItself)
    }

    /// What is on screen may not have been seen: a server that drops notifications in Do Not
    /// Disturb left it. Each ringing alarm's alert is shown again as a fresh notification.
    mutating func showAlertsAgain(_ alarms: [AlarmRecord], now: Date, timeZone: any TimeZoneRules,
                                  soundingItself: (UUID) -> Bool) -> [Effect] {
        var effects: [Effect] = []
        for record in alarms where record.state == .alerting {
            guard var slot = slots[record.id], !slot.inFlight else { continue }
            slot.content = nil
            slot.unseen = true
            slots[record.id] = slot
            effects += present(record, now: now, timeZone: timeZone, soundingItself: soundingItself(record.id))
        }
        return effects
    }

    /// The notification server came (`present`) or went. A server that left took our
    /// notifications with it; a new one knows none of them.
    mutating func serverChanged(present: Bool, alarms: [AlarmRecord], now: Date, timeZone: any TimeZoneRules,
                                soundingItself: (UUID) -> Bool) -> [Effect] {
        for id in Array(slots.keys) {
            slots[id]?.shownID = nil
            slots[id]?.retiring = nil
            slots[id]?.answered = false
            slots[id]?.content = nil
        }
        var effects: [Effect] = []
        guard present else {
            // An alert must not wait for someone else to start a server: asking again starts an
            // activatable one. Counted like a close, so a server that dies at once is not
            // restarted in a loop.
            for id in Array(slots.keys) {
                guard var slot = slots[id], slot.state == .alerting, !slot.inFlight else { continue }
                effects += decide(slot.reshow.failedToShow(), &slot, id: id, reason: "was lost with the notification server")
                slots[id] = slot
            }
            return effects
        }
        for record in alarms where !(slots[record.id]?.inFlight ?? false) {
            effects += self.present(record, now: now, timeZone: timeZone, soundingItself: soundingItself(record.id))
        }
        return effects
    }

    // MARK: Helpers

    private mutating func newSlot(state: Alarm.State) -> Slot {
        nextGeneration += 1
        return Slot(generation: nextGeneration, state: state)
    }

    private func decide(_ decision: AlertReshowPolicy.Decision, _ slot: inout Slot, id: UUID, reason: String) -> [Effect] {
        switch decision {
        case .ignore:
            return []
        case .giveUp:
            return [.log(.notice, "alert for \(id) \(reason) again; not showing it again (stop it with: reveille stop \(id.uuidString.lowercased().prefix(8)))")]
        case .reshow(let pause):
            return [.log(.info, "alert for \(id) \(reason) while still ringing; showing it again in \(pause) s"),
                    .cancelReshow(id), .scheduleReshow(id, generation: slot.generation, after: pause)]
        }
    }
}
