import ReveilleBus

/// Which other media players to quiet while an alarm rings, and how: the rules of the music
/// pause, with no bus in sight. The shell (`MusicPause`) reads the players and does what this says.
///
/// Every other MPRIS player that is Playing is paused, or stopped where it cannot pause, as
/// Android's transient audio focus and KDE's KClock do; after, each is resumed with Play. A
/// player is known by its unique connection name, never by its well-known one: a player that
/// left while the alarm rang is gone with its connection, and another that took its name meanwhile
/// is not one Reveille paused.
package enum OtherPlayers {
    /// Every MPRIS player's well-known name starts so.
    package static let namePrefix = "org.mpris.MediaPlayer2."
    package static let playerInterface = "org.mpris.MediaPlayer2.Player"
    /// The most player names looked at one ring: a session has a few, but one program may take
    /// dozens that sort first (32 hid the music once); each owner is read once, and the round's
    /// time bounds the rest.
    package static let maximumPlayers = 256

    /// How a playing player is quieted.
    package enum Quieting: String, Equatable, Sendable {
        case pause = "Pause"
        case stop = "Stop"
    }

    /// The well-known names among `names` (the bus's `ListNames`) that are other players than `ours`,
    /// at most `maximumPlayers`.
    package static func players(among names: [String], ours: String) -> [String] {
        Array(names.filter { $0.hasPrefix(namePrefix) && $0 != ours && $0.count > namePrefix.count }.sorted().prefix(maximumPlayers))
    }

    /// Whether a quieted player's `PlaybackStatus` heard during the ring is the person's own
    /// doing: anything but the state the pause left it in (they played it, or stopped it), after
    /// which it is theirs, and is not played again.
    package static func personTookOver(_ status: String, after quieting: Quieting) -> Bool {
        status != (quieting == .pause ? "Paused" : "Stopped")
    }

    /// How to quiet a player whose `org.mpris.MediaPlayer2.Player` properties are `properties`;
    /// `nil`: leave it (not Playing, or it takes no control).
    package static func quieting(_ properties: [String: Variant]) -> Quieting? {
        guard properties["PlaybackStatus"]?.string == "Playing" else { return nil }
        // Absent flags are read as the specification's defaults would have them: able.
        if properties["CanControl"].flatMap(\.int64) == 0 { return nil }
        return properties["CanPause"].flatMap(\.int64) == 0 ? .stop : .pause
    }
}
