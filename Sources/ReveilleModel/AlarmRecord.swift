import FoundationEssentials

/// What an app asks the agent to schedule: AlarmKit's `AlarmConfiguration`
/// without its generic parameter (metadata travels as JSON text).
public struct AlarmRequest: Codable, Hashable, Sendable {
    public var schedule: Alarm.Schedule?
    public var countdownDuration: Alarm.CountdownDuration?
    public var presentation: AlarmPresentation
    public var metadata: String?
    public var tintColor: Color
    public var sound: AlertConfiguration.AlertSound
    public var ring: RingOptions
    public var stopIntent: AlarmIntent?
    public var secondaryIntent: AlarmIntent?

    public init(schedule: Alarm.Schedule?, countdownDuration: Alarm.CountdownDuration?,
                presentation: AlarmPresentation, metadata: String? = nil,
                tintColor: Color = .blue, sound: AlertConfiguration.AlertSound = .default,
                ring: RingOptions = RingOptions(), stopIntent: AlarmIntent? = nil, secondaryIntent: AlarmIntent? = nil) {
        self.schedule = schedule
        self.countdownDuration = countdownDuration
        self.presentation = presentation
        self.metadata = metadata
        self.tintColor = tintColor
        self.sound = sound
        self.ring = ring
        self.stopIntent = stopIntent
        self.secondaryIntent = secondaryIntent
    }

    /// What `record` was scheduled with: the starting point for changing it (`Update`).
    public init(_ record: AlarmRecord) {
        self = record.request
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case schedule, countdownDuration, presentation, metadata, tintColor, sound, ring, stopIntent, secondaryIntent
    }
    /// The keys of its JSON object.
    public static var fieldNames: [String] { CodingKeys.allCases.map(\.rawValue) }

    /// Decodes with the initializer's defaults: `tintColor` blue, `sound` default.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        schedule = try container.decodeIfPresent(Alarm.Schedule.self, forKey: .schedule)
        countdownDuration = try container.decodeIfPresent(Alarm.CountdownDuration.self, forKey: .countdownDuration)
        presentation = try container.decode(AlarmPresentation.self, forKey: .presentation)
        metadata = try container.decodeIfPresent(String.self, forKey: .metadata)
        tintColor = try container.decodeIfPresent(Color.self, forKey: .tintColor) ?? .blue
        sound = try container.decodeIfPresent(AlertConfiguration.AlertSound.self, forKey: .sound) ?? .default
        ring = try container.decodeIfPresent(RingOptions.self, forKey: .ring) ?? RingOptions()
        stopIntent = try container.decodeIfPresent(AlarmIntent.self, forKey: .stopIntent)
        secondaryIntent = try container.decodeIfPresent(AlarmIntent.self, forKey: .secondaryIntent)
    }
}

/// An alarm as the agent stores and lists it: what was asked for (`request`), whose it is,
/// and where it stands (`phase`), with the data of that phase only.
public struct AlarmRecord: Codable, Hashable, Sendable {
    /// Where an alarm stands, with what the agent tracks in that state and nothing else.
    public enum Phase: Hashable, Sendable {
        /// Waiting for `fireDate`, its next occurrence (`nil`: none is ahead).
        case scheduled(fireDate: Date?)
        /// Counting down to `until`, `length` seconds in all; `previouslyElapsed`: how much had
        /// run before a pause (AlarmKit's `previouslyElapsedDuration`), `nil` if it never paused.
        case countdown(until: Date, length: TimeInterval, previouslyElapsed: TimeInterval?)
        /// Paused with `remaining` seconds left of `length`.
        case paused(remaining: TimeInterval, length: TimeInterval)
        /// Ringing since `since`.
        case alerting(since: Date)

        /// AlarmKit's name for the phase.
        public var state: Alarm.State {
            switch self {
            case .scheduled: .scheduled
            case .countdown: .countdown
            case .paused: .paused
            case .alerting: .alerting
            }
        }
    }

