import Dispatch
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

/// Follows whether the session is locked (`SessionLock`'s rules) through the lockers on the
/// session bus, and when the person unlocks it, has whatever rings shown afresh: a locked
/// GNOME Shell or KDE shows no notification and no window above the locker, so the alert the
/// person could not see is brought in front of them the moment they can.
///
/// Besides the lockers on the session bus, logind's `LockedHint` of the user's display session
/// (on the system bus), where a locker sets it (gnome-shell, kscreenlocker; swaylock does not).
///
/// It also tells how a ringing alarm can be answered here (`answering`), for `reveille status`.
@GLibActor
package final class LockWatch: AlarmFollower, AgentEventSource {
    private let bus: BusConnection
    /// What this part has to say, read by the runtime alone.
    package let outbox = AgentOutbox()
    private let logger: Logger
    private var lock = SessionLock()
    private var watches: [UInt32] = []
    private var subscriptions: [UInt32] = []
    /// The system bus, for logind, when it can be reached.
    private var system: BusConnection?
    private var systemWatches: [UInt32] = []
    private var systemSubscriptions: [UInt32] = []
    /// The user's display session whose `LockedHint` is followed.
    private var session: String?
    private var reach: NotificationReach?
    private var ringing: Set<UUID> = []

    package init(bus: BusConnection, logger: Logger) {
        self.bus = bus
        self.logger = logger
        for name in SessionLock.lockerNames {
            subscriptions.append(bus.subscribe(sender: name, interface: name, name: "ActiveChanged", path: nil) { [weak self] signal in
                guard let active = signal.arguments.first?.int64 else { return }
                self?.heard(self?.lock.locker(name, from: signal.sender, says: active != 0), from: name)
            })
            watches.append(bus.watchName(name) { [weak self] owner in self?.ownerChanged(name, owner) })
        }
        followLogind()
    }

    isolated deinit {
        for id in subscriptions { bus.unsubscribe(id) }
        for id in watches { bus.unwatchName(id) }
        for id in systemSubscriptions { system?.unsubscribe(id) }
        for id in systemWatches { system?.unwatchName(id) }
    }

    package func follow(_ changes: [AlarmChange], in alarms: AlarmTable) {
        for change in changes {
            if change.record?.state == .alerting { ringing.insert(change.id) } else { ringing.remove(change.id) }
        }
    }

    package func hear(_ notice: AgentNotice) {
        if case .notificationReach(let reach) = notice { self.reach = reach }
    }

    /// How a ringing alarm can be answered in this session now. `alertWindow`: whether the alert
    /// window would open.
    /// `playerNameHeldBy`: another program that holds the media player's name (`MediaPlayer.nameHeldBy`).
    package func answering(alertWindow: Bool, playerNameHeldBy: String? = nil) -> SessionAnswering {
        var answering = SessionAnswering(notificationButtons: reach == .answerable, notificationShown: reach.map { $0 != .unseen } ?? false,
                                         alertWindow: alertWindow, mediaPlayer: playerNameHeldBy == nil, lockers: lock.lockerDescriptions,
                                         locked: lock.isLocked, silencingLocker: lock.silencingLocker)
        answering.mediaPlayerNameHeldBy = playerNameHeldBy
        return answering
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
                  let process = ProcessName.of(Int32(truncatingIfNeeded: pid)) else { return }
            self.lock.locker(name, owner: owner, isProcess: process)
            if SessionLock.switchesTerminal(process) {
                self.logger.warning("the screen locker is \(process), which switches to another virtual terminal when it locks: this session then loses its sound device, and an alarm that rings while locked is silent")
            }
        }
    }

    // MARK: logind

    private func followLogind() {
        guard let system = try? BusConnection.system() else { return logger.debug("no system bus: logind's LockedHint is not followed") }
        self.system = system
        let logind = SessionLock.logind
        systemSubscriptions.append(system.subscribe(sender: logind, interface: "org.freedesktop.DBus.Properties", name: "PropertiesChanged",
                                                    path: nil) { [weak self] signal in
            guard let self, signal.path == self.session, signal.arguments.first?.string == "org.freedesktop.login1.Session",
                  let hint = (signal.arguments.count > 1 ? signal.arguments[1].dictionary?["LockedHint"] : nil)?.int64 else { return }
            self.heard(self.lock.locker(logind, from: signal.sender, says: hint != 0), from: logind)
        })
        systemWatches.append(system.watchName(logind) { [weak self] owner in self?.logindChanged(owner) })
    }

    /// logind came or went: find the user's display session (the one the desktop runs in, since
    /// the agent, a user service, is in no session itself) and read its hint.
    private func logindChanged(_ owner: String?) {
        let logind = SessionLock.logind
        heard(lock.owner(of: logind, is: owner), from: logind)
        session = nil
        guard let owner, let system else { return }
        // ListUsers, `a(uso)`, rather than GetUser: python3-dbusmock's GetUser cannot build its path from a number.
        system.call(destination: owner, path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager", method: "ListUsers",
                    timeoutMilliseconds: 5000, autoStart: false) { [weak self] result in
            guard let self, case .success(let values) = result,
                  let user = values.first?.array?.lazy.compactMap({ entry -> String? in
                      guard case .tuple(let fields) = entry, fields.count == 3, fields[0].int64 == Int64(CurrentProcess.userID) else { return nil }
                      return fields[2].string
                  }).first else { return }
            self.property(owner, user, "org.freedesktop.login1.User", "Display") { display in
                // `(so)`: the session's id and object path; "/" when the user has no display session.
                guard case .tuple(let parts) = display, parts.count == 2, let path = parts[1].string, path != "/" else { return }
                self.session = path
                self.property(owner, path, "org.freedesktop.login1.Session", "LockedHint") { hint in
                    guard let hint = hint.int64 else { return }
                    self.heard(self.lock.locker(logind, from: owner, says: hint != 0), from: logind)
                }
            }
        }
    }

    private func property(_ owner: String, _ path: String, _ interface: String, _ name: String, _ answer: @escaping @GLibActor (Variant) -> Void) {
        system?.call(destination: owner, path: path, interface: "org.freedesktop.DBus.Properties", method: "Get",
                     arguments: [.string(interface), .string(name)], timeoutMilliseconds: 5000, autoStart: false) { result in
            guard case .success(let values) = result, case .variant(let value)? = values.first else { return }
            answer(value)
        }
    }

    /// When an unlock last showed the ringing alarms afresh (monotonic nanoseconds).
    private var lastShownAfresh: UInt64?
    private var changeLog = LockChangeLog()
    private var burstClosing = false

    /// Whether this lock or unlock is logged (`LockChangeLog`); a quieted burst is said once it ends.
    private func logsChange(from name: String) -> Bool {
        let (log, ended) = changeLog.note(at: Double(DispatchTime.now().uptimeNanoseconds) / 1e9)
        if ended > 0 { logger.notice("\(ended) more lock and unlock changes were not logged (\(name) toggled faster than \(LockChangeLog.perBurst) in \(Int(LockChangeLog.burst)) s)") }
        if !log, !burstClosing {
            burstClosing = true
            MainLoopSources.after(milliseconds: UInt32(LockChangeLog.burst * 1000)) { [weak self] in
                guard let self else { return }
                self.burstClosing = false
                let quieted = self.changeLog.close()
                if quieted > 0 { self.logger.notice("\(quieted) more lock and unlock changes were not logged (\(name) toggled faster than \(LockChangeLog.perBurst) in \(Int(LockChangeLog.burst)) s)") }
            }
        }
        return log
    }

    private func heard(_ change: SessionLock.Change?, from name: String) {
        switch change {
        case .locked?:
            if logsChange(from: name) { logger.info("the session is locked (\(name))") }
        case .unlocked?:
            // At most one showing afresh every 5 s: whoever owns a screen saver's name can toggle
            // it, and each showing sends every alert again and opens its windows anew.
            let now = DispatchTime.now().uptimeNanoseconds
            let again = !ringing.isEmpty && lastShownAfresh.map { now &- $0 >= 5_000_000_000 } ?? true
            if logsChange(from: name) {
                logger.info("the session is unlocked (\(name))\(ringing.isEmpty ? "" : again ? ": the ringing alarms are shown afresh" : ": shown afresh less than 5 s ago")")
            }
            if again {
                lastShownAfresh = now
                outbox.send(.sessionUnlocked)
            }
        case .none?, nil:
            break
        }
    }
}
