import FoundationEssentials
import Glibc
import Logging
import ReveilleBus
import ReveilleCore

/// Wakes the machine from suspend for the next alarm. While any alarm should wake it, the
/// agent holds a logind "delay" inhibitor for sleep; when logind announces the suspend
/// (`PrepareForSleep(true)`), the wake helper sets the RTC wake-up and only then is the
/// inhibitor released. On resume the inhibitor is taken again and the alarms re-evaluated.
@GLibActor
final class SleepCoordinator {
    /// Whether the next alarm can wake the machine, and why not.
    enum Readiness: Equatable {
        case ready
        case unavailable(String)
    }

    private let policy: WakePolicy
    private let logger: Logger
    private let alarms: @GLibActor () -> [AlarmRecord]
    private let onResume: @GLibActor () -> Void
    /// Tells the user once that the machine could not be set to wake (summary, body).
    private let notice: @GLibActor (String, String) -> Void

    private var bus: BusConnection?
    private var inhibitor: Int32?
    private var takingInhibitor = false
    private var sleeping = false
    /// What stands in the way of waking the machine, if anything.
    private(set) var readiness = Readiness.unavailable("not started")
    /// Why the wake-up could not be set at the last suspend; `nil` when it was.
    private(set) var lastFailure: String?
    /// The wake-up last set, to clear it when no alarm needs one any more.
    private(set) var wakeSet: Date?
    private var told = Set<String>()

    static let logind = (name: "org.freedesktop.login1", path: "/org/freedesktop/login1",
                         interface: "org.freedesktop.login1.Manager")
    /// logind waits at most `InhibitDelayMaxSec` (5 s by default) for a delay inhibitor.
    static let helperTimeoutMilliseconds: Int32 = 4000

    init(policy: WakePolicy, logger: Logger, alarms: @escaping @GLibActor () -> [AlarmRecord],
         onResume: @escaping @GLibActor () -> Void, notice: @escaping @GLibActor (String, String) -> Void) {
        self.policy = policy
        self.logger = logger
        self.alarms = alarms
        self.onResume = onResume
        self.notice = notice
    }