    public let id: UUID
    /// What the app (or the user) asked for: schedule, countdown lengths, presentation, sound, intents.
    public var request: AlarmRequest
    /// The app that scheduled it.
    public var appID: String
    public var phase: Phase {
        // Only a ringing or resting occurrence has unanswered rings: waiting for its time, it
        // has none, whichever rule moved it there.
        didSet { if case .scheduled = phase { unanswered = nil } }
    }
    /// Kept but silenced (`reveille disable`): it neither rings nor counts down until enabled.
    public var disabled = false
    /// The occurrence that last came due (rang or was missed): no occurrence at or before it
    /// is scheduled again, so a wall clock set back cannot make an alarm ring twice.
    public var lastOccurrence: Date?
    /// Its occurrence rang unanswered and rings again (`RingOptions.repeatUnanswered`): where
    /// the chain stands. `nil` once it is answered, missed, or a new occurrence comes.
    public var unanswered: UnansweredRings?

    public init(id: UUID, request: AlarmRequest, appID: String, phase: Phase) {
        self.id = id
        self.request = request
        self.appID = appID
        self.phase = phase
    }

    // MARK: Read as AlarmKit and the lists see it

    /// AlarmKit's view: id, schedule, countdown lengths and state.
    public var alarm: Alarm {
        Alarm(id: id, schedule: request.schedule, countdownDuration: request.countdownDuration, state: phase.state)
    }

    /// Where it stands, in AlarmKit's words (`alarm.state`, without building the `Alarm`).
    public var state: Alarm.State { phase.state }
    public var schedule: Alarm.Schedule? { request.schedule }
    public var countdownDuration: Alarm.CountdownDuration? { request.countdownDuration }
    /// It repeats on weekdays (AlarmKit's `Alarm.isRepeating`).
    public var isRepeating: Bool { request.schedule?.isRepeating ?? false }

    public var title: String { presentation.alert.title.defaultValue }
    public var presentation: AlarmPresentation {
        get { request.presentation }
        set { request.presentation = newValue }
    }
    public var metadata: String? {
        get { request.metadata }
        set { request.metadata = newValue }
    }
    public var tintColor: Color {
        get { request.tintColor }
        set { request.tintColor = newValue }
    }
    public var sound: AlertConfiguration.AlertSound {
        get { request.sound }
        set { request.sound = newValue }
    }
    public var ring: RingOptions {
        get { request.ring }
        set { request.ring = newValue }
    }
    public var stopIntent: AlarmIntent? { request.stopIntent }
    public var secondaryIntent: AlarmIntent? { request.secondaryIntent }

    /// When it next alerts (scheduled) or its countdown ends (countdown).
    public var fireDate: Date? {
        switch phase {
        case .scheduled(let fireDate): fireDate
        case .countdown(let until, _, _): until
        case .paused, .alerting: nil
        }
    }

    /// The length of the running or paused countdown, for its progress.
    public var countdownLength: TimeInterval? {
        switch phase {
        case .countdown(_, let length, _), .paused(_, let length): length
        case .scheduled, .alerting: nil
        }
    }

    /// In `paused`: the time that was left when it was paused.
    public var pausedTimeRemaining: TimeInterval? {
        if case .paused(let remaining, _) = phase { remaining } else { nil }
    }

    /// In a `countdown` resumed after a pause: how much of it had run before.
    public var previouslyElapsed: TimeInterval? {
        if case .countdown(_, _, let elapsed) = phase { elapsed } else { nil }
    }

    /// In `alerting`: when it started to alert.
    public var alertingSince: Date? {
        if case .alerting(let since) = phase { since } else { nil }
    }

    // MARK: Coding: the same JSON as before phases, so stores and clients read it unchanged

    private enum CodingKeys: String, CodingKey {
        case alarm, presentation, metadata, tintColor, sound, ring, stopIntent, secondaryIntent, appID, fireDate,
             countdownLength, pausedTimeRemaining, previouslyElapsed, alertingSince, lastOccurrence, disabled, unanswered
    }

