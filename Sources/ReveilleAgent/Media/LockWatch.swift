import FoundationEssentials
import Logging
import ReveilleBus
import ReveilleCore

/// Follows whether the session is locked (`SessionLock`'s rules) through the lockers on the
/// session bus, and when the person unlocks it, has whatever rings shown afresh: a locked
/// GNOME Shell or KDE shows no notification and no window above the locker, so the alert the
/// person could not see is brought in front of them the moment they can.
///
/// It also tells how a ringing alarm can be answered here (`answering`), for `reveille status`.
@GLibActor
final class LockWatch: AlarmFollower {
    private let bus: BusConnection
    private weak var runtime: AgentRuntime?
    private let logger: Logger
    private var lock = SessionLock()
    private var watches: [UInt32] = []
    private var subscriptions: [UInt32] = []
    private var reach: NotificationReach?
    private var ringing: Set<UUID> = []

    init(bus: BusConnection, runtime: AgentRuntime, logger: Logger) {
        self.bus = bus
        self.runtime = runtime
        self.logger = logger
        for name in SessionLock.lockerNames {
            subscriptions.append(bus.subscribe(sender: name, interface: name, name: "ActiveChanged", path: nil) { [weak self] signal in
                guard let active = signal.arguments.first?.int64 else { return }
                self?.heard(self?.lock.locker(name, from: signal.sender, says: active != 0), from: name)
            })
            watches.append(bus.watchName(name) { [weak self] owner in self?.ownerChanged(name, owner) })
        }
    }

    isolated deinit {
        for id in subscriptions { bus.unsubscribe(id) }
        for id in watches { bus.unwatchName(id) }
    }

    func follow(_ changes: [AlarmChange], in alarms: AlarmTable) {
        for change in changes {
            if change.record?.state == .alerting { ringing.insert(change.id) } else { ringing.remove(change.id) }
        }
    }

    func hear(_ notice: AgentNotice) {
        if case .notificationReach(let reach) = notice { self.reach = reach }
    }

    /// How a ringing alarm can be answered in this session now. `alertWindow`: whether the alert
    /// window would open.
    func answering(alertWindow: Bool) -> SessionAnswering {
        SessionAnswering(notificationButtons: reach == .answerable, notificationShown: reach.map { $0 != .unseen } ?? false,
                         alertWindow: alertWindow, mediaPlayer: true, lockers: lock.lockerDescriptions,
                         locked: lock.isLocked, silencingLocker: lock.silencingLocker)
    }

    // MARK: The lockers

    private func ownerChanged(_ name: String, _ owner: String?) {
        heard(lock.owner(of: name, is: owner), from: name)
        guard let owner else { return }
        let path = name == "org.gnome.ScreenSaver" ? "/org/gnome/ScreenSaver" : "/org/freedesktop/ScreenSaver"
        // The signals tell only changes: ask what it is now.
        bus.call(destination: owner, path: path, interface: name, method: "GetActive", timeoutMilliseconds: 5000, autoStart: false) {
            [weak self] result in
            guard let self, case .success(let values) = result, let active = values.first?.int64 else { return }
            self.heard(self.lock.locker(name, from: owner, says: active != 0), from: name)
        }
        bus.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                 method: "GetConnectionUnixProcessID", arguments: [.string(owner)], timeoutMilliseconds: 5000, autoStart: false) {
            [weak self] result in
            guard let self, case .success(let values) = result, let pid = values.first?.int64,
                  let data = FileManager.default.contents(atPath: "/proc/\(pid)/comm") else { return }
            let process = String(decoding: data.prefix(64), as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
            self.lock.locker(name, owner: owner, isProcess: process)
            if SessionLock.switchesTerminal(process) {
                self.logger.warning("the screen locker is \(process), which switches to another virtual terminal when it locks: this session then loses its sound device, and an alarm that rings while locked is silent")
            }
        }
    }

    private func heard(_ change: SessionLock.Change?, from name: String) {
        switch change {
        case .locked?:
            logger.info("the session is locked (\(name))")
        case .unlocked?:
            logger.info("the session is unlocked (\(name))\(ringing.isEmpty ? "" : ": the ringing alarms are shown afresh")")
            if !ringing.isEmpty { runtime?.receive(.sessionUnlocked) }
        case .none?, nil:
            break
        }
    }
}