    /// Connects to the system bus and, when the helper and logind are there, starts watching.
    func start() {
        guard policy.enabled else { return unavailable(L("waking from suspend is turned off (settings: wakeFromSuspend)")) }
        let bus: BusConnection
        do { bus = try BusConnection.system() } catch {
            return unavailable(L("the system bus cannot be reached (%@)", error.message))
        }
        self.bus = bus
        bus.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                 method: "ListActivatableNames") { [weak self] activatable in
            bus.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                     method: "ListNames") { running in
                guard let self else { return }
                let names = Set([activatable, running].flatMap { result -> [String] in
                    guard case .success(let values) = result, case .array(_, let items)? = values.first else { return [] }
                    return items.compactMap(\.string)
                })
                guard names.contains(WakeHelperInterface.busName) else {
                    return self.unavailable(L("the wake helper is not installed (a system-wide install puts it in place; see the README)"))
                }
                guard names.contains(Self.logind.name) else {
                    return self.unavailable(L("logind is not running, so Reveille cannot tell when the machine suspends"))
                }
                _ = bus.subscribe(sender: Self.logind.name, interface: Self.logind.interface, name: "PrepareForSleep",
                                  path: Self.logind.path) { [weak self] signal in
                    guard case .bool(let going)? = signal.arguments.first else { return }
                    self?.prepareForSleep(going)
                }
                self.readiness = .ready
                self.logger.info("alarms wake the machine from suspend, \(Int(self.policy.lead)) s early")
                self.alarmsChanged()
            }
        }
    }

    /// Holds the inhibitor while an alarm should wake the machine, and only then.
    func alarmsChanged() {
        guard readiness == .ready, !sleeping else { return }
        if policy.holdsInhibitor(for: alarms()) { takeInhibitor() } else { releaseInhibitor() }
    }

    private func prepareForSleep(_ going: Bool) {
        if going {
            sleeping = true
            let now = Date()
            if let wake = policy.wakeInstant(for: alarms(), now: now) {
                setWake(wake)
            } else if wakeSet != nil {
                clearWake()
            } else {
                releaseInhibitor()
            }
        } else {
            sleeping = false
            logger.info("resumed from suspend; re-evaluating the alarms")
            alarmsChanged()
            onResume()
        }
    }

    private func setWake(_ wake: Date) {
        let instant = UInt64(wake.timeIntervalSince1970.rounded(.up))
        callHelper("SetWakeAlarm", [.uint64(instant)]) { [weak self] error in
            guard let self else { return }
            if let error {
                self.couldNotWake(error)
            } else {
                self.wakeSet = wake
                self.lastFailure = nil
                self.logger.info("the machine wakes at \(ISO8601Local.utcString(from: wake)) for the next alarm")
            }
        }
    }

    private func clearWake() {
        callHelper("ClearWakeAlarm", []) { [weak self] error in
            if error == nil { self?.wakeSet = nil }
        }
    }

    /// Calls the helper, then releases the inhibitor whatever the answer: the suspend must go on.
    private func callHelper(_ method: String, _ arguments: [Variant], then: @escaping @GLibActor (BusError?) -> Void) {
        guard let bus else { return releaseInhibitor() }
        bus.call(destination: WakeHelperInterface.busName, path: WakeHelperInterface.objectPath,
                 interface: WakeHelperInterface.interface, method: method, arguments: arguments,
                 timeoutMilliseconds: Self.helperTimeoutMilliseconds) { [weak self] result in
            if case .failure(let error) = result { then(error) } else { then(nil) }
            self?.releaseInhibitor()
        }
    }

    private func couldNotWake(_ error: BusError) {
        let reason = error.name.hasSuffix(".NotAuthorized")
            ? L("you are not allowed to set the wake-up time (polkit: %@)", WakeHelperInterface.polkitAction)
            : L("the wake helper failed: %@", error.message)
        lastFailure = reason
        logger.warning("the machine was not set to wake for the next alarm: \(reason)")
        // Once per reason: every suspend would otherwise say it again. The next suspend tries again.
        guard told.insert(reason).inserted else { return }
        notice(L("Alarms cannot wake this computer"),
               L("Reveille could not set the wake-up time before the computer slept: %@. An alarm due while it sleeps rings when it wakes, or is reported missed.", reason))
    }

    private func unavailable(_ reason: String) {
        readiness = .unavailable(reason)
        logger.notice("alarms will not wake the machine from suspend: \(reason)")
    }

    private func takeInhibitor() {
        guard inhibitor == nil, !takingInhibitor, let bus else { return }
        takingInhibitor = true
        bus.callReturningDescriptors(destination: Self.logind.name, path: Self.logind.path, interface: Self.logind.interface,
                                     method: "Inhibit",
                                     arguments: [.string("sleep"), .string("Reveille"),
                                                 .string("Setting the wake-up time for the next alarm"), .string("delay")]) {
            [weak self] result in
            guard let self else { return }
            self.takingInhibitor = false
            switch result {
            case .success(let reply):
                guard let descriptor = reply.descriptors.first else { return }
                for extra in reply.descriptors.dropFirst() { close(extra) }
                self.inhibitor = descriptor
                // Alarms may have ended, or a suspend begun, while logind answered.
                if self.sleeping || !self.policy.holdsInhibitor(for: self.alarms()) { self.releaseInhibitor() }
            case .failure(let error):
                self.logger.warning("logind refused the sleep inhibitor: \(error.message)")
            }
        }
    }

    private func releaseInhibitor() {
        guard let inhibitor else { return }
        close(inhibitor)
        self.inhibitor = nil
    }

    /// Whether a suspend now would set the machine to wake for the next of `alarms`, and why not.
    func status(next alarms: [AlarmRecord]) -> WakeStatus {
        if case .unavailable(let reason) = readiness {
            return WakeStatus(wakes: false, reason: reason, lead: policy.lead)
        }
        let now = Date()
        guard let wake = policy.wakeInstant(for: alarms, now: now) else {
            return WakeStatus(wakes: false, reason: L("no alarm is due that should wake the machine"), lead: policy.lead)
        }
        let alarm = alarms.filter(policy.wakes).min { ($0.fireDate ?? .distantFuture) < ($1.fireDate ?? .distantFuture) }
        if let lastFailure {
            return WakeStatus(wakes: false, reason: L("at the last suspend, %@", lastFailure), alarmID: alarm?.id, lead: policy.lead)
        }
        return WakeStatus(wakes: true, wakeAt: wake, alarmID: alarm?.id, lead: policy.lead)
    }
}
