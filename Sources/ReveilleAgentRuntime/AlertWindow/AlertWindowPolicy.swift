import FoundationEssentials
import ReveilleRules

/// Which ringing alarms have an alert window: pure, events in, effects out. A window is wanted
/// for each ringing alarm while the setting asks for one (`auto`: the notification's reach is
/// known and is not `.answerable`), there is a display to open it on, and its window did not
/// end on its own during this ringing (a window that crashes or that the person closed is not
/// opened again until the alarm rings anew, so a broken window cannot loop). A window that
/// could not reach its display or the agent is tried again a few times, later each time: an
/// X server resetting or starting (Xwayland on demand) refuses a client for a moment. At most
/// `maximumOpen` windows are open at once: the windows that are open stay, and as one closes
/// the next ringing alarm gets its own (many alarms ringing together cannot start a process each).
package struct AlertWindowPolicy: Equatable {
    package static let maximumOpen = 3

    package enum Effect: Equatable {
        case open(UUID)
        case close(UUID)
        /// A window is wanted but this session owns no display: said once.
        case noDisplay
        /// Call `retryDue(id, try:)` with `try` after `seconds`.
        case retry(UUID, afterSeconds: UInt32, try: Int)
    }

    /// How long to wait before each new try of a window that could not reach its display or
    /// the agent; when all are spent, it is not opened again while the alarm rings.
    package static let retryDelays: [UInt32] = [1, 4, 15]

    package private(set) var setting: AlertWindowSetting
    /// Whether the session owns a display the window can open on.
    package let hasDisplay: Bool
    package private(set) var reach: NotificationReach?
    package private(set) var ringing: Set<UUID> = []
    package private(set) var open: Set<UUID> = []
    /// Alarms whose window ended by itself while they rang.
    private var endedOnItsOwn: Set<UUID> = []
    /// How many times each ringing alarm's window was tried again, and which wait for a try
    /// (and for which: a try asked for in an earlier ringing opens nothing in this one).
    private var retries: [UUID: Int] = [:]
    private var waitingForRetry: [UUID: Int] = [:]
    private var triesAskedFor = 0
    private var toldNoDisplay = false

    package init(setting: AlertWindowSetting, hasDisplay: Bool) {
        self.setting = setting
        self.hasDisplay = hasDisplay
    }

    /// `ringing` are the alarms alerting now.
    package mutating func alarmsRinging(_ ringing: Set<UUID>) -> [Effect] {
        self.ringing = ringing
        endedOnItsOwn.formIntersection(ringing)
        retries = retries.filter { ringing.contains($0.key) }
        waitingForRetry = waitingForRetry.filter { ringing.contains($0.key) }
        return settle()
    }

    /// The `alertWindow` setting changed: windows open or close for the alarms ringing now.
    package mutating func settingChanged(_ setting: AlertWindowSetting) -> [Effect] {
        self.setting = setting
        return settle()
    }

    package mutating func reachChanged(_ reach: NotificationReach) -> [Effect] {
        self.reach = reach
        return settle()
    }

    /// `id`'s window process ended without being asked to; `couldNotConnect`: it could not
    /// reach its display or the agent (worth another try), rather than being closed or failing.
    package mutating func windowEnded(_ id: UUID, couldNotConnect: Bool = false) -> [Effect] {
        guard open.remove(id) != nil else { return [] }
        guard ringing.contains(id) else { return settle() }
        let tried = retries[id, default: 0]
        guard couldNotConnect, tried < Self.retryDelays.count else {
            endedOnItsOwn.insert(id)
            return settle()
        }
        retries[id] = tried + 1
        triesAskedFor += 1
        waitingForRetry[id] = triesAskedFor
        return settle() + [.retry(id, afterSeconds: Self.retryDelays[tried], try: triesAskedFor)]
    }

    /// The wait asked for by `.retry(id, …, try:)` is over.
    package mutating func retryDue(_ id: UUID, try number: Int) -> [Effect] {
        guard waitingForRetry[id] == number else { return [] }
        waitingForRetry[id] = nil
        return settle()
    }

    /// Whether a ringing alarm gets a window now.
    package var opensWindows: Bool { hasDisplay && wantsWindows }

    private var wantsWindows: Bool {
        switch setting {
        case .never: false
        case .always: true
        case .auto: reach.map { $0 != .answerable } ?? false
        }
    }

    private mutating func settle() -> [Effect] {
        let candidates = wantsWindows ? ringing.subtracting(endedOnItsOwn).subtracting(waitingForRetry.keys) : []
        let staying = open.intersection(candidates)
        var effects: [Effect] = open.subtracting(staying).sorted { $0.uuidString < $1.uuidString }.map { .close($0) }
        open = staying
        if !hasDisplay, !candidates.isEmpty {
            if !toldNoDisplay { effects.append(.noDisplay) }
            toldNoDisplay = true
            return effects
        }
        let opening = candidates.subtracting(staying).sorted { $0.uuidString < $1.uuidString }.prefix(Self.maximumOpen - staying.count)
        open.formUnion(opening)
        return effects + opening.map { .open($0) }
    }
}
