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
        self.init(schedule: record.alarm.schedule, countdownDuration: record.alarm.countdownDuration,
                  presentation: record.presentation, metadata: record.metadata, tintColor: record.tintColor,
                  sound: record.sound, ring: record.ring, stopIntent: record.stopIntent, secondaryIntent: record.secondaryIntent)
    }

    private enum CodingKeys: String, CodingKey {
        case schedule, countdownDuration, presentation, metadata, tintColor, sound, ring, stopIntent, secondaryIntent
    }

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

/// An alarm as the agent stores and lists it: the alarm, what it shows, and
/// the instants the agent tracks for it.
public struct AlarmRecord: Codable, Hashable, Sendable, Identifiable {
    public var alarm: Alarm
    public var presentation: AlarmPresentation
    public var metadata: String?
    public var tintColor: Color
    public var sound: AlertConfiguration.AlertSound
    public var ring: RingOptions
    public var stopIntent: AlarmIntent?
    public var secondaryIntent: AlarmIntent?
    /// The app that scheduled it.
    public var appID: String
    /// In `scheduled`: the instant it alerts. In `countdown`: the instant the countdown ends.
    public var fireDate: Date?
    /// The length of the running or paused countdown, for its progress.
    public var countdownLength: TimeInterval?
    /// In `paused`: the time that was left when it was paused.
    public var pausedTimeRemaining: TimeInterval?
    /// In a `countdown` resumed after a pause: how much of it had run before (AlarmKit's
    /// `previouslyElapsedDuration`); `nil` for one that has run since it began.
    public var previouslyElapsed: TimeInterval?
    /// In `alerting`: when it started to alert.
    public var alertingSince: Date?
    /// Kept but silenced (`reveille disable`): it neither rings nor counts down until enabled.
    public var disabled = false
    /// The occurrence that last came due (rang or was missed): no occurrence at or before it
    /// is scheduled again, so a wall clock set back cannot make an alarm ring twice.
    public var lastOccurrence: Date?

    public var id: UUID { alarm.id }
    public var title: String { presentation.alert.title }

    public init(alarm: Alarm, presentation: AlarmPresentation, metadata: String? = nil,
                tintColor: Color = .blue, sound: AlertConfiguration.AlertSound = .default,
                ring: RingOptions = RingOptions(), stopIntent: AlarmIntent? = nil, secondaryIntent: AlarmIntent? = nil,
                appID: String, fireDate: Date? = nil, countdownLength: TimeInterval? = nil,
                pausedTimeRemaining: TimeInterval? = nil, alertingSince: Date? = nil) {
        self.alarm = alarm
        self.presentation = presentation
        self.metadata = metadata
        self.tintColor = tintColor
        self.sound = sound
        self.ring = ring
        self.stopIntent = stopIntent
        self.secondaryIntent = secondaryIntent
        self.appID = appID
        self.fireDate = fireDate
        self.countdownLength = countdownLength
        self.pausedTimeRemaining = pausedTimeRemaining
        self.alertingSince = alertingSince
    }

    private enum CodingKeys: String, CodingKey {
        case alarm, presentation, metadata, tintColor, sound, ring, stopIntent, secondaryIntent, appID, fireDate,
             countdownLength, pausedTimeRemaining, previouslyElapsed, alertingSince, lastOccurrence, disabled
    }

    /// `tintColor`, `sound` and `ring` may be left out: their defaults.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        alarm = try container.decode(Alarm.self, forKey: .alarm)
        presentation = try container.decode(AlarmPresentation.self, forKey: .presentation)
        metadata = try container.decodeIfPresent(String.self, forKey: .metadata)
        tintColor = try container.decodeIfPresent(Color.self, forKey: .tintColor) ?? .blue
        sound = try container.decodeIfPresent(AlertConfiguration.AlertSound.self, forKey: .sound) ?? .default
        ring = try container.decodeIfPresent(RingOptions.self, forKey: .ring) ?? RingOptions()
        stopIntent = try container.decodeIfPresent(AlarmIntent.self, forKey: .stopIntent)
        secondaryIntent = try container.decodeIfPresent(AlarmIntent.self, forKey: .secondaryIntent)
        appID = try container.decode(String.self, forKey: .appID)
        fireDate = try container.decodeIfPresent(Date.self, forKey: .fireDate)
        countdownLength = try container.decodeIfPresent(TimeInterval.self, forKey: .countdownLength)
        pausedTimeRemaining = try container.decodeIfPresent(TimeInterval.self, forKey: .pausedTimeRemaining)
        previouslyElapsed = try container.decodeIfPresent(TimeInterval.self, forKey: .previouslyElapsed)
        alertingSince = try container.decodeIfPresent(Date.self, forKey: .alertingSince)
        lastOccurrence = try container.decodeIfPresent(Date.self, forKey: .lastOccurrence)
        disabled = try container.decodeIfPresent(Bool.self, forKey: .disabled) ?? false
    }

    /// Leaves out what is at its default, so the store and the lists carry only what differs.
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(alarm, forKey: .alarm)
        try container.encode(presentation, forKey: .presentation)
        try container.encodeIfPresent(metadata, forKey: .metadata)
        if tintColor != .blue { try container.encode(tintColor, forKey: .tintColor) }
        if sound != .default { try container.encode(sound, forKey: .sound) }
        if ring != RingOptions() { try container.encode(ring, forKey: .ring) }
        try container.encodeIfPresent(stopIntent, forKey: .stopIntent)
        try container.encodeIfPresent(secondaryIntent, forKey: .secondaryIntent)
        try container.encode(appID, forKey: .appID)
        try container.encodeIfPresent(fireDate, forKey: .fireDate)
        try container.encodeIfPresent(countdownLength, forKey: .countdownLength)
        try container.encodeIfPresent(pausedTimeRemaining, forKey: .pausedTimeRemaining)
        try container.encodeIfPresent(previouslyElapsed, forKey: .previouslyElapsed)
        try container.encodeIfPresent(alertingSince, forKey: .alertingSince)
        try container.encodeIfPresent(lastOccurrence, forKey: .lastOccurrence)
        if disabled { try container.encode(disabled, forKey: .disabled) }
    }
}
