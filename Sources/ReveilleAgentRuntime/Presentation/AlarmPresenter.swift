import FoundationEssentials
import Logging
import ReveilleLoop
import ReveilleModel
import ReveilleRules

/// Shows each alarm that has something to show as one notification: the countdown and the
/// paused notice updated in place, every alert as a fresh notification (a server may keep a
/// replaced banner collapsed, without its buttons); turns button presses into actions;
/// follows the notification server as it comes, goes and changes.
///
/// The rules are `PresentationMachine`'s; this is its shell: it feeds it the alarms' changes and
/// the server's answers, and performs its effects (`run`, one switch) on the notification
/// server and the main loop's timers. It reads the alarms from the table the runtime
/// hands it; a button pressed is an event for the runtime, sent once its effects are done.
@GLibActor
package final class AlarmPresenter: AlarmAlerter, AgentEventSource {
    private var machine = PresentationMachine()
    /// The timers for each alarm's pending re-show and countdown refresh.
    private var reshowTimers: [UUID: ClockTimer] = [:]
    private var refreshTimers: [UUID: ClockTimer] = [:]
    private let server: any NotificationTransport
    /// The running server's profile, for what its close reasons mean and what it does in Do
    /// Not Disturb.
    private var profile: NotificationServerProfile?
    private var reach: NotificationReach?
    /// Whether the buttons' answering changed while nothing was seen: the texts follow once seen.
    private var rewordWhenSeen = false
    /// The alarms, read-only.
    private var alarms = AlarmTable.empty
    /// Each alarm's notification on screen, by the id the server gave it: the alarm and the
    /// slot's generation it was shown for, to which its presses and its close go.
    private var shown: [UInt32: (alarm: UUID, generation: Int)] = [:]
    /// The notices on screen (one Dismiss button each), by the server's id, with the alarm a
    /// missed notice tells of.
    private var notices: [UInt32: UUID?] = [:]
    /// Where button presses go, read by the runtime alone.
    package let outbox = AgentOutbox()
    /// Button presses of the effects being run, sent once they are done (never from inside them).
    private var pressed: [AgentEvent] = []
    private var running = 0
    private let logger: Logger
    private let clock: any AgentClock

    /// Its timers go with it (each holds it weakly, but its main-loop source would stay).
    isolated deinit {
        for timer in reshowTimers.values { clock.cancel(timer) }
        for timer in refreshTimers.values { clock.cancel(timer) }
    }

    package init(server: any NotificationTransport, logger: Logger, clock: any AgentClock) {
        self.server = server
        self.clock = clock
        self.logger = logger
        server.observe { [weak self] event in self?.heard(event) }
    }

    /// Makes the notifications follow the alarms' changes.
    package func follow(_ changes: [AlarmChange], in alarms: AlarmTable) {
        self.alarms = alarms
        for change in changes {
            if let record = change.record { run(present(record)) } else { run(machine.withdraw(change.id)) }
        }
    }

    package func whenSent(_ body: @escaping @GLibActor () -> Void) {
        server.whenCaughtUp(body)
    }

    package func hear(_ notice: AgentNotice) {
        switch notice {
        case .missed(let record, let due, let reason): show(.missed(record, due: due, reason: reason, timeZone: clock.timeZone), of: record.id)
        case .missedWithdrawn(let alarm):
            for (shownID, _) in notices.filter({ $0.value == alarm }) {
                notices[shownID] = nil
                server.close(shownID)
            }
        case .notice(let summary, let body): show(.notice(summary: summary, body: body))
        case .notificationReach(let new): reachChanged(new)
        case .sessionUnlocked: showAlertsAgain()
        case .buttonPressed, .authorizationChanged, .settingsChanged: break
        }
    }

    /// Buttons that answer make the terminal commands needless; an alert a server dropped in Do
    /// Not Disturb (MATE, LXQt: without a signal) is shown again when Do Not Disturb ends.
    private func reachChanged(_ new: NotificationReach) {
        let old = reach
        reach = new
        let answering = new == .answerable
        let dropped = NotificationReach.endsDroppingDoNotDisturb(from: old, to: new, on: profile)
        if machine.buttonsAnswer != answering {
            machine.buttonsAnswer = answering
            rewordWhenSeen = true
        }
        // The terminal commands come or go, and so does the longer snooze. Not on a server that
        // shows nothing now (LXQt leaves an update sent in its Do Not Disturb unanswered): once
        // one shows again, even with the same buttons as before it went (a re-show that waited
        // for it was worded then). Alerts a server dropped are shown again below, once it has
        // read the end of its Do Not Disturb.
        if rewordWhenSeen && !dropped && new != .unseen {
            rewordWhenSeen = false
            for record in alarms.list { run(present(record)) }
        }
        guard dropped else { return }
        rewordWhenSeen = false // what is shown again below is worded as the buttons are then
        logger.info("Do Not Disturb ended on a server that dropped the alerts shown meanwhile: showing them again")
        // The server reads the end of its Do Not Disturb at its own pace (LXQt re-reads its file
        // within a second): shown sooner, the alert would be dropped again.
        clock.after(KnownServer.doNotDisturbEndReadWithin) { [weak self] in
            guard let self, self.reach != .unseen else { return }
            self.showAlertsAgain()
        }
    }

    /// Each ringing alarm's alert as a fresh notification: what was on screen may not have been seen.
    private func showAlertsAgain() {
        run(machine.showAlertsAgain(alarms.list, now: clock.now, timeZone: clock.timeZone, soundingItself: isSounding))
    }

    /// Closes every notification, so none is left with buttons nobody answers.
    package func withdrawAll() {
        for id in Array(machine.slots.keys) { run(machine.withdraw(id)) }
    }

    /// A persistent notice with one Dismiss button, for what the user should know.
    private func show(_ notice: NotificationContent, of alarm: UUID? = nil) {
        // Its one button dismisses it; nothing else to follow.
        server.show(notice.request()) { [weak self] id in
            if let id { self?.notices[id] = .some(alarm) }
        }
    }

    // MARK: Events to the machine

    /// Whether Reveille's own sound rings the alarm, so its notification must not ask for one.
    private func isSounding(_ id: UUID) -> Bool { alarms.sounding.contains(id) }

    private func present(_ record: AlarmRecord) -> [PresentationMachine.Effect] {
        machine.present(record, now: clock.now, timeZone: clock.timeZone, soundingItself: isSounding(record.id))
    }

    private func serverChanged(_ profile: NotificationServerProfile?) {
        self.profile = profile
        machine.closeBeforeFresh = profile?.quirks.contains(.closeBeforeFresh) == true
        // The reach watch hears of a new server after this: what is shown again now follows
        // what the server says of itself (its Do Not Disturb, once read, follows as a reach).
        run(machine.serverChanged(present: profile != nil, alarms: profile == nil ? [] : alarms.list, now: clock.now,
                                  timeZone: clock.timeZone, soundingItself: isSounding))
    }

    /// What the server did: to the machine, by the alarm each notification was shown for.
    private func heard(_ event: NotificationEvent) {
        switch event {
        case .ready(let profile):
            serverChanged(profile)
        case .left:
            (shown, notices) = ([:], [:])
            serverChanged(nil)
        case .missing:
            break
        case .action(let shownID, _) where notices[shownID] != nil:
            notices[shownID] = nil
            server.close(shownID)
        case .action(let shownID, let key):
            guard let alarm = shown[shownID] else { return }
            run(machine.pressed(alarm.alarm, generation: alarm.generation, key: key))
        case .closed(let shownID, let reason):
            notices[shownID] = nil
            guard let alarm = shown.removeValue(forKey: shownID) else { return }
            run(machine.closed(alarm.alarm, generation: alarm.generation, shownID: shownID,
                               reason: profile?.closeReason(reason) ?? reason))
        }
    }

    // MARK: Effects

    /// Performs the machine's effects, in order; then, outermost, sends the presses they made.
    private func run(_ effects: [PresentationMachine.Effect]) {
        running += 1
        defer {
            running -= 1
            if running == 0 { sendPresses() }
        }
        for effect in effects {
            switch effect {
            case .show(let id, let generation, let request, let replacing):
                server.show(request, replacing: replacing) { [weak self] shownID in
                    guard let self else { return }
                    if let shownID { self.shown[shownID] = (id, generation) }
                    self.run(self.machine.shown(id, generation: generation, shownID: shownID, current: self.alarms[id],
                                                now: self.clock.now, timeZone: self.clock.timeZone, soundingItself: self.isSounding(id)))
                }
            case .close(let shownID):
                shown[shownID] = nil
                server.close(shownID)
            case .button(let id, let role, let snoozeLength):
                // `afterPress` acts only on a custom button, which changes nothing: the alarm
                // as it is now is the alarm after the press.
                pressed.append(.buttonPressed(id, role, snoozeLength: snoozeLength))
                run(machine.afterPress(id, role: role, current: alarms[id], now: clock.now, timeZone: clock.timeZone, soundingItself: isSounding(id)))
            case .scheduleReshow(let id, let generation, let pause):
                reshowTimers[id] = clock.after(pause) { [weak self] in
                    guard let self else { return }
                    self.reshowTimers[id] = nil
                    self.run(self.machine.reshowDue(id, generation: generation, current: self.alarms[id],
                                                    now: self.clock.now, timeZone: self.clock.timeZone, soundingItself: self.isSounding(id)))
                }
            case .cancelReshow(let id):
                if let timer = reshowTimers.removeValue(forKey: id) { clock.cancel(timer) }
            case .scheduleRefresh(let id, _, let wait):
                refreshTimers[id] = clock.after(wait) { [weak self] in
                    guard let self else { return }
                    self.refreshTimers[id] = nil
                    if let record = self.alarms[id] { self.run(self.present(record)) }
                }
            case .cancelRefresh(let id):
                if let timer = refreshTimers.removeValue(forKey: id) { clock.cancel(timer) }
            case .log(let level, let message):
                logger.log(level: level, "\(message)")
            }
        }
    }

    private func sendPresses() {
        let pressed = self.pressed
        self.pressed = []
        for event in pressed { outbox.send(event) }
    }
}
