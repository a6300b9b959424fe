import Foundation
@testable import ReveilleAgentRuntime
import ReveilleBus
import ReveilleCore
@testable import ReveilleMedia
import ReveilleModel
import ReveilleRules
import ReveilleTimeZone
import Testing

/// The media player's rules, in process: which button a media key presses, what the player
/// shows, which other players are quieted and how, and what the screen lockers' signals mean.
@Suite("Media player policy")
struct MediaPolicyTests {
    let utc = GLibTimeZone(identifier: "UTC")!
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func ringing(_ title: String, secondary: AlarmButton? = nil, behavior: AlarmPresentation.Alert.SecondaryButtonBehavior? = nil,
                 since: TimeInterval = 0) -> AlarmRecord {
        let request = AlarmRequest(schedule: nil, countdownDuration: .init(preAlert: 60, postAlert: 300),
                                   presentation: AlarmPresentation(alert: .init(title: title, secondaryButton: secondary, secondaryButtonBehavior: behavior)))
        return AlarmRecord(id: UUID(), request: request, appID: "test", phase: .alerting(since: now + since))
    }

    func view(_ records: [AlarmRecord]) -> RingingPlayerView? { RingingPlayerView(ringing: records, now: now, timeZone: utc) }

    @Test func playPausePressesSnoozeOrRepeatAndNextAndStopStop() throws {
        let snoozing = try #require(view([ringing("Tea", secondary: .snoozeButton, behavior: .countdown)]))
        #expect(["Play", "Pause", "PlayPause"].map(snoozing.button(for:)) == [.secondary, .secondary, .secondary])
        #expect(["Next", "Stop"].map(snoozing.button(for:)) == [.stop, .stop])
        #expect(["Previous", "Seek", "SetPosition", "OpenUri", "Raise"].allSatisfy { snoozing.button(for: $0) == nil })
        #expect(snoozing.title == "Tea" && snoozing.artist == "Snooze · Stop" && snoozing.album == "Play/Pause: Snooze · Next: Stop")

        let repeating = try #require(view([ringing("Lap", secondary: .repeatButton, behavior: .countdown)]))
        #expect(repeating.button(for: "PlayPause") == .secondary && repeating.artist == "Repeat · Stop"
                && repeating.album == "Play/Pause: Repeat · Next: Stop")
    }

    /// The player's methods are one table: what the XML declares, what a key presses and what the
    /// gate lets past other clients' use are read from it, and agree.
    @Test func theMethodTableIsWhatTheXMLDeclaresTheKeysPressAndTheGateLetsThrough() throws {
        let snoozing = try #require(view([ringing("Tea", secondary: .snoozeButton, behavior: .countdown)]))
        let declared = MPRISInterfaces.xml.matches(of: /<method name="(\w+)"/).map { String($0.1) }
        #expect(declared.sorted() == MPRISMethod.allCases.map(\.name).sorted())
        for method in MPRISMethod.allCases {
            #expect((snoozing.button(for: method.name) != nil) == method.answersAlarm, "\(method.name)")
        }
        #expect(MPRISMethod.answering == ["Play", "Pause", "PlayPause", "Next", "Stop"])
        #expect(MPRISMethod(named: "Nope") == nil && snoozing.button(for: "Nope") == nil)
    }

    @Test func withoutARecoverableButtonPlayStopsAndACustomButtonIsNeverPressed() throws {
        let plain = try #require(view([ringing("Plain")]))
        #expect(plain.button(for: "PlayPause") == .stop && plain.artist == "Stop" && plain.album == "Play/Pause: Stop · Next: Stop")
        let custom = try #require(view([ringing("Open", secondary: .openAppButton, behavior: .custom)]))
        #expect(["Play", "Pause", "PlayPause", "Next", "Stop"].allSatisfy { custom.button(for: $0) == .stop })
        #expect(custom.artist == "Stop" && custom.album == "Play/Pause: Stop · Next: Stop")
    }

    @Test func severalRingingAnswerTheNewestAlertAndTheTitleCountsThem() throws {
        let older = ringing("First", secondary: .snoozeButton, behavior: .countdown)
        let newer = ringing("Second", since: 30)
        let shown = try #require(view([older, newer]))
        #expect(shown.alarm == newer.id && shown.button(for: "Play") == .stop)
        #expect(shown.title == "Second (2 alarms ring)")
        #expect(shown.trackID == "/io/github/reveille/Alarm/" + newer.id.uuidString.lowercased().filter { $0 != "-" })
        #expect(view([]) == nil)
    }

    @Test func onlyOtherPlayersThatPlayAreQuietedPausedOrStoppedWhereTheyCannotPause() {
        let names = ["org.mpris.MediaPlayer2.reveille", "org.mpris.MediaPlayer2.vlc", "org.mpris.MediaPlayer2.", "org.example.Music",
                     "org.mpris.MediaPlayer2.spotify", ":1.42"]
        #expect(OtherPlayers.players(among: names, ours: MPRISInterfaces.busName) == ["org.mpris.MediaPlayer2.spotify", "org.mpris.MediaPlayer2.vlc"])
        let many = (0..<1000).map { "org.mpris.MediaPlayer2.p\($0)" }
        #expect(OtherPlayers.players(among: many, ours: MPRISInterfaces.busName).count == OtherPlayers.maximumPlayers)

        // Paused (or stopped) as the pause left it is the alarm's doing; anything else the person's.
        #expect(!OtherPlayers.personTookOver("Paused", after: .pause) && !OtherPlayers.personTookOver("Stopped", after: .stop))
        #expect(OtherPlayers.personTookOver("Playing", after: .pause) && OtherPlayers.personTookOver("Stopped", after: .pause))
        #expect(OtherPlayers.quieting(["PlaybackStatus": .string("Playing"), "CanPause": .bool(true), "CanControl": .bool(true)]) == .pause)
        #expect(OtherPlayers.quieting(["PlaybackStatus": .string("Playing")]) == .pause, "absent flags read as able")
        #expect(OtherPlayers.quieting(["PlaybackStatus": .string("Playing"), "CanPause": .bool(false)]) == .stop)
        #expect(OtherPlayers.quieting(["PlaybackStatus": .string("Playing"), "CanControl": .bool(false)]) == nil)
        #expect(OtherPlayers.quieting(["PlaybackStatus": .string("Paused")]) == nil)
        #expect(OtherPlayers.quieting(["PlaybackStatus": .string("Stopped")]) == nil)
        #expect(OtherPlayers.quieting([:]) == nil)
    }

    @Test func anUnlockIsALockerSayingSoNotALockerLeaving() {
        var lock = SessionLock()
        let gnome = "org.gnome.ScreenSaver", kde = "org.freedesktop.ScreenSaver"
        #expect(lock.owner(of: gnome, is: ":1.5") == .none)
        #expect(lock.locker(gnome, from: ":1.9", says: true) == .none, "a signal from another connection than the name's owner")
        #expect(!lock.isLocked)
        #expect(lock.locker(gnome, from: ":1.5", says: true) == .locked)
        #expect(lock.locker(gnome, from: ":1.5", says: true) == .none)
        #expect(lock.owner(of: kde, is: ":1.6") == .none)
        #expect(lock.locker(kde, from: ":1.6", says: false) == .none, "still locked by GNOME's")
        #expect(lock.locker(gnome, from: ":1.5", says: false) == .unlocked)

        #expect(lock.locker(gnome, from: ":1.5", says: true) == .locked)
        #expect(lock.owner(of: gnome, is: nil) == .none, "the locker went away: nobody unlocked in front of the screen")
        #expect(!lock.isLocked)
    }

    @Test func lightLockerIsTheLockerThatSilencesAlarms() {
        var lock = SessionLock()
        _ = lock.owner(of: "org.freedesktop.ScreenSaver", is: ":1.7")
        #expect(lock.silencingLocker == nil && lock.lockerDescriptions == ["org.freedesktop.ScreenSaver"])
        lock.locker("org.freedesktop.ScreenSaver", owner: ":1.8", isProcess: "light-locker")
        #expect(lock.silencingLocker == nil, "not the owner's process")
        lock.locker("org.freedesktop.ScreenSaver", owner: ":1.7", isProcess: "light-locker")
        #expect(lock.silencingLocker == "light-locker" && lock.lockerDescriptions == ["light-locker"])
    }

    @Test func logindsHintLocksAndUnlocksButIsNoLockerToName() {
        var lock = SessionLock()
        _ = lock.owner(of: SessionLock.logind, is: ":1.2")
        #expect(lock.locker(SessionLock.logind, from: ":1.2", says: true) == .locked)
        #expect(lock.lockerDescriptions.isEmpty)
        #expect(lock.locker(SessionLock.logind, from: ":1.2", says: false) == .unlocked)
    }

    /// A screen saver toggled as fast as the bus carries signals: four lines a burst, then one
    /// saying how many were left out.
    @Test func lockChangesAreLoggedFourABurstThenCounted() {
        var log = LockChangeLog()
        let first = (0..<10).map { log.note(at: Double($0) * 0.01) }
        #expect(first.map(\.log) == [true, true, true, true] + Array(repeating: false, count: 6))
        #expect(first.allSatisfy { $0.endedQuieted == 0 } && log.quieted == 6)
        // The next change after the burst says what it left out, and is logged itself.
        let next = log.note(at: 20)
        #expect(next.log && next.endedQuieted == 6)
        #expect(log.close() == 0)
    }
}
