@testable import reveille_app
import Testing

/// The sound picker's names: Reveille's own and the freedesktop theme's known sounds from a
/// table, any other name made readable from its file name (C locale).
@Suite("Sound picker's names")
struct SoundNamesTests {
    @Test func knownSoundsHaveNamesFromTheTable() {
        #expect(SoundNames.readable("handbell") == "Handbell")
        #expect(SoundNames.readable("alarm") == "Reveille’s alarm")
        #expect(SoundNames.readable("phone-incoming-call") == "Incoming call")
        #expect(SoundNames.readable("audio-channel-front-left") == "Front left speaker")
        #expect(SoundNames.readable("power-unplug") == "Power disconnected")
    }

    @Test func everyFreedesktopThemeSoundIsInTheTable() {
        // sound-theme-freedesktop 0.8's names (Debian 12 and 13).
        let theme = ["alarm-clock-elapsed", "audio-channel-front-center", "audio-channel-front-left", "audio-channel-front-right",
                     "audio-channel-rear-center", "audio-channel-rear-left", "audio-channel-rear-right", "audio-channel-side-left",
                     "audio-channel-side-right", "audio-test-signal", "audio-volume-change", "bell", "camera-shutter", "complete",
                     "device-added", "device-removed", "dialog-error", "dialog-information", "dialog-warning", "message-new-instant",
                     "message", "network-connectivity-established", "network-connectivity-lost", "phone-incoming-call",
                     "phone-outgoing-busy", "phone-outgoing-calling", "power-plug", "power-unplug", "screen-capture", "service-login",
                     "service-logout", "suspend-error", "trash-empty", "window-attention", "window-question"]
        #expect(theme.filter { SoundNames.known[$0] == nil } == [])
    }

    @Test func otherNamesAreMadeReadable() {
        #expect(SoundNames.madeReadable("window-question") == "Window question")
        #expect(SoundNames.readable("my_wake-up.tune") == "My wake up tune")
        #expect(SoundNames.readable("x") == "X")
        // A file the CLI gave by its path stays as given.
        #expect(SoundNames.readable("/home/me/song.ogg") == "/home/me/song.ogg")
    }
}
