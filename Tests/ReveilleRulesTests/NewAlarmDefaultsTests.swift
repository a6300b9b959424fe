import Foundation
import ReveilleAgentTesting
import ReveilleModel
@testable import ReveilleRules
import Testing

/// The person's defaults for new alarms (issue 50): the `sound`, `snooze` and `ringLimit`
/// settings are given, when a client asks for an alarm, to the person's own alarms that leave
/// them out (the agent's `Schedule` fills the request, then the engine makes it); an app's
/// alarm is as the app asked; an alarm already set keeps what it was given.
@Suite("New alarms' defaults")
struct NewAlarmDefaultsTests {
    typealias Harness = AlarmEngineTests.Harness
    let utc = zone("UTC")
    let start = instant("2026-11-23T06:00:00Z")

    /// A daily 06:30 alarm with a Snooze button, its snooze length, sound and ring limit as given.
    func wakeUp(snooze: TimeInterval?, sound: AlertConfiguration.AlertSound = .default, ringLimit: TimeInterval? = nil,
                fadeIn: TimeInterval? = nil) -> AlarmRequest {
        var request = request(schedule: relative(6, 30, everyDay), postAlert: 540)
        request.countdownDuration = .init(preAlert: nil, postAlert: snooze)
        request.sound = sound
        request.ring = RingOptions(fadeIn: fadeIn, ringLimit: ringLimit)
        return request
    }

    let chosen = NewAlarmDefaults(sound: "chime", snooze: 300, ringLimit: 1800)

