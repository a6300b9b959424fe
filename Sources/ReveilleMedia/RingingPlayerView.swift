import FoundationEssentials
import ReveilleAgentRuntime
import ReveilleCore
import ReveilleModel
import ReveilleRules
import ReveilleWords

/// What the agent's media player (MPRIS) shows while alarms ring, and what its buttons do:
/// the rules, with no bus in sight.
///
/// The buttons answer the alarm whose alert came last (the one on top, that a person just
/// heard start). Play, Pause and PlayPause press its recoverable button, Snooze or Repeat, as
/// iOS makes Snooze the big button on its lock screen; Stop where it has none. Next and Stop
/// stop it. A custom (`.custom`) second button is never run from a media key: a key press is
/// no look at what the button says.
package struct RingingPlayerView: Equatable {
    /// The alarm the buttons answer.
    package let alarm: UUID
    /// `xesam:title`: the alarm's title, and how many ring when several do.
    package let title: String
    /// `xesam:artist`: what the buttons do, in the alarm's button labels, in the order a lock
    /// screen draws them (Play/Pause, then Next): `Snooze · Stop`, or `Stop` where both stop.
    /// Short, because the second line is narrow: KDE's lock screen has room for about fifteen
    /// letters there and cut `Play/Pause: Snooze · Next: Stop` to `Play/Pause: Sn…`.
    package let artist: String
    /// `xesam:album`: the same said in full (`Play/Pause: Snooze · Next: Stop`), for the views
    /// with room for a third line (Plasma's media applet, KDE Connect).
    package let album: String
    /// The button Play, Pause and PlayPause press.
    package let playButton: AlarmButtonRole
    /// `mpris:trackid`: one per alarm, so a client sees a new track when another alarm is answered.
    package var trackID: String { "/io/github/reveille/Alarm/" + String(alarm.uuidString.lowercased().filter { $0 != "-" }) }

    /// The view of `ringing` (the alarms that ring now); `nil` when none does.
    package init?(ringing: [AlarmRecord], now: Date, timeZone: any TimeZoneRules) {
        let alerting = ringing.filter { $0.state == .alerting }
        // The newest alert; among alerts of one instant, the first in the listing order.
        guard let shown = alerting.sortedForDisplay().max(by: { ($0.alertingSince ?? .distantPast) < ($1.alertingSince ?? .distantPast) }),
              let content = NotificationContent(shown, now: now, timeZone: timeZone) else { return nil }
        alarm = shown.id
        playButton = Self.recoverable(shown) ? .secondary : .stop
        title = alerting.count == 1 ? content.summary : L("%@ (%@ alarms ring)", content.summary, String(alerting.count))
        let stopLabel = content.buttons.first { $0.role == .stop }?.label ?? L("Stop")
        let playLabel = playButton == .secondary ? content.buttons.first { $0.role == .secondary }?.label ?? L("Snooze") : stopLabel
        artist = playLabel == stopLabel ? stopLabel : playLabel + " · " + stopLabel
        album = L("Play/Pause: %@ · Next: %@", playLabel, stopLabel)
    }

    /// Whether `record`'s second button is one a key may press: Snooze or Repeat (its behaviour
    /// counts down again), never a custom one, which runs whatever the app made it do.
    package static func recoverable(_ record: AlarmRecord) -> Bool {
        record.shownButtons.contains(.secondary) && AlarmEngine.action(for: .secondary, of: record) == .countdown
    }

    /// The button an MPRIS method presses (`org.mpris.MediaPlayer2.Player`); `nil`: the method
    /// does nothing here (Previous, Seek, SetPosition, OpenUri: the player cannot).
    func button(for method: String) -> AlarmButtonRole? {
        switch MPRISMethod(named: method)?.press {
        case .playButton: playButton
        case .stop: .stop
        case nil: nil
        }
    }
}
