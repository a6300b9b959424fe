/// How a ringing alarm can be answered in this session, as the agent sees it now: told with
/// `WakeStatus` (`reveille status` shows both).
package struct SessionAnswering: Codable, Equatable, Sendable {
    /// The alert notification shows buttons a click answers.
    package var notificationButtons: Bool
    /// The notification is shown, though its buttons may not answer.
    package var notificationShown: Bool
    /// The alert window opens while an alarm rings (`alertWindow` and a display allow it).
    package var alertWindow: Bool
    /// The ringing alarm is a media player: media keys, headset buttons, the lock screen's media
    /// controls (GNOME 49+, KDE Plasma), playerctl and KDE Connect answer it.
    package var mediaPlayer: Bool
    /// The screen lockers that run, by process name where known.
    package var lockers: [String]
    /// Whether the session is locked now.
    package var locked: Bool
    /// A locker that switches to another virtual terminal when it locks (light-locker): the
    /// session loses its sound device, and an alarm that rings while locked is silent.
    package var silencingLocker: String?
    /// Another program that holds the media player's name (`org.mpris.MediaPlayer2.reveille`),
    /// by process: media keys and the lock screen's controls reach it, not a ringing alarm.
    package var mediaPlayerNameHeldBy: String?

    package init(notificationButtons: Bool, notificationShown: Bool, alertWindow: Bool, mediaPlayer: Bool,
                 lockers: [String], locked: Bool, silencingLocker: String?) {
        self.notificationButtons = notificationButtons
        self.notificationShown = notificationShown
        self.alertWindow = alertWindow
        self.mediaPlayer = mediaPlayer
        self.lockers = lockers
        self.locked = locked
        self.silencingLocker = silencingLocker
    }
}
