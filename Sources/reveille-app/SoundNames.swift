import ReveilleCore
import ReveilleWords

/// The names the sound picker shows: Reveille's own sounds and the freedesktop sound theme's
/// known names in the person's words (a table, translated); any other name made readable from
/// its file name ("window-question" would read "Window question").
enum SoundNames {
    /// The name of Reveille's own alarm sound, the one an alarm rings when no other is chosen.
    static let reveillesOwn = "alarm"

    /// The readable, translated name of the sound named `name` (`reveille sounds`' name).
    static func readable(_ name: String) -> String {
        if let known = known[name] { return known }
        // A file the CLI gave by its path is shown as given.
        return name.contains("/") ? name : madeReadable(name)
    }

    /// A sound's file name as words: its dashes and underscores spaces, its first letter capital.
    static func madeReadable(_ name: String) -> String {
        let words = name.split(whereSeparator: { "-_. ".contains($0) }).joined(separator: " ")
        guard let first = words.first else { return name }
        return first.uppercased() + words.dropFirst()
    }

    /// Reveille's own sounds (Sounds/) and the freedesktop theme's (sound-theme-freedesktop).
    static var known: [String: String] {
        [
            // Reveille's own.
            "alarm": L("Reveille’s alarm"), "chime": L("Chime"), "gentle": L("Gentle"), "handbell": L("Handbell"),
            // The freedesktop theme's.
            "alarm-clock-elapsed": L("Alarm clock"), "bell": L("Bell"), "complete": L("Complete"),
            "message-new-instant": L("New instant message"), "message": L("Message"),
            "phone-incoming-call": L("Incoming call"), "phone-outgoing-busy": L("Line busy"),
            "phone-outgoing-calling": L("Calling"), "dialog-error": L("Error"), "dialog-information": L("Information"),
            "dialog-warning": L("Warning"), "window-attention": L("Attention"), "window-question": L("Question"),
            "service-login": L("Log in"), "service-logout": L("Log out"), "suspend-error": L("Suspend error"),
            "trash-empty": L("Trash emptied"), "camera-shutter": L("Camera shutter"), "screen-capture": L("Screenshot"),
            "device-added": L("Device connected"), "device-removed": L("Device removed"),
            "power-plug": L("Power connected"), "power-unplug": L("Power disconnected"),
            "network-connectivity-established": L("Network connected"), "network-connectivity-lost": L("Network lost"),
            "audio-volume-change": L("Volume change"), "audio-test-signal": L("Test signal"),
            "audio-channel-front-center": L("Front centre speaker"), "audio-channel-front-left": L("Front left speaker"),
            "audio-channel-front-right": L("Front right speaker"), "audio-channel-rear-center": L("Rear centre speaker"),
            "audio-channel-rear-left": L("Rear left speaker"), "audio-channel-rear-right": L("Rear right speaker"),
            "audio-channel-side-left": L("Side left speaker"), "audio-channel-side-right": L("Side right speaker"),
        ]
    }
}