    /// `tintColor`, `sound` and `ring` may be left out: their defaults. A phase's data that is
    /// missing is taken from what is there (older stores); an end or a start that is not there
    /// at all (a store edited by hand) is taken as long past, so the alarm is reported missed
    /// rather than the whole store refused.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let alarm = try container.decode(Alarm.self, forKey: .alarm)
        id = alarm.id
        request = AlarmRequest(
            schedule: alarm.schedule, countdownDuration: alarm.countdownDuration,
            presentation: try container.decode(AlarmPresentation.self, forKey: .presentation),
            metadata: try container.decodeIfPresent(String.self, forKey: .metadata),
            tintColor: try container.decodeIfPresent(Color.self, forKey: .tintColor) ?? .blue,
            sound: try container.decodeIfPresent(AlertConfiguration.AlertSound.self, forKey: .sound) ?? .default,
            ring: try container.decodeIfPresent(RingOptions.self, forKey: .ring) ?? RingOptions(),
            stopIntent: try container.decodeIfPresent(AlarmIntent.self, forKey: .stopIntent),
            secondaryIntent: try container.decodeIfPresent(AlarmIntent.self, forKey: .secondaryIntent))
        appID = try container.decode(String.self, forKey: .appID)
        let fireDate = try container.decodeIfPresent(Date.self, forKey: .fireDate)
        let length = try container.decodeIfPresent(TimeInterval.self, forKey: .countdownLength)
        let remaining = try container.decodeIfPresent(TimeInterval.self, forKey: .pausedTimeRemaining)
        switch alarm.state {
        case .scheduled:
            phase = .scheduled(fireDate: fireDate)
        case .countdown:
            phase = .countdown(until: fireDate ?? .distantPast, length: length ?? alarm.countdownDuration?.preAlert ?? 0,
                               previouslyElapsed: try container.decodeIfPresent(TimeInterval.self, forKey: .previouslyElapsed))
        case .paused:
            phase = .paused(remaining: remaining ?? 0, length: length ?? remaining ?? 0)
        case .alerting:
            phase = .alerting(since: try container.decodeIfPresent(Date.self, forKey: .alertingSince) ?? fireDate ?? .distantPast)
        }
        lastOccurrence = try container.decodeIfPresent(Date.self, forKey: .lastOccurrence)
        disabled = try container.decodeIfPresent(Bool.self, forKey: .disabled) ?? false
        // Bounded as it is read: a chain past its own end (a store edited by hand) is none.
        unanswered = try container.decodeIfPresent(UnansweredRings.self, forKey: .unanswered).flatMap { $0.isSound ? $0 : nil }
    }

    /// Leaves out what is at its default, so the store and the lists carry only what differs.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(alarm, forKey: .alarm)
        try container.encode(request.presentation, forKey: .presentation)
        try container.encodeIfPresent(request.metadata, forKey: .metadata)
        if request.tintColor != .blue { try container.encode(request.tintColor, forKey: .tintColor) }
        if request.sound != .default { try container.encode(request.sound, forKey: .sound) }
        if request.ring != RingOptions() { try container.encode(request.ring, forKey: .ring) }
        try container.encodeIfPresent(request.stopIntent, forKey: .stopIntent)
        try container.encodeIfPresent(request.secondaryIntent, forKey: .secondaryIntent)
        try container.encode(appID, forKey: .appID)
        try container.encodeIfPresent(fireDate, forKey: .fireDate)
        try container.encodeIfPresent(countdownLength, forKey: .countdownLength)
        try container.encodeIfPresent(pausedTimeRemaining, forKey: .pausedTimeRemaining)
        try container.encodeIfPresent(previouslyElapsed, forKey: .previouslyElapsed)
        try container.encodeIfPresent(alertingSince, forKey: .alertingSince)
        try container.encodeIfPresent(lastOccurrence, forKey: .lastOccurrence)
        if disabled { try container.encode(disabled, forKey: .disabled) }
        try container.encodeIfPresent(unanswered, forKey: .unanswered)
    }
}

/// Where an occurrence's unanswered rings stand: `rang` of `rings` rang unanswered, the first
/// at `since`.
public struct UnansweredRings: Codable, Hashable, Sendable {
    public var rang: Int
    public var rings: Int
    /// When the occurrence's first ring began.
    public var since: Date

    public init(rang: Int, rings: Int, since: Date) {
        (self.rang, self.rings, self.since) = (rang, rings, since)
    }

    /// The ring that comes next, counted from 1.
    public var nextRing: Int { rang + 1 }

    /// A chain read from a store or a caller, bounded: at least one ring done, one to come,
    /// within `UnansweredRepeat.ringsRange`; anything else is no chain.
    public var isSound: Bool {
        rang >= 1 && rang < rings && UnansweredRepeat.ringsRange.contains(rings) && since.timeIntervalSince1970.isFinite
    }
}
