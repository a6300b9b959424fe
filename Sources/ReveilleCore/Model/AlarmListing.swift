import FoundationEssentials

/// What a list of alarms shows of each: read from the same JSON as `AlarmRecord`, but
/// skipping the presentation's buttons, the sound and the intents, which a list never shows.
/// Decoding a long list this way takes well under half the time.
public struct AlarmListing: Decodable, Sendable, Identifiable {
    public var alarm: Alarm
    public var appID: String
    public var title: String
    public var fireDate: Date?
    public var pausedTimeRemaining: TimeInterval?
    public var alertingSince: Date?

    public var id: UUID { alarm.id }

    /// The listing of an alarm already read in full.
    public init(_ record: AlarmRecord) {
        alarm = record.alarm
        appID = record.appID
        title = record.title
        fireDate = record.fireDate
        pausedTimeRemaining = record.pausedTimeRemaining
        alertingSince = record.alertingSince
    }

    private enum CodingKeys: String, CodingKey {
        case alarm, appID, presentation, fireDate, pausedTimeRemaining, alertingSince
    }
    private enum PresentationKeys: String, CodingKey { case alert }
    private enum AlertKeys: String, CodingKey { case title }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        alarm = try container.decode(Alarm.self, forKey: .alarm)
        appID = try container.decode(String.self, forKey: .appID)
        title = try container.nestedContainer(keyedBy: PresentationKeys.self, forKey: .presentation)
            .nestedContainer(keyedBy: AlertKeys.self, forKey: .alert).decode(String.self, forKey: .title)
        fireDate = try container.decodeIfPresent(Date.self, forKey: .fireDate)
        pausedTimeRemaining = try container.decodeIfPresent(TimeInterval.self, forKey: .pausedTimeRemaining)
        alertingSince = try container.decodeIfPresent(Date.self, forKey: .alertingSince)
    }
}
