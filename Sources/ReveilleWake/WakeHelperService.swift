import FoundationEssentials
import Glibc
import Logging
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleRules
import SystemPackage

/// The wake helper on the system bus: sets or clears the RTC wake alarm for a caller that
/// polkit authorizes, checks every argument, logs each change, and exits when idle (no call
/// for `idleSeconds` and no check waiting for polkit). D-Bus activation starts it again on the
/// next call.
@GLibActor
package final class WakeHelperService {
    private let rtc: RTCWakeAlarm
    private let idleSeconds: UInt32
    private let logger: Logger
    private var bus: BusConnection?
    private var idleTimer: UInt32?
    /// The polkit checks in flight, per user.
    private var pending = PendingChecks()
    private var runner: DaemonRunner?

    init(rtc: RTCWakeAlarm, idleSeconds: UInt32, logger: Logger) {
        self.rtc = rtc
        self.idleSeconds = idleSeconds
        self.logger = logger
    }

    /// Serves until idle for `idleSeconds` (or the bus goes away), then ends the process.
    package nonisolated static func runUntilIdle(rtc: RTCWakeAlarm, idleSeconds: UInt32, logger: Logger) -> Never {
        DaemonRunner.runThenExit {
            await WakeHelperService(rtc: rtc, idleSeconds: idleSeconds, logger: logger).run()
        }
    }

    private func run() async -> Int32 {
        // One part: the service on the system bus; nothing to undo when it stops.
        let runner = DaemonRunner(parts: [.init("the service on the system bus", start: { [unowned self] in try self.serve() })])
        self.runner = runner
        runner.start()
        if runner.outcome == nil { armIdleExit() }
        let outcome = await runner.run()
        if outcome.status == 0 { logger.info("exiting: \(outcome.reason)") } else { logger.critical("\(outcome.reason)") }
        return outcome.status
    }

    /// Registers the object and asks for the bus name.
    private func serve() throws {
        let bus = try BusConnection.system()
        self.bus = bus
        try bus.register(path: WakeHelperInterface.objectPath, introspectionXML: WakeHelperInterface.introspectionXML) {
            [unowned self] call in self.handle(call)
        }
        bus.ownName(WakeHelperInterface.busName, replace: false) { [weak self] event in
            switch event {
            case .acquired: self?.logger.info("serving \(WakeHelperInterface.busName) for \(self?.rtc.folder.string ?? "")")
            case .lost: self?.stop(1, "another process owns \(WakeHelperInterface.busName)")
            case .connectionClosed: self?.stop(1, "lost the system bus")
            }
        }
    }

    private func stop(_ status: Int32, _ reason: String) {
        runner?.stop(status: status, reason: reason)
    }

    /// Starts the idle countdown again, or stops it while a check waits for polkit: exiting
    /// then would leave its caller without an answer. The last answer starts it again.
    private func armIdleExit() {
        if let idleTimer { MainLoopSources.remove(idleTimer) }
        idleTimer = nil
        guard pending.isEmpty else { return }
        idleTimer = MainLoopSources.after(milliseconds: UInt32(clamping: UInt64(idleSeconds) * 1000)) { [weak self] in
            guard let self else { return }
            self.idleTimer = nil
            self.stop(0, "idle for \(self.idleSeconds) s")
        }
    }

    private func handle(_ call: MethodCall) {
        armIdleExit()
        switch WakeHelperMethod(named: call.method) {
        case .getWakeAlarm:
            do { call.reply([.uint64(try rtc.current())]) } catch { fail(call, "Failed", "cannot read \(rtc.folder)/wakealarm: \(error)") }
        case .setWakeAlarm:
            guard case .uint64(let asked)? = call.arguments.first else {
                return fail(call, "InvalidArgument", "\(call.method) takes one argument: the instant, seconds since 1970 (t)")
            }
            switch WakeRequest.validate(asked, now: Int64(time(nil))) {
            case .failure(let refusal):
                fail(call, "InvalidArgument", refusal.reason)
            case .success(let instant):
                // Checked again when written: polkit may answer after the instant has passed.
                authorized(call) { [rtc] in try rtc.set(instant, now: Int64(time(nil))) } done: { "set the wake-up to \(instant)" }
            }
        case .clearWakeAlarm:
            authorized(call) { [rtc] in try rtc.clear() } done: { "cleared the wake-up" }
        case nil:
            fail(call, "InvalidArgument", "no method \(call.method)")
        }
    }

    /// Runs `change` if polkit authorizes the caller for `WakeHelperInterface.polkitAction`;
    /// the caller's user may have only `PendingChecks.perUser` checks waiting at a time.
    private func authorized(_ call: MethodCall, change: @escaping @GLibActor () throws -> Void,
                            done: @escaping @GLibActor () -> String) {
        guard let bus else { return }
        let user: UInt32
        do throws(BusError) {
            let reply = try bus.callSync(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                         interface: "org.freedesktop.DBus", method: "GetConnectionUnixUser",
                                         arguments: [.string(call.sender)], autoStart: false)
            guard case .uint32(let uid)? = reply.first else { throw BusError(name: "", message: "no user id in the bus's answer") }
            user = uid
        } catch {
            return fail(call, "NotAuthorized", "cannot tell which user \(call.sender) is (\(error.message)); the call is refused")
        }
        if let refusal = pending.admit(user: user) {
            logger.notice("\(call.sender) (user \(user)) was refused \(call.method): \(refusal.reason)")
            return fail(call, "TooManyPendingChecks", refusal.reason)
        }
        armIdleExit()
        let subject = Variant.tuple([.string("system-bus-name"), .vardict(["name": .string(call.sender)])])
        // Flag 1: the user may be asked (a password for an inactive or remote session).
        bus.call(destination: "org.freedesktop.PolicyKit1", path: "/org/freedesktop/PolicyKit1/Authority",
                 interface: "org.freedesktop.PolicyKit1.Authority", method: "CheckAuthorization",
                 arguments: [subject, .string(WakeHelperInterface.polkitAction), .array(elementType: "{ss}", []),
                             .uint32(1), .string("")],
                 timeoutMilliseconds: 120_000, autoStart: true) { [weak self] result in
            guard let self else { return }
            self.pending.finish(user: user)
            self.armIdleExit()
            guard case .success(let values) = result, case .tuple(let answer)? = values.first, answer.first == .bool(true) else {
                let why = if case .failure(let error) = result { "polkit did not answer (\(error.message))" } else { "polkit refused" }
                self.logger.notice("\(call.sender) was refused \(call.method): \(why)")
                return self.fail(call, "NotAuthorized", "\(why): \(WakeHelperInterface.polkitAction) is needed to set the wake-up time")
            }
            do {
                try change()
                self.logger.notice("\(call.sender): \(done())")
                call.reply([])
            } catch let refusal as WakeRequest.Refusal {
                self.logger.notice("\(call.sender) was refused \(call.method) once polkit answered: \(refusal.reason)")
                self.fail(call, "InvalidArgument", refusal.reason)
            } catch {
                self.fail(call, "Failed", "cannot write \(self.rtc.folder)/wakealarm: \(error)")
            }
        }
    }

    private func fail(_ call: MethodCall, _ name: String, _ message: String) {
        call.fail(name: WakeHelperInterface.errorPrefix + name, message: message)
    }
}
