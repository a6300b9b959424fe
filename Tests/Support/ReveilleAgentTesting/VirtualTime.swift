import Foundation
import ReveilleAgentRuntime
import ReveilleLoop
import ReveilleRules
import ReveilleSound
import ReveilleTimeZone
import SystemPackage

/// A new folder of the test's own, private to the user, for a store.
package func privateFolder(_ prefix: String) throws -> FilePath {
    let folder = FilePath(FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID())").path)
    try FileManager.default.createDirectory(atPath: folder.string, withIntermediateDirectories: true,
                                            attributes: [.posixPermissions: 0o700])
    return folder
}

/// The agent's clock on virtual time: nothing waits; `advance` runs each timer and the
/// wall-clock timer at its instant, in order, moving the wall clock and the boot clock with it.
@GLibActor
package final class VirtualClock: AgentClock {
    /// The wall clock. Set directly, it moves without any timer hearing it (`set(to:)` is the
    /// clock being set, which the wall-clock timers hear).
    package var now: Date
    package var timeZone: any TimeZoneRules
    package private(set) var bootTime: TimeInterval = 1_000
    /// The loop's timers, by their instant on the boot clock.
    private var timers: [(timer: ClockTimer, due: TimeInterval, run: @GLibActor () -> Void)] = []
    private var lastID: UInt32 = 0
    private var wallTimers: [WallTimer] = []

    package init(now: Date = Date(timeIntervalSince1970: 1_800_000_000), timeZone: any TimeZoneRules = GLibTimeZone(identifier: "UTC")!) {
        self.now = now
        self.timeZone = timeZone
    }

    @discardableResult
    package func after(_ seconds: TimeInterval, _ handler: @escaping @GLibActor () -> Void) -> ClockTimer {
        lastID += 1
        let timer = ClockTimer(id: lastID)
        timers.append((timer, bootTime + max(0, seconds), handler))
        return timer
    }

    package func cancel(_ timer: ClockTimer) {
        timers.removeAll { $0.timer == timer }
    }

    package func wallClockTimer(onFire: @escaping @GLibActor () -> Void,
                        onClockChange: @escaping @GLibActor () -> Void) throws -> any WallClockAlarm {
        let timer = WallTimer(onFire: onFire, onClockChange: onClockChange)
        wallTimers.append(timer)
        return timer
    }

    /// How many of the loop's timers wait.
    package var pendingTimers: Int { timers.count }

    /// Lets `seconds` pass (0: runs what is due now, as the loop's next turn would).
    package func advance(by seconds: TimeInterval = 0) {
        let end = bootTime + seconds
        while let next = nextDue(until: end) {
            let step = max(0, next.due - bootTime)
            bootTime += step
            now += step
            next.run()
        }
        now += end - bootTime
        bootTime = end
    }

    /// Lets time pass until the wall clock reads `date` (never back).
    package func advance(to date: Date) {
        advance(by: max(0, date.timeIntervalSince(now)))
    }

    /// Lets time pass until `condition` holds, at most `limit` seconds; returns the seconds passed.
    @discardableResult
    package func advance(until condition: () -> Bool, limit: TimeInterval = 86_400, step: TimeInterval = 0.25) -> TimeInterval? {
        var passed: TimeInterval = 0
        advance()
        while !condition() {
            guard passed < limit else { return nil }
            advance(by: step)
            passed += step
        }
        return passed
    }

    /// Sets the wall clock (as `date -s` or NTP would): the wall-clock timers hear it.
    package func set(to date: Date) {
        now = date
        for timer in wallTimers { timer.onClockChange() }
    }

    /// How far past `end` a timer still counts as due by it: a wall-clock instant read across
    /// many steps of the loop's timers (a countdown's refreshes) carries their rounding.
    private static let rounding: TimeInterval = 1e-6

    /// The earliest timer due by `end` (the wall-clock timers' instants read on the wall
    /// clock), taken off its list.
    private func nextDue(until end: TimeInterval) -> (due: TimeInterval, run: @GLibActor () -> Void)? {
        let end = end + Self.rounding
        let loop = timers.indices.min { timers[$0].due < timers[$1].due || (timers[$0].due == timers[$1].due && timers[$0].timer.id < timers[$1].timer.id) }
        let wall = wallTimers.compactMap { timer in timer.armed.map { (timer, bootTime + $0.timeIntervalSince(now)) } }.min { $0.1 < $1.1 }
        switch (loop.map { timers[$0].due }, wall?.1) {
        case (let loopDue?, let wallDue) where loopDue <= end && loopDue <= (wallDue ?? .infinity):
            let timer = timers.remove(at: loop!)
            return (loopDue, timer.run)
        case (_, let wallDue?) where wallDue <= end:
            let timer = wall!.0
            timer.armed = nil
            return (wallDue, timer.onFire)
        default:
            return nil
        }
    }

    @GLibActor
    final class WallTimer: WallClockAlarm {
        var armed: Date?
        let onFire: @GLibActor () -> Void
        let onClockChange: @GLibActor () -> Void

        init(onFire: @escaping @GLibActor () -> Void, onClockChange: @escaping @GLibActor () -> Void) {
            self.onFire = onFire
            self.onClockChange = onClockChange
        }

        func arm(at instant: Date?) { armed = instant }
    }
}

