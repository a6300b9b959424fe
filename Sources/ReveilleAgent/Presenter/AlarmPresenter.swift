import FoundationEssentials
import Logging
import ReveilleBus
import ReveilleCore

/// Shows each alarm that has something to show as one notification: the countdown and the
/// paused notice updated in place, every alert as a fresh notification (a server may keep a
/// replaced banner collapsed, without its buttons); turns button presses into actions;
/// follows the notification server as it comes, goes and changes.
///
/// The rules are `PresentationMachine`'s; this is its shell: it feeds it the alarms' changes and
/// the server's answers, and performs its effects (`run`, one switch) on the notification
/// server and the main loop's timers.
@GLibActor
final class AlarmPresenter {
    private var machine = PresentationMachine()
    /// The main loop's timers for each alarm's pending re-show and countdown refresh.
    private var reshowTimers: [UUID: UInt32] = [:]
    private var refreshTimers: [UUID: UInt32] = [:]
    private let server: NotificationServer
    /// The alarm with an id, and every alarm, as the scheduler has them now.
    private let alarm: (UUID) -> AlarmRecord?
    private let allAlarms: () -> [AlarmRecord]
    private let logger: Logger
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
            if let record = change.record { run(present(record)) } else { run(machine.withdraw(change.id)) }
        }
    }

    /// Closes every notification, so none is left with buttons nobody answers.
    func withdrawAll() {
        for id in Array(machine.slots.keys) { run(machine.withdraw(id)) }
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

    // MARK: Events to the machine

    private func present(_ record: AlarmRecord) -> [PresentationMachine.Effect] {
        machine.present(record, now: now(), timeZone: timeZone(), soundingItself: isSounding(record.id))
    }

    private func serverChanged(_ profile: NotificationServerProfile?) {
        run(machine.serverChanged(present: profile != nil, alarms: profile == nil ? [] : allAlarms(), now: now(),
                                  timeZone: timeZone(), soundingItself: isSounding))
    }

    private func handlers(for id: UUID, generation: Int) -> NotificationServer.Handlers {
        NotificationServer.Handlers(
            onAction: { [weak self] _, key in
                guard let self else { return }
                self.run(self.machine.pressed(id, generation: generation, key: key))
            },
            onClosed: { [weak self] shownID, reason in
                guard let self else { return }
                self.run(self.machine.closed(id, generation: generation, shownID: shownID, reason: reason))
            })
    }

    // MARK: Effects

    /// Performs the machine's effects, in order.
    private func run(_ effects: [PresentationMachine.Effect]) {
        for effect in effects {
            switch effect {
            case .show(let id, let generation, let request, let replacing):
                server.show(request, replacing: replacing, handlers: handlers(for: id, generation: generation)) { [weak self] shownID in
                    guard let self else { return }
                    self.run(self.machine.shown(id, generation: generation, shownID: shownID, current: self.alarm(id),
                                                now: self.now(), timeZone: self.timeZone(), soundingItself: self.isSounding(id)))
                }
            case .close(let shownID):
                server.close(shownID)
            case .button(let id, let role):
                onButton?(id, role)
                run(machine.afterPress(id, role: role, current: alarm(id), now: now(), timeZone: timeZone(), soundingItself: isSounding(id)))
            case .scheduleReshow(let id, let generation, let pause):
                reshowTimers[id] = MainLoopSources.after(milliseconds: UInt32(pause * 1000)) { [weak self] in
                    guard let self else { return }
                    self.reshowTimers[id] = nil
                    self.run(self.machine.reshowDue(id, generation: generation, current: self.alarm(id),
                                                    now: self.now(), timeZone: self.timeZone(), soundingItself: self.isSounding(id)))
                }
            case .cancelReshow(let id):
                if let timer = reshowTimers.removeValue(forKey: id) { MainLoopSources.remove(timer) }
            case .scheduleRefresh(let id, _, let wait):
                refreshTimers[id] = MainLoopSources.after(milliseconds: UInt32(wait * 1000)) { [weak self] in
                    guard let self else { return }
                    self.refreshTimers[id] = nil
                    if let record = self.alarm(id) { self.run(self.present(record)) }
                }
            case .cancelRefresh(let id):
                if let timer = refreshTimers.removeValue(forKey: id) { MainLoopSources.remove(timer) }
            case .log(let level, let message):
                logger.log(level: level, "\(message)")
            }
        }
    }
}
