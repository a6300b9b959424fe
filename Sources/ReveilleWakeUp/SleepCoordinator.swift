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
import SystemPackage

/// Wakes the machine from suspend for the next alarm, in one of two ways:
///
/// - a kernel alarm timer (`KernelWakeAlarm`), when the session may arm one (`CAP_WAKE_ALARM`):
///   kept armed for the next alarm at every change, it wakes the machine with no helper;
/// - otherwise (the kernel answers `EPERM` or `EINVAL`) the wake helper: while any alarm should
///   wake the machine, the agent holds a logind "delay" inhibitor for sleep; when logind
///   announces the suspend (`PrepareForSleep(true)`), the helper sets the RTC wake-up and only
///   then is the inhibitor released. On resume the inhibitor is taken again and the alarms
///   re-evaluated. The wake-up it set is recorded in the state folder, and cleared when the
///   agent starts again.
@GLibActor
package final class SleepCoordinator: AlarmFollower, AgentEventSource {
    /// Whether the next alarm can wake the machine, and why not.
    package enum Readiness: Equatable {
        case ready
        case unavailable(String)
    }

    private var policy: WakePolicy
    /// Why alarms wake nothing while the setting is off.
    private static var turnedOff: String { L("waking from suspend is turned off (settings: wakeFromSuspend)") }
    /// `start()` connected, or is connecting, to the kernel alarm or the system bus: never twice.
    private var connecting = false
    private let logger: Logger
    /// The instant the wake-ups are reckoned from.
    private let clock: any AgentClock
    /// The alarms, read-only.
    private var table = AlarmTable.empty
    /// When each alarm that should wake the machine is next due (`WakePolicy.wakes`), followed
    /// from the changes: a change costs no look at every alarm (copying 10,000 records out of
    /// the table cost each Schedule about 1 ms, release build).
    private var wakingDue: [UUID: Date] = [:]
    /// Where it tells a resume (as the clock set) and what the user should know.
    package let outbox = AgentOutbox()

    private var bus: BusConnection?
    /// The subscription to logind's PrepareForSleep, removed when the coordinator goes.
    private var sleepSignal: UInt32 = 0
    /// The kernel alarm timer, when the kernel gave one: then the helper is not used.
    private var kernelAlarm: KernelWakeAlarm?
    private var inhibitor: Int32?
    private var takingInhibitor = false
    private var sleeping = false
    /// What stands in the way of waking the machine, if anything.
    package private(set) var readiness = Readiness.unavailable("not started")
    /// Why the wake-up could not be set at the last suspend; `nil` when it was.
    package private(set) var lastFailure: String?
    /// The wake-up this agent set, to clear it when no alarm needs one any more; kept in
    /// `memoryFile`, read at start.
    package private(set) var memory = WakeMemory.unknown
    private let memoryFile: FilePath
    private var told = Set<String>()

    package static let logind = (name: "org.freedesktop.login1", path: "/org/freedesktop/login1",
                         interface: "org.freedesktop.login1.Manager")
    /// logind waits at most `InhibitDelayMaxSec` (5 s by default) for a delay inhibitor.
    package static let helperTimeoutMilliseconds: Int32 = 4000

    package init(policy: WakePolicy, stateDirectory: FilePath, logger: Logger, clock: any AgentClock) {
        self.policy = policy
        self.clock = clock
        memoryFile = stateDirectory.appending("wake-up.json")
        self.logger = logger
    }

    isolated deinit {
        if sleepSignal != 0 { bus?.unsubscribe(sleepSignal) }
    }

    /// Connects to the system bus and, when the helper and logind are there, starts watching.
    package func start() {
        guard policy.enabled else { return unavailable(Self.turnedOff) }
        connecting = true
        do {
            kernelAlarm = try KernelWakeAlarm { [weak self] in self?.alarmsChanged() }
            readiness = .ready
            logger.info("alarms wake the machine from suspend, \(Int(policy.lead)) s early, through a kernel alarm timer (CAP_WAKE_ALARM); the wake helper is not needed")
            alarmsChanged()
            // A wake-up an earlier run set through the helper may still be in the RTC.
            if FileManager.default.fileExists(atPath: memoryFile.string), let bus = try? BusConnection.system() {
                self.bus = bus
                clearLeftWakeUp()
            }
            return
        } catch {
            logger.info("no kernel alarm timer (\(error.description)); waking through the wake helper")
        }
        let bus: BusConnection
        do { bus = try BusConnection.system() } catch {
            return unavailable(L("the system bus cannot be reached (%@)", error.message))
        }
        self.bus = bus
        bus.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                 method: "ListActivatableNames", autoStart: true) { [weak self] activatable in
            bus.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                     method: "ListNames", autoStart: true) { running in
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
                self.sleepSignal = bus.subscribe(sender: Self.logind.name, interface: Self.logind.interface, name: "PrepareForSleep",
                                                 path: Self.logind.path) { [weak self] signal in
                    guard case .bool(let going)? = signal.arguments.first else { return }
                    self?.prepareForSleep(going)
                }
                // Turned off while the names were asked for: connected, and off.
                guard self.policy.enabled else { return self.unavailable(Self.turnedOff) }
                self.readiness = .ready
                self.logger.info("alarms wake the machine from suspend, \(Int(self.policy.lead)) s early")
                self.clearLeftWakeUp()
                self.alarmsChanged()
            }
        }
    }

    package func follow(_ changes: [AlarmChange], in alarms: AlarmTable) {
        table = alarms
        for change in changes {
            if let record = change.record, policy.wakes(record), let due = record.fireDate {
                wakingDue[change.id] = due
            } else {
                wakingDue.removeValue(forKey: change.id)
            }
        }
        alarmsChanged()
    }

    /// The `wakeFromSuspend` or `wakeLead` setting changed: the alarms that wake the machine
    /// are counted again, and the wake-up is started, moved or let go.
    package func hear(_ notice: AgentNotice) {
        guard case .settingsChanged(let settings) = notice else { return }
        let policy = WakePolicy(enabled: settings.wakeFromSuspend, lead: settings.wakeLead)
        guard policy.enabled != self.policy.enabled || policy.lead != self.policy.lead else { return }
        let started = self.policy.enabled
        self.policy = policy
        wakingDue = [:]
        for record in alarms where policy.wakes(record) { wakingDue[record.id] = record.fireDate }
        if policy.enabled && !started {
            // Connected before it was turned off: ready again; never connected (off at start): start now.
            guard connecting else { return start() }
            // Still asking the system bus: its answer finds the setting on.
            guard kernelAlarm != nil || sleepSignal != 0 else { return }
            readiness = .ready
        }
        if !policy.enabled {
            alarmsChanged()
            return unavailable(Self.turnedOff)
        }
        alarmsChanged()
    }

    /// Every alarm, in no order: the table's own records, never copied (this is read on
    /// every change, with up to 10,000 alarms).
    private var alarms: some Sequence<AlarmRecord> { table.records }

    /// Holds the inhibitor while an alarm should wake the machine, and only then.
    private func alarmsChanged() {
        guard readiness == .ready, !sleeping else { return }
        if let kernelAlarm { return kernelAlarm.arm(at: policy.alarmTimerInstant(soonestDue: wakingDue.values.min(), now: clock.now)) }
        if !wakingDue.isEmpty { takeInhibitor() } else { releaseInhibitor() }
    }

    private func prepareForSleep(_ going: Bool) {
        if going {
            sleeping = true
            switch policy.plan(for: alarms, now: clock.now) {
            case .wake(let wake):
                setWake(wake)
            case .beyondReach(let wake):
                logger.info("no wake-up set: the next alarm's, \(ISO8601Local.utcString(from: wake)), is more than \(WakeHelperInterface.maximumLead) s ahead")
                clearOrRelease()
            case .none:
                clearOrRelease()
            }
        } else {
            sleeping = false
            logger.info("resumed from suspend; re-evaluating the alarms")
            alarmsChanged()
            outbox.send(.clockSet)
        }
    }

    private func setWake(_ wake: Date) {
        let instant = WakePolicy.helperInstant(wake)
        // Recorded first: an agent that stops before the answer still clears it at its next start.
        remember(.set(instant))
        callHelper(.setWakeAlarm, [.uint64(instant)], releasing: true) { [weak self] result in
            guard let self else { return }
            if case .failure(let error) = result {
                self.couldNotWake(error)
            } else {
                self.lastFailure = nil
                self.logger.info("the machine wakes at \(ISO8601Local.utcString(from: wake)) for the next alarm")
            }
        }
    }

    /// Before a suspend with no wake-up to set: clears one this agent set, then lets the suspend go on.
    private func clearOrRelease() {
        if memory.mayBeArmed { clearWake(releasing: true) } else { releaseInhibitor() }
    }

    /// Clears the wake-up this agent set (or may have), if the RTC still holds it (`WakeMemory.clears`);
    /// `releasing`: then releases the inhibitor, as a suspend waits for it.
    private func clearWake(releasing: Bool) {
        // A wake-up set while this runs (a suspend during the start's clearing) is that call's
        // to record: this one then changes nothing.
        let looking = memory
        callHelper(.getWakeAlarm, [], releasing: false) { [weak self] result in
            guard let self else { return }
            let armed: UInt64? = if case .success(let values) = result, case .uint64(let instant)? = values.first { instant } else { nil }
            guard self.memory == looking, looking.clears(rtcHolds: armed) else {
                if let armed, armed != 0, self.memory == looking { self.logger.info("the wake-up set now (\(armed)) is not this agent's; left as it is") }
                if self.memory == looking { self.remember(.none) }
                if releasing { self.releaseInhibitor() }
                return
            }
            self.callHelper(.clearWakeAlarm, [], releasing: releasing) { [weak self] result in
                guard let self else { return }
                if case .failure(let error) = result {
                    self.logger.warning("the wake-up set before was not cleared: \(error.message)")
                } else if self.memory == looking {
                    self.remember(.none)
                }
            }
        }
    }

    /// At start, clears a wake-up an earlier run set (or may have: its record is missing or
    /// damaged) that the RTC still holds: the alarm it was for may be gone, and the next suspend
    /// sets what is needed now.
    private func clearLeftWakeUp() {
        memory = WakeMemory(record: (try? StoredFile.read(memoryFile, maximumBytes: 64 << 10)) ?? nil)
        guard memory.mayBeArmed else { return }
        logger.info("looking for a wake-up left from before (\(memory))")
        clearWake(releasing: false)
    }

    /// Records what is known of the wake-up, in memory and in the state folder.
    private func remember(_ memory: WakeMemory) {
        self.memory = memory
        guard let record = memory.record else { return }
        do {
            try AtomicFile.makePrivateDirectory(memoryFile.removingLastComponent())
            try AtomicFile.write(record, to: memoryFile)
        } catch {
            logger.warning("cannot record the wake-up in \(memoryFile): \(error); a restarted agent may not clear it")
        }
    }

    /// Calls the helper; `releasing`: then releases the inhibitor whatever the answer, as the
    /// suspend must go on.
    private func callHelper(_ method: WakeHelperMethod, _ arguments: [Variant], releasing: Bool,
                            then: @escaping @GLibActor (Result<[Variant], BusError>) -> Void) {
        guard let bus else { return releaseInhibitor() }
        bus.call(destination: WakeHelperInterface.busName, path: WakeHelperInterface.objectPath,
                 interface: WakeHelperInterface.interface, method: method.name, arguments: arguments,
                 timeoutMilliseconds: Self.helperTimeoutMilliseconds, autoStart: true) { [weak self] result in
            then(result)
            if releasing { self?.releaseInhibitor() }
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
        outbox.send(.notice(summary: L("Alarms cannot wake this computer"),
                                 body: L("Reveille could not set the wake-up time before the computer slept: %@. An alarm due while it sleeps rings when it wakes, or is reported missed.", reason)))
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
                reply.descriptors.dropFirst().forEach(FileDescriptor.closeHandedOver)
                self.inhibitor = descriptor
                // Alarms may have ended, or a suspend begun, while logind answered.
                if self.sleeping || self.wakingDue.isEmpty { self.releaseInhibitor() }
            case .failure(let error):
                self.logger.warning("logind refused the sleep inhibitor: \(error.message)")
            }
        }
    }

    private func releaseInhibitor() {
        guard let inhibitor else { return }
        FileDescriptor.closeHandedOver(inhibitor)
        self.inhibitor = nil
    }

    /// Whether a suspend now would set the machine to wake for the next alarm, and why not.
    package func status() -> WakeStatus {
        if case .unavailable(let reason) = readiness {
            return WakeStatus(wakes: false, reason: reason, lead: policy.lead, blocked: true)
        }
        if let kernelAlarm {
            guard let wake = kernelAlarm.armed else {
                return WakeStatus(wakes: false, reason: L("no alarm is due that should wake the machine"), lead: policy.lead,
                                  mechanism: .alarmTimer)
            }
            return WakeStatus(wakes: true, wakeAt: wake, alarmID: nextWaking(alarms)?.id, lead: policy.lead, mechanism: .alarmTimer)
        }
        let wake: Date
        switch policy.plan(for: alarms, now: clock.now) {
        case .none:
            return WakeStatus(wakes: false, reason: L("no alarm is due that should wake the machine"), lead: policy.lead)
        case .beyondReach:
            let days = String(WakeHelperInterface.maximumLead / 86_400)
            return WakeStatus(wakes: false, reason: L("the next alarm is more than %@ days away, beyond the wake-up's reach; a suspend within %@ days of it sets the wake-up", days, days),
                              alarmID: nextWaking(alarms)?.id, lead: policy.lead)
        case .wake(let instant):
            wake = instant
        }
        let alarm = nextWaking(alarms)
        if let lastFailure {
            return WakeStatus(wakes: false, reason: L("at the last suspend, %@", lastFailure), alarmID: alarm?.id, lead: policy.lead,
                              blocked: true, mechanism: .wakeHelper)
        }
        return WakeStatus(wakes: true, wakeAt: wake, alarmID: alarm?.id, lead: policy.lead, mechanism: .wakeHelper)
    }

    /// The soonest of `alarms` that should wake the machine.
    private func nextWaking(_ alarms: some Sequence<AlarmRecord>) -> AlarmRecord? {
        alarms.lazy.filter(policy.wakes).min { ($0.fireDate ?? .distantFuture) < ($1.fireDate ?? .distantFuture) }
    }
}