/// A notification server in process: records every Notify and CloseNotification, answers each
/// Notify after `latency`, and presses buttons or closes notifications on request. Until it
/// starts, shows wait for it, as `NotificationClient` holds them until a server answers.
@GLibActor
package final class RecordingNotifications: NotificationTransport {
    package enum Call: Equatable {
        /// A Notify: the id the server gave it, its summary, the id it replaced (0: none) and
        /// its action keys.
        case notify(UInt32, summary: String, replacing: UInt32, actions: [String])
        case close(UInt32)
    }

    package private(set) var calls: [Call] = []
    /// What each notification was last asked to show, by its id.
    package private(set) var requests: [UInt32: NotificationRequest] = [:]
    private var observers: [@GLibActor (NotificationEvent) -> Void] = []
    /// The notifications on screen, by id.
    private var live: Set<UInt32> = []
    private var lastID: UInt32 = 0
    private let clock: VirtualClock
    /// The server's answer takes this long.
    package var latency: TimeInterval = 0.01

    package init(clock: VirtualClock) { self.clock = clock }

    /// Shows waiting for a server.
    private var waiting: [(request: NotificationRequest, replacing: UInt32, shown: @GLibActor (UInt32?) -> Void)] = []
    private var running = false

    /// The server starts (or answers its first call), with actions; then shows what waited.
    package func start(name: String = "recording", capabilities: Set<String> = ["actions", "body", "persistence"]) {
        running = true
        for observer in observers { observer(.ready(NotificationServerProfile(name: name, version: "1", capabilities: capabilities))) }
        let shows = waiting
        waiting = []
        for show in shows { self.show(show.request, replacing: show.replacing, shown: show.shown) }
    }

    /// The server goes away, with every notification it showed.
    package func leave() {
        running = false
        live = []
        for observer in observers { observer(.left) }
    }

    /// The notifications on screen now.
    package var onScreen: Set<UInt32> { live }

    /// The last Notify's id for a summary.
    package func shown(_ summary: String) -> UInt32? {
        calls.reversed().lazy.compactMap { if case .notify(let id, summary, _, _) = $0 { id } else { nil } }.first
    }

    /// The user clicks the button `key` of notification `id`.
    package func press(_ key: String, on id: UInt32) {
        guard live.contains(id) else { return }
        for observer in observers { observer(.action(id, key: key)) }
    }

    /// The user closes notification `id` (reason 2: dismissed).
    package func dismiss(_ id: UInt32) {
        guard live.remove(id) != nil else { return }
        for observer in observers { observer(.closed(id, reason: 2)) }
    }

    package func observe(_ observer: @escaping @GLibActor (NotificationEvent) -> Void) {
        observers.append(observer)
    }

    package func show(_ request: NotificationRequest, replacing id: UInt32, shown: @escaping @GLibActor (UInt32?) -> Void) {
        guard running else { return waiting.append((request, id, shown)) }
        let given: UInt32
        if id != 0, live.contains(id) {
            given = id
        } else {
            lastID += 1
            given = lastID
        }
        calls.append(.notify(given, summary: request.summary, replacing: id, actions: request.actions.map(\.key)))
        requests[given] = request
        live.insert(given)
        clock.after(latency) { shown(given) }
    }

    package func close(_ id: UInt32) {
        calls.append(.close(id))
        live.remove(id)
    }
}

