import FoundationEssentials
import ReveilleModel

/// What a list of alarms shows of each: read from the same JSON as `AlarmRecord`, but
/// skipping the countdown and paused presentations, the metadata and the stop intent, which a
/// list never shows. Decoding a long list this way takes well under half the time.
package struct AlarmListing: Decodable, Sendable, Identifiable {
    package var alarm: Alarm
    package var appID: String
    package var title: String
    package var fireDate: Date?
    package var pausedTimeRemaining: TimeInterval?
    package var alertingSince: Date?
    package var disabled: Bool
    /// The occurrence that last came due, or (ahead of now) the one a skip passed over.
    package var lastOccurrence: Date?
    package var sound: AlertConfiguration.AlertSound
    package var ring: RingOptions
    /// Rang unanswered and rings again: where the chain stands.
    package var unanswered: UnansweredRings?
    /// The alert's second button, what it does, and its intent.
    package var secondaryButton: String?
    package var secondaryButtonBehavior: AlarmPresentation.Alert.SecondaryButtonBehavior?
    package var secondaryIntent: AlarmIntent?

    package var id: UUID { alarm.id }

    /// The listing of an alarm already read in full.
    package init(_ record: AlarmRecord) {
        alarm = record.alarm
        appID = record.appID
        title = record.title
        fireDate = record.fireDate
        pausedTimeRemaining = record.pausedTimeRemaining
        alertingSince = record.alertingSince
        disabled = record.disabled
        lastOccurrence = record.lastOccurrence
        sound = record.sound
        ring = record.ring
        unanswered = record.unanswered
        secondaryButton = record.presentation.alert.secondaryButton?.text.defaultValue
        secondaryButtonBehavior = record.presentation.alert.secondaryButtonBehavior
        secondaryIntent = record.secondaryIntent
    }

    private enum CodingKeys: String, CodingKey {
        case alarm, appID, presentation, fireDate, pausedTimeRemaining, alertingSince, disabled, lastOccurrence, sound, ring, secondaryIntent, unanswered
    }
    private enum PresentationKeys: String, CodingKey { case alert }
    private enum AlertKeys: String, CodingKey { case title, secondaryButton, secondaryButtonBehavior }
    private enum ButtonKeys: String, CodingKey { case text }

    package init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        alarm = try container.decode(Alarm.self, forKey: .alarm)
        appID = try container.decode(String.self, forKey: .appID)
        let alert = try container.nestedContainer(keyedBy: PresentationKeys.self, forKey: .presentation)
            .nestedContainer(keyedBy: AlertKeys.self, forKey: .alert)
        title = try alert.decode(String.self, forKey: .title)
        secondaryButton = try alert.contains(.secondaryButton)
            ? alert.nestedContainer(keyedBy: ButtonKeys.self, forKey: .secondaryButton).decode(String.self, forKey: .text) : nil
        secondaryButtonBehavior = try alert.decodeIfPresent(AlarmPresentation.Alert.SecondaryButtonBehavior.self, forKey: .secondaryButtonBehavior)
        fireDate = try container.decodeIfPresent(Date.self, forKey: .fireDate)
        pausedTimeRemaining = try container.decodeIfPresent(TimeInterval.self, forKey: .pausedTimeRemaining)
        alertingSince = try container.decodeIfPresent(Date.self, forKey: .alertingSince)
        disabled = try container.decodeIfPresent(Bool.self, forKey: .disabled) ?? false
        lastOccurrence = try container.decodeIfPresent(Date.self, forKey: .lastOccurrence)
        sound = try container.decodeIfPresent(AlertConfiguration.AlertSound.self, forKey: .sound) ?? .default
        ring = try container.decodeIfPresent(RingOptions.self, forKey: .ring) ?? RingOptions()
        secondaryIntent = try container.decodeIfPresent(AlarmIntent.self, forKey: .secondaryIntent)
        unanswered = try container.decodeIfPresent(UnansweredRings.self, forKey: .unanswered)
    }
}
