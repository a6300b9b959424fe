import CGLib
import FoundationEssentials
import Glibc
import Logging
import ReveilleAgentRuntime
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleModel
import ReveilleRules
import ReveilleSystem
import ReveilleWords

/// Opens `reveille-alert`, one process per ringing alarm, as `AlertWindowPolicy` decides, and
/// ends it (SIGTERM, then reaped) when the alarm stops ringing or a notification can answer
/// it again. The window is its own process: whatever happens to it, the alarm rings on; a
/// window that fails is logged, tried again if it could not connect, and otherwise not opened
/// again while that alarm rings.
@GLibActor
package final class AlertWindows: AlarmFollower {
    private var policy: AlertWindowPolicy
    private let display: SessionDisplay
    private let program: String
    private let logger: Logger
    /// The time and zone the window's text is written for.
    private let clock: any AgentClock
    /// The window process of each alarm that has one.
    private var processes: [UUID: pid_t] = [:]
    private var alarms = AlarmTable.empty

    /// `program` defaults to `reveille-alert` beside the running agent.
    package init(setting: AlertWindowSetting, environment: [String: String], logger: Logger,
         clock: any AgentClock, program: String = AlertWindows.besideAgent) {
        // Found whatever the setting: it may be changed while the agent runs.
        display = SessionDisplay.of(environment)
        policy = AlertWindowPolicy(setting: setting, hasDisplay: !display.isEmpty)
        self.program = program
        self.logger = logger
        self.clock = clock
    }

    package static var besideAgent: String {
        URL(fileURLWithPath: Installation.executable).deletingLastPathComponent().appendingPathComponent("reveille-alert").path
    }

    package func follow(_ changes: [AlarmChange], in alarms: AlarmTable) {
        self.alarms = alarms
        var ringing = policy.ringing
        for change in changes {
            if change.record?.state == .alerting { ringing.insert(change.id) } else { ringing.remove(change.id) }
        }
        guard ringing != policy.ringing else { return }
        perform(policy.alarmsRinging(ringing))
    }

    package func hear(_ notice: AgentNotice) {
        switch notice {
        case .notificationReach(let reach): perform(policy.reachChanged(reach))
        case .sessionUnlocked: openAfresh()
        case .settingsChanged(let settings): perform(policy.settingChanged(settings.alertWindow))
        default: break
        }
    }

    /// Whether a window opens for a ringing alarm now (for `reveille status`).
    package var opensWindows: Bool { policy.opensWindows }

    /// Each open window again, as a new one: a window that was open under the locker may be
    /// behind others now; a new one is mapped in front, where the person who unlocked looks.
    private func openAfresh() {
        for id in processes.keys.sorted(by: { $0.uuidString < $1.uuidString }) {
            close(id)
            open(id)
        }
    }

    /// Ends every window (the agent is stopping).
    package func closeAll() {
        for id in processes.keys.sorted(by: { $0.uuidString < $1.uuidString }) { close(id) }
    }

    private func perform(_ effects: [AlertWindowPolicy.Effect]) {
        for effect in effects {
            switch effect {
            case .open(let id): open(id)
            case .close(let id): close(id)
            case .noDisplay:
                logger.warning("no alert window opens for ringing alarms: this session owns no display (\(display.refused.isEmpty ? "none is set" : display.refused.joined(separator: "; ")))")
            case .retry(let id, let seconds, let number):
                logger.warning("the alert window of \(id) could not connect (see its lines above); it opens again in \(seconds) s")
                _ = MainLoopSources.after(milliseconds: seconds * 1_000) { [weak self] in
                    guard let self else { return }
                    self.perform(self.policy.retryDue(id, try: number))
                }
            }
        }
    }

    private func open(_ id: UUID) {
        guard let record = alarms[id], let content = NotificationContent(record, now: clock.now, timeZone: clock.timeZone) else { return }
        let secondary = content.buttons.first { $0.role == .secondary }
        let request = AlertWindowArguments(
            alarmID: id, title: content.summary, detail: content.body.split(separator: "\n").first.map(String.init) ?? "",
            stopLabel: content.buttons.first { $0.role == .stop }?.label ?? L("Stop"),
            // Only a second button the window can press through the agent's interface (Snooze,
            // Repeat); a custom one stays on the notification.
            secondaryLabel: AlarmEngine.action(for: .secondary, of: record) == .countdown ? secondary?.label : nil)
        do {
            let pid = try Self.spawn([program] + request.arguments, display: display.environment)
            processes[id] = pid
            logger.info("opened the alert window of \(id) (pid \(pid))")
            Self.whenExits(pid) { [weak self] status in self?.exited(id, pid: pid, status: status) }
        } catch {
            logger.error("the alert window of \(id) could not open: \(error); the alarm rings on")
            perform(policy.windowEnded(id))
        }
    }

    private func close(_ id: UUID) {
        guard let pid = processes.removeValue(forKey: id) else { return }
        // ESRCH: it ended by itself, and its exit is on its way.
        try? CurrentProcess.terminate(pid)
    }

    private func exited(_ id: UUID, pid: pid_t, status: Int32) {
        // Asked to close (no longer in `processes`): nothing to say.
        guard processes[id] == pid else { return }
        processes[id] = nil
        // A wait status: the exit code in the second byte, or the signal in the low seven bits.
        let exited = status & 0x7f == 0
        let effects = policy.windowEnded(id, couldNotConnect: exited && AlertWindowExit.couldNotConnect(status >> 8))
        let retried = effects.contains { if case .retry = $0 { true } else { false } }
        if !retried, !(exited && status >> 8 == 0) {
            let ending = exited ? "exit status \(status >> 8)" : "signal \(status & 0x7f)"
            logger.error("the alert window of \(id) ended with \(ending) (see its lines above); it is not opened again while this alarm rings")
        }
        perform(effects)
    }

    // MARK: Processes

    package struct SpawnError: Error, CustomStringConvertible {
        package var description: String
    }

    /// Starts the window without a shell: the agent's environment with only the session's own
    /// displays, its output to the agent's (its log).
    private static func spawn(_ arguments: [String], display: [String: String]) throws(SpawnError) -> pid_t {
        var environment = ProcessInfo.processInfo.environment
        for key in ["DISPLAY", "WAYLAND_DISPLAY"] { environment[key] = display[key] }
        do {
            return try ProcessSpawn.start(arguments, environment: environment, output: .inherited)
        } catch {
            throw SpawnError(description: "\(arguments.first ?? ""): \(error)")
        }
    }

    /// Calls `handler` with the exit status once `pid` ends, which GLib reaps (`g_child_watch_add`).
    private static func whenExits(_ pid: pid_t, handler: @escaping @GLibActor (Int32) -> Void) {
        let box = CallbackBox(handler)
        g_child_watch_add_full(G_PRIORITY_DEFAULT, pid, { _, status, data in
            let handler = CallbackBox<@GLibActor (Int32) -> Void>.from(data)
            GLibActor.assumeIsolated { handler(status) }
        }, box.retainedPointer, releaseCallbackBox)
    }
}