/// A sound server in process: records each stream opened, started and stopped, by the
/// stream's name, with the virtual time.
@GLibActor
package final class RecordingSound: SoundOutput {
    package enum Event: Equatable {
        case open(String, corked: Bool)
        case uncork(String)
        case stop(String)
        case raiseSink, restoreSink
    }

    package private(set) var events: [(event: Event, at: Date)] = []
    package private(set) var playing: [Stream] = []
    /// The volume each stream name was last opened at.
    package private(set) var volumes: [String: Double] = [:]
    package var onReadyChange: (@GLibActor (Bool) -> Void)?
    package private(set) var isReady = false
    package var lastError = ""
    package var streamsEnding: Int { 0 }
    private let clock: VirtualClock

    package init(clock: VirtualClock) { self.clock = clock }

    /// What was recorded, without the times.
    package var log: [Event] { events.map(\.event) }

    /// What happened to the streams (the sink guard's calls left out: it is told again on each
    /// change, and acts only when there is something to do).
    package var streams: [Event] { log.filter { $0 != .raiseSink && $0 != .restoreSink } }

    /// The sink guard's last call: `.raiseSink` while something rings, `.restoreSink` after.
    package var sink: Event? { log.last { $0 == .raiseSink || $0 == .restoreSink } }

    /// Whether a stream plays aloud now (opened uncorked, or uncorked since).
    package var isAudible: Bool { playing.contains { $0.audible } }

    package func connect() {
        guard !isReady else { return }
        clock.after(0.01) { [weak self] in
            self?.isReady = true
            self?.onReadyChange?(true)
        }
    }

    /// The sound server goes away: every stream fails.
    package func vanish() {
        isReady = false
        let streams = playing
        playing = []
        onReadyChange?(false)
        for stream in streams { stream.onFailure?() }
    }

    package func play(_ sound: any SoundReader, volume: Double, fadeIn: TimeInterval, mediaName: String,
              eventID: String, corked: Bool) -> (any RingingStream)? {
        guard isReady else { return nil }
        let stream = Stream(name: mediaName, audible: !corked, output: self)
        playing.append(stream)
        volumes[mediaName] = volume
        record(.open(mediaName, corked: corked))
        return stream
    }

    /// The settings the agent last applied.
    package private(set) var settings: AgentSettings?
    package func apply(_ settings: AgentSettings) { self.settings = settings }

    package func raiseSink() { record(.raiseSink) }
    package func restoreSink() { record(.restoreSink) }

    fileprivate func record(_ event: Event) { events.append((event, clock.now)) }

    fileprivate func ended(_ stream: Stream) { playing.removeAll { $0 === stream } }

    @GLibActor
    package final class Stream: RingingStream {
        package let name: String
        package fileprivate(set) var audible: Bool
        package var onFailure: (@GLibActor () -> Void)?
        private weak var output: RecordingSound?

        fileprivate init(name: String, audible: Bool, output: RecordingSound) {
            self.name = name
            self.audible = audible
            self.output = output
        }

        package func uncork() {
            audible = true
            output?.record(.uncork(name))
        }

        package func stop() {
            output?.record(.stop(name))
            output?.ended(self)
        }
    }
}
