import ReveilleCore
import ReveilleRules

/// The MPRIS D-Bus Interface Specification 2.2, as the agent's player implements it: the
/// root interface and the player interface, every property the specification requires.
package enum MPRISInterfaces {
    /// The player's name on the session bus, owned only while an alarm rings.
    package static let busName = "org.mpris.MediaPlayer2.reveille"
    package static let path = "/org/mpris/MediaPlayer2"
    package static let rootInterface = "org.mpris.MediaPlayer2"
    package static let playerInterface = "org.mpris.MediaPlayer2.Player"
    /// The track id the specification gives "no track".
    package static let noTrack = "/org/mpris/MediaPlayer2/TrackList/NoTrack"
    /// The largest call: OpenUri's URI is the only text a caller sends.
    package static let maximumCallBytes = 4096

    // Rate and Volume are read-only here: the alarm's loudness is not a remote's to turn down.
    static let xml = BusInterfaceDescription.node([
        BusInterfaceDescription(name: rootInterface, methods: MPRISMethod.allCases.filter { !$0.isPlayers }.map(\.method), properties: [
            .init("CanQuit", "b"), .init("CanRaise", "b"), .init("HasTrackList", "b"), .init("Identity", "s"), .init("DesktopEntry", "s"),
            .init("SupportedUriSchemes", "as"), .init("SupportedMimeTypes", "as"),
        ]),
        BusInterfaceDescription(name: playerInterface, methods: MPRISMethod.allCases.filter(\.isPlayers).map(\.method), properties: [
            .init("PlaybackStatus", "s"), .init("Rate", "d"), .init("Metadata", "a{sv}"), .init("Volume", "d"), .init("Position", "x"),
            .init("MinimumRate", "d"), .init("MaximumRate", "d"), .init("CanGoNext", "b"), .init("CanGoPrevious", "b"), .init("CanPlay", "b"),
            .init("CanPause", "b"), .init("CanSeek", "b"), .init("CanControl", "b"),
        ], signals: [.init("Seeked", [.init("Position", "x")])]),
    ])
}

/// The player's methods, one case each, of both interfaces (`RingingPlayerView.button(for:)` says what each presses).
enum MPRISMethod: BusMethodSet {
    case raise, quit
    case next, previous, pause, playPause, stop, play, seek, setPosition, openUri

    var method: BusMethod {
        switch self {
        case .raise: BusMethod("Raise")
        case .quit: BusMethod("Quit")
        case .next: BusMethod("Next")
        case .previous: BusMethod("Previous")
        case .pause: BusMethod("Pause")
        case .playPause: BusMethod("PlayPause")
        case .stop: BusMethod("Stop")
        case .play: BusMethod("Play")
        case .seek: BusMethod("Seek", in: [.init("Offset", "x")])
        case .setPosition: BusMethod("SetPosition", in: [.init("TrackId", "o"), .init("Position", "x")])
        case .openUri: BusMethod("OpenUri", in: [.init("Uri", "s")])
        }
    }

    /// Whether it is `org.mpris.MediaPlayer2.Player`'s (else the root interface's).
    var isPlayers: Bool { self != .raise && self != .quit }

    /// Which of the ringing alarm's buttons the method presses (`RingingPlayerView.button(for:)`);
    /// `nil`: the method does nothing here (the player cannot go back, seek or open).
    enum Press { case playButton, stop }
    var press: Press? {
        switch self {
        case .play, .pause, .playPause: .playButton
        case .next, .stop: .stop
        case .raise, .quit, .previous, .seek, .setPosition, .openUri: nil
        }
    }

    /// The media keys that press the ringing alarm's buttons.
    var answersAlarm: Bool { press != nil }
}
