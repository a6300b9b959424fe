import FoundationEssentials
import Logging
import ReveilleModel
import ReveilleRules

/// The rules of the alarms' notifications as a value: events in (an alarm changed, the server
/// answered or closed a notification, a button was pressed, the server came or went, a timer
/// fell due), effects out (show, close, report a button, arm a timer). `AlarmPresenter` is its
/// shell: it performs the effects on the notification server and the main loop's timers.
///
/// Each alarm with something to show has one slot, whose `screen` says where its notification
/// is. A slot's `generation` tells an answer that belongs to it from one for a slot withdrawn
/// (and perhaps created again) meanwhile.
package struct PresentationMachine {
    package struct Slot: Equatable {
        package let generation: Int
        package var state: Alarm.State
        /// What the server was last asked to show; `nil` when it must be asked again (a new
        /// server, a re-show).
        package var content: NotificationContent?
        package var screen: Screen = .nothing
        package var reshow = AlertReshowPolicy()

        package var isAsking: Bool {
            if case .asking = screen { true } else { false }
        }
    }

    /// Where the alarm's notification is, as one of the states it can be in: each carries only
    /// what is true of it, so no combination of flags that cannot happen can be written.
    package enum Screen: Equatable {
        /// Nothing on screen: not shown yet, closed, lost with its server, or not shown by it.
        case nothing
        /// The user dismissed a countdown or paused notice: it stays away until the alarm's
        /// state changes.
        case dismissed
        /// The server shows it as `id`; `answered`: one of its buttons was pressed (servers may
        /// close it after that, and reuse its id).
        case shown(UInt32, answered: Bool)
        /// A Notify call has not answered yet.
        case asking(Asking)
    }

    /// A Notify call waiting for the server's answer.
    package struct Asking: Equatable {
        package var previous: Previous?
        /// The alarm changed while the server was asked: it is presented again on the answer.
        package var changedMeanwhile = false
    }

    /// The notification on screen before the one being asked for.
    package enum Previous: Equatable {
        /// Updated in place (the same id); still on screen, and its buttons still answer.
        case updatedInPlace(UInt32, answered: Bool)
        /// Replaced by a fresh notification: closed once the server has answered for the new
        /// one, never in the same instant (swaync 0.7.3 then left the new popup out).
        case retiring(UInt32)

        package var id: UInt32 {
            switch self {
            case .updatedInPlace(let id, _), .retiring(let id): id
            }
        }
    }

    package enum Effect: Equatable {
        /// Ask the server to show `request` (in place of `replacing` when not 0); its answer
        /// comes back as `shown(id, generation, shownID)`.
        case show(UUID, generation: Int, NotificationRequest, replacing: UInt32)
        case close(UInt32)
        /// A button of the alarm's notification was pressed (`snoozeLength`: the longer snooze's).
        case button(UUID, AlarmButtonRole, snoozeLength: TimeInterval? = nil)
        /// Call `reshowDue` after this many seconds; `cancelReshow` drops a pending one.
        case scheduleReshow(UUID, generation: Int, after: TimeInterval)
        case cancelReshow(UUID)
        /// Present the alarm again after this many seconds (`present`: a countdown's text changes then).
        case scheduleRefresh(UUID, generation: Int, after: TimeInterval)
        case cancelRefresh(UUID)
        case log(Logger.Level, String)
    }

    package private(set) var slots: [UUID: Slot] = [:]
    /// The server shows buttons a click answers: alarms' texts leave out the terminal commands,
    /// and snoozing alerts offer a longer snooze. Set before `serverChanged` or
    /// `showAlertsAgain`, which show everything again.
    package var buttonsAnswer = false
    /// The server needs the notification a fresh one replaces closed before the fresh one is
    /// sent (`Quirk.closeBeforeFresh`); otherwise it is closed once the server has answered.
    package var closeBeforeFresh = false
    private var nextGeneration = 0

    // MARK: The alarms

    /// The alarm changed (or its text is due for a refresh): show what it needs now.
    /// `soundingItself`: Reveille plays its sound, so the server must not.
    package mutating func present(_ record: AlarmRecord, now: Date, timeZone: any TimeZoneRules, soundingItself: Bool) -> [Effect] {
        present(record, now: now, timeZone: timeZone, soundingItself: soundingItself, unseen: false)
    }

    /// `unseen`: what is on screen may not have been seen (dropped in Do Not Disturb), so the
    /// next notification is a fresh one.
    private mutating func present(_ record: AlarmRecord, now: Date, timeZone: any TimeZoneRules, soundingItself: Bool,
                                  unseen: Bool) -> [Effect] {
        guard let content = NotificationContent(record, now: now, timeZone: timeZone, buttonsAnswer: buttonsAnswer) else { return withdraw(record.id) }
        var slot = slots[record.id] ?? newSlot(state: record.state)
        defer { slots[record.id] = slot }
        let stateChanged = slot.state != record.state
        var onScreen: (id: UInt32, answered: Bool)?
        switch slot.screen {
        case .dismissed where !stateChanged:
            return []
        case .asking where !stateChanged && slot.content == content, .shown where !stateChanged && slot.content == content:
            return []
        case .asking(var asking):
            asking.changedMeanwhile = true
            slot.screen = .asking(asking)
            return []
        case .shown(let id, let answered):
            onScreen = (id, answered)
        case .nothing, .dismissed:
            break
        }
        var effects: [Effect] = []
        if stateChanged {
            slot.reshow = AlertReshowPolicy()
            effects.append(.cancelReshow(record.id))
        }
        // What needs attention (an alert) comes as a new notification, and so does anything
        // after a button press (the server may have closed the old one and reuse its id).
        let fresh = onScreen.map { $0.answered || unseen || (stateChanged && record.state == .alerting) } ?? true
        var previous: Previous?
        if let old = onScreen?.id {
            if !fresh {
                previous = .updatedInPlace(old, answered: false)
            } else if closeBeforeFresh {
                effects.append(.close(old))
            } else {
                // Closed when the server has answered for the new one (`shown`), not before it.
                previous = .retiring(old)
            }
        }
        slot.state = record.state
        slot.content = content
        slot.screen = .asking(Asking(previous: previous))
        let replacing = if case .updatedInPlace(let old, _) = previous { old } else { UInt32(0) }
        effects.append(.show(record.id, generation: slot.generation, content.request(soundingItself: soundingItself), replacing: replacing))
        effects.append(.cancelRefresh(record.id))
        if let wait = NotificationContent.nextRefresh(record, now: now) {
            effects.append(.scheduleRefresh(record.id, generation: slot.generation, after: wait))
        }
        return effects
    }

    /// The alarm ended or shows nothing now: its notification goes.
    package mutating func withdraw(_ id: UUID) -> [Effect] {
        guard let slot = slots.removeValue(forKey: id) else { return [] }
        let onScreen: UInt32? = switch slot.screen {
        case .shown(let shownID, _): shownID
        case .asking(let asking): asking.previous?.id
        case .nothing, .dismissed: nil
        }
        return [.cancelRefresh(id), .cancelReshow(id)] + (onScreen.map { [.close($0)] } ?? [])
    }

    // MARK: The server's answers

    /// The server answered a `show`: the notification's id, or `nil` when it showed nothing.
    /// `current`: the alarm as it is now, for a change that came while the server was asked.
    package mutating func shown(_ id: UUID, generation: Int, shownID: UInt32?, current: AlarmRecord?,
                        now: Date, timeZone: any TimeZoneRules, soundingItself: Bool) -> [Effect] {
        // Withdrawn while the server was being asked (or an answer nothing waits for): what it
        // showed must still go.
        guard var slot = slots[id], slot.generation == generation, case .asking(let asking) = slot.screen else {
            return shownID.map { [.close($0)] } ?? []
        }
        var effects: [Effect] = []
        var answered = false
        switch asking.previous {
        case .retiring(let old) where old != shownID:
            effects.append(.close(old))
        case .updatedInPlace(_, let wasAnswered):
            answered = wasAnswered
        case .retiring, nil:
            // A server that closed the old one after an action may have given its id to the new one.
            break
        }
        slot.screen = shownID.map { .shown($0, answered: answered) } ?? .nothing
        if shownID == nil, slot.state == .alerting {
            effects += decide(slot.reshow.failedToShow(), &slot, id: id, reason: "could not be shown")
        }
        slots[id] = slot
        if asking.changedMeanwhile, let current {
            effects += present(current, now: now, timeZone: timeZone, soundingItself: soundingItself)
        }
        return effects
    }

    /// A button of a shown notification was pressed (`key`: its action key).
    package mutating func pressed(_ id: UUID, generation: Int, key: String) -> [Effect] {
        guard var slot = slots[id], slot.generation == generation,
              let button = slot.content?.buttons.first(where: { $0.key.actionKey == key }), let role = button.role else { return [] }
        switch slot.screen {
        case .shown(let shownID, _):
            slot.screen = .shown(shownID, answered: true)
        case .asking(var asking):
            if case .updatedInPlace(let shownID, _) = asking.previous {
                asking.previous = .updatedInPlace(shownID, answered: true)
                slot.screen = .asking(asking)
            }
        case .nothing, .dismissed:
            break
        }
        slots[id] = slot
        return [.button(id, role, snoozeLength: button.snoozeLength)]
    }

    /// After a button's change: a custom button leaves the alarm ringing, so its alert comes
    /// back at once, as a new notification (most servers close one after an action).
    package mutating func afterPress(_ id: UUID, role: AlarmButtonRole, current: AlarmRecord?,
                             now: Date, timeZone: any TimeZoneRules, soundingItself: Bool) -> [Effect] {
        guard var slot = slots[id], let current, current.state == .alerting, AlarmEngine.action(for: role, of: current) == nil else { return [] }
        slot.content = nil
        slots[id] = slot
        return present(current, now: now, timeZone: timeZone, soundingItself: soundingItself)
    }

    /// The server closed the alarm's notification, for `reason` (1 expired, 2 dismissed, 3 by a
    /// call, 4 other).
    package mutating func closed(_ id: UUID, generation: Int, shownID: UInt32, reason: UInt32) -> [Effect] {
        guard var slot = slots[id], slot.generation == generation else { return [] }
        let afterAction: Bool
        switch slot.screen {
        case .shown(shownID, let answered):
            afterAction = answered
            // A countdown or paused notice the user dismissed stays away until the next change.
            slot.screen = slot.state != .alerting && !answered ? .dismissed : .nothing
        case .asking(var asking):
            guard case .updatedInPlace(shownID, let answered) = asking.previous else { return [] }
            // What is being asked for shows it again; nothing to dismiss.
            afterAction = answered
            asking.previous = nil
            slot.screen = .asking(asking)
        default:
            return []
        }
        defer { slots[id] = slot }
        guard slot.state == .alerting else { return [] }
        return decide(slot.reshow.closed(reason: reason, afterAction: afterAction), &slot, id: id, reason: "closed (reason \(reason))")
    }

    /// A re-show fell due. `current`: the alarm now.
    package mutating func reshowDue(_ id: UUID, generation: Int, current: AlarmRecord?,
                            now: Date, timeZone: any TimeZoneRules, soundingItself: Bool) -> [Effect] {
        guard var slot = slots[id], slot.generation == generation, slot.screen == .nothing,
              let current, current.state == .alerting else { return [] }
        slot.content = nil
        slots[id] = slot
        return present(current, now: now, timeZone: timeZone, soundingItself: soundingItself)
    }

    /// What is on screen may not have been seen: a server that drops notifications in Do Not
    /// Disturb left it. Each ringing alarm's alert is shown again as a fresh notification.
    package mutating func showAlertsAgain(_ alarms: [AlarmRecord], now: Date, timeZone: any TimeZoneRules,
                                  soundingItself: (UUID) -> Bool) -> [Effect] {
        var effects: [Effect] = []
        for record in alarms where record.state == .alerting {
            guard var slot = slots[record.id], !slot.isAsking else { continue }
            slot.content = nil
            slots[record.id] = slot
            effects += present(record, now: now, timeZone: timeZone, soundingItself: soundingItself(record.id), unseen: true)
        }
        return effects
    }

    /// The notification server came (`present`) or went. A server that left took our
    /// notifications with it; a new one knows none of them.
    package mutating func serverChanged(present: Bool, alarms: [AlarmRecord], now: Date, timeZone: any TimeZoneRules,
                                soundingItself: (UUID) -> Bool) -> [Effect] {
        for id in Array(slots.keys) {
            guard var slot = slots[id] else { continue }
            slot.content = nil
            switch slot.screen {
            case .shown: slot.screen = .nothing
            case .asking(var asking):
                asking.previous = nil
                slot.screen = .asking(asking)
            case .nothing, .dismissed: break
            }
            slots[id] = slot
        }
        var effects: [Effect] = []
        guard present else {
            // An alert must not wait for someone else to start a server: asking again starts an
            // activatable one. Counted like a close, so a server that dies at once is not
            // restarted in a loop.
            for id in Array(slots.keys) {
                guard var slot = slots[id], slot.state == .alerting, !slot.isAsking else { continue }
                effects += decide(slot.reshow.failedToShow(), &slot, id: id, reason: "was lost with the notification server")
                slots[id] = slot
            }
            return effects
        }
        for record in alarms where !(slots[record.id]?.isAsking ?? false) {
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