    @Test func theUsersAlarmMadeWithoutThemIsGivenTheSettingsAndKeepsThem() throws {
        var harness = Harness(now: start, timeZone: utc)
        var defaults = chosen
        let made = try harness.schedule(defaults.filling(wakeUp(snooze: nil), appID: "reveille"))
        #expect(made.sound == .named("chime"))
        #expect(made.countdownDuration?.postAlert == 300)
        #expect(made.ring.ringLimit == 1800)
        // (That an alarm already set keeps them when the setting changes: AlarmServiceTests.)
        defaults = NewAlarmDefaults()
        let next = try harness.schedule(defaults.filling(wakeUp(snooze: nil), appID: "reveille"))
        #expect(next.sound == .default && next.countdownDuration?.postAlert == 540 && next.ring.ringLimit == nil,
                "the built-in defaults: 9 minutes, Reveille's sound, the ring limit left unsaid (10 minutes)")
    }

    @Test func whatTheAlarmSaysWins() throws {
        var harness = Harness(now: start, timeZone: utc)
        var defaults = chosen
        let own = try harness.schedule(defaults.filling(wakeUp(snooze: 120, sound: .named("bell"), ringLimit: 60), appID: "reveille"))
        #expect(own.sound == .named("bell") && own.countdownDuration?.postAlert == 120 && own.ring.ringLimit == 60)
        let longFade = try harness.schedule(defaults.filling(wakeUp(snooze: nil, ringLimit: nil, fadeIn: 500), appID: "reveille"))
        #expect(longFade.ring.fadeIn == 500)
        // A fade longer than the setting's limit: what the alarm says wins, it rings to its end.
        defaults.ringLimit = 120
        let longer = try harness.schedule(defaults.filling(wakeUp(snooze: nil, ringLimit: nil, fadeIn: 500), appID: "reveille"))
        #expect(longer.ring.ringLimit == 500 && longer.ring.fadeIn == 500)
        // With the built-in limit too (10m): a 20m fade rings 20m.
        let pastBuiltIn = try harness.schedule(NewAlarmDefaults().filling(wakeUp(snooze: nil, ringLimit: nil, fadeIn: 1200), appID: "reveille"))
        #expect(pastBuiltIn.ring.ringLimit == 1200)
    }

    @Test func anAppsAlarmIsAsTheAppAsked() throws {
        var harness = Harness(now: start, timeZone: utc)
        // AlarmKit: without a snooze length, the pre-alert stands in for it.
        let timer = try harness.schedule(chosen.filling(AlarmEngineTests().timer(600).withoutSnoozeLength, appID: "org.example.Cook"),
                                         appID: "org.example.Cook")
        #expect(timer.sound == .default && timer.ring.ringLimit == nil && timer.countdownDuration?.postAlert == nil)
        #expect(timer.countdownDuration?.postAlertOrPreAlert == 600)
        // The user's own timer without a snooze length snoozes for the person's default.
        let users = try harness.schedule(chosen.filling(AlarmEngineTests().timer(600).withoutSnoozeLength, appID: "reveille"))
        #expect(users.countdownDuration?.postAlert == 300 && users.countdownDuration?.preAlert == 600)
    }

    /// `reveille edit --secondary snooze` of an alarm made without such a button: the change is
    /// given the snooze default (the CLI had sent 9m with every alarm; it sends none now).
    @Test func aChangeThatGivesASnoozeButtonIsGivenTheSnoozeLength() throws {
        var change = AlarmEngineTests().timer(600, secondary: .snoozeButton, behavior: .countdown).withoutSnoozeLength
        change.ring.ringLimit = nil
        #expect(chosen.fillingSnooze(change, appID: "reveille").countdownDuration?.postAlert == 300)
        #expect(chosen.fillingSnooze(change, appID: "reveille").sound == .default, "a change keeps its sound as said")
        #expect(chosen.fillingSnooze(change, appID: "org.example.Cook").countdownDuration?.postAlert == nil)
    }

    @Test func noSnoozeButtonIsGivenNoSnoozeLength() throws {
        var harness = Harness(now: start, timeZone: utc)
        let plain = try harness.schedule(chosen.filling(AlarmEngineTests().timer(600, secondary: nil, behavior: nil).withoutSnoozeLength, appID: "reveille"))
        #expect(plain.countdownDuration?.postAlert == nil)
    }

    @Test func theSettingsAreReadWrittenAndRefusedByTheOneTable() throws {
        let settings = try AgentSettings(fileText: #"{"sound": "chime", "snooze": 300, "ringLimit": 1800}"#)
        #expect(settings.newAlarmDefaults == chosen)
        #expect(try AgentSettings(fileText: #"{"sound": "default"}"#).sound == nil)
        #expect(try AgentSettings(fileText: #"{"sound": "/home/me/cock.ogg"}"#).sound == "/home/me/cock.ogg")
        #expect(AgentSettings().newAlarmDefaults == NewAlarmDefaults(), "unset, the built-in defaults")
        #expect(settings.json.contains(#""sound":"chime","snooze":300,"ringLimit":1800"#))
        #expect(try AgentSettings().changed(by: AgentSettings.changes(typed: ["snooze=5m", "ringLimit=30m", "sound=default"]))
                == { var expected = AgentSettings(); expected.snooze = 300; expected.ringLimit = 1800; return expected }())
        for (text, said) in [
            (#"{"snooze": 0}"#, "snooze is 0; accepted: seconds, 1 to 86400"),
            (#"{"ringLimit": 2}"#, "ringLimit is 2; accepted: seconds, 5 to 86400"),
            (#"{"sound": ""}"#, #"sound is ""; accepted: "default" (Reveille's alarm)"#),
            (#"{"sound": "sounds/bell.ogg"}"#, "a sound file's absolute path"),
            (#"{"sound": "bell\u202e"}"#, "accepted:"),
        ] {
            #expect(throws: AlarmError.self, "\(text)") { _ = try AgentSettings(fileText: text) }
            do { _ = try AgentSettings(fileText: text) } catch { #expect("\(error)".contains(said), "\(text): \(error)") }
        }
    }
}

extension AlarmRequest {
    /// The request without its snooze length (`postAlert`), its pre-alert kept.
    var withoutSnoozeLength: AlarmRequest {
        var request = self
        request.countdownDuration = .init(preAlert: request.countdownDuration?.preAlert, postAlert: nil)
        return request
    }
}
