import Foundation
@testable import ReveilleAgentRuntime
import ReveilleBus
import ReveilleCore
import ReveilleModel
@testable import ReveilleNotifications
import ReveilleRules
@testable import ReveilleSound
import ReveilleTimeZone
import Testing

/// The presenter's rules, in process: what a notification says and offers, when a countdown's
/// text changes, and what a close while ringing leads to.
@Suite("Presentation policy")
struct PresentationPolicyTests {
    let utc = GLibTimeZone(identifier: "UTC")!
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func timer(title: String = "Tea", secondary: AlarmButton? = .snoozeButton,
               behavior: AlarmPresentation.Alert.SecondaryButtonBehavior? = .countdown,
               intent: AlarmIntent? = nil, seconds: TimeInterval = 600) throws -> AlarmRecord {
        let request = AlarmRequest(
            schedule: nil, countdownDuration: .init(preAlert: seconds, postAlert: 300),
            presentation: AlarmPresentation(alert: .init(title: title, secondaryButton: secondary, secondaryButtonBehavior: behavior),
                                            countdown: .init(title: title, pauseButton: .pauseButton), paused: .init(title: title)),
            secondaryIntent: intent)
        return try AlarmRecord(id: UUID(), request: request, appID: "test", now: now, timeZone: utc)
    }

    func alerting(_ record: AlarmRecord) throws -> AlarmRecord {
        guard case .updated(let fired) = record.advanced(to: record.fireDate!, lateWindow: 600, timeZone: utc) else {
            throw Failure("the timer did not fire")
        }
        return fired
    }

    struct Failure: Error { var text: String; init(_ text: String) { self.text = text } }

    @Test func everyButtonHasItsOwnKeyWhateverItsIconOrBehaviour() throws {
        // A custom Run button whose behaviour is "stop" once shared the key "stop" with Stop.
        let custom = try alerting(timer(secondary: AlarmButton(text: "Run", textColor: .white, systemImageName: "media-playback-stop"),
                                        behavior: .custom, intent: .run(arguments: ["/usr/bin/true"])))
        let alert = try #require(NotificationContent(custom, now: now, timeZone: utc))
        #expect(alert.buttons.map(\.role) == [.stop, .secondary])
        #expect(alert.buttons.map(\.label) == ["Stop", "Run"])
        #expect(alert.buttons.map { AlarmEngine.action(for: $0.role!, of: custom) } == [.stop, nil],
                "a custom button leaves the alarm's state alone, as in AlarmKit")
        for state in try [timer(), timer().applying(.pause, now: now, timeZone: utc)!] {
            let content = try #require(NotificationContent(state, now: now, timeZone: utc))
            #expect(Set(content.buttons.map(\.role)).count == content.buttons.count)
        }
    }

    @Test func noticesThePromptAndAlarmsAreRenderedByOneRenderer() throws {
        let missed = NotificationContent.missed(try timer(title: "Tea\u{7}"), due: now, reason: .late, timeZone: utc)
        #expect(missed.summary == "Missed: Tea" && missed.body.hasPrefix("It was due at 2027-01-15 08:00 "), "\(missed)")
        #expect(missed.buttons.map(\.key) == [.dismiss] && missed.request().actions.map(\.key) == ["default"])
        #expect(missed.request().hints["resident"] == nil, "a notice goes when it is answered")
        let prompt = NotificationContent.authorizationPrompt(appID: "org.example.Cook", usageDescription: "Timers\u{1B}[2J for <b>recipes</b>")
        #expect(prompt.summary == "org.example.Cook wants to schedule alarms")
        #expect(prompt.body == "Timers [2J for <b>recipes</b>\nTo answer: reveille auth allow org.example.Cook (or deny)", "made displayable here; markup is escaped by the server's profile")
        #expect(prompt.request().actions.map(\.key) == ["allow", "deny"] && prompt.request().hints["resident"] == .bool(true))
        let alert = try #require(NotificationContent(alerting(timer()), now: now, timeZone: utc))
        #expect(alert.request(soundingItself: true).hints["suppress-sound"] == .bool(true))
        #expect(alert.request(soundingItself: false).hints["sound-name"] == .string(SoundLibrary.themeFallback),
                "a server may ring the theme's alarm when Reveille cannot")
        #expect(alert.request().hints["urgency"] == .byte(2) && alert.request().hints["category"] == .string("x-reveille.alarm"))
    }

    @Test func everyBodySaysHowToAnswerFromATerminalAndNamesItsAlarm() throws {
        let record = try timer()
        let short = record.id.uuidString.lowercased().prefix(8)
        let countdown = try #require(NotificationContent(record, now: now, timeZone: utc))
        #expect(countdown.body.contains("reveille pause \(short)"))
        let alert = try #require(NotificationContent(alerting(record), now: now, timeZone: utc))
        #expect(alert.urgency == .critical)
        #expect(alert.body.contains("To stop: reveille stop \(short)"))
        #expect(alert.body.contains("To snooze: reveille snooze \(short)"))
        // Two alarms with one title never have the same text (dunst would stack them).
        let other = try #require(NotificationContent(alerting(timer()), now: now, timeZone: utc))
        #expect(other.summary == alert.summary && other.body != alert.body)
    }

    @Test func textFromAppsIsBoundedAndHarmless() {
        let zalgo = "a" + String(repeating: "\u{0301}", count: 40_000)
        let shown = NotificationContent.displayable(zalgo)
        #expect(shown.unicodeScalars.count <= 8)
        #expect(NotificationContent.displayable("Tea\u{1B}[2J\u{7}\u{202E}time").unicodeScalars.allSatisfy {
            ![.control, .format].contains($0.properties.generalCategory)
        })
        let label = NotificationContent.label(String(repeating: "x", count: 100_000), or: "Stop")
        #expect(label.count == 40 && label.hasSuffix("…"))
        #expect(NotificationContent.label("\u{0}\u{7}  ", or: "Stop") == "Stop")
    }

    @Test func timeLeftIsNeverAMinuteHighAndOnlyCountsDown() {
        #expect(NotificationContent.timeLeft(62) == "1 min")
        #expect(NotificationContent.timeLeft(119) == "2 min")
        #expect(NotificationContent.timeLeft(89) == "1 min")
        #expect(NotificationContent.timeLeft(3600) == "1 h 0 min")
        #expect(NotificationContent.timeLeft(45) == "50 s")
        #expect(NotificationContent.timeLeft(1) == "10 s")
        // Every second of a 25-minute countdown: the number shown never goes up, never skips
        // a minute, and is never more than half a minute off.
        var previous = Int.max
        var shown: [String] = []
        for left in stride(from: 1500.0, through: 51, by: -1) {
            let text = NotificationContent.timeLeft(left)
            let minutes = Int(text.split(separator: " ")[0])!
            #expect(minutes <= previous)
            #expect(abs(Double(minutes) * 60 - left) <= 30)
            if minutes != previous { shown.append(text) }
            previous = minutes
        }
        #expect(shown.count == 25, "each minute from 25 down to 1 shown once: \(shown)")
    }

    @Test func countdownRefreshesJustAfterItsTextChanges() throws {
        let record = try timer(seconds: 1200)
        var time = now
        var texts: [String] = []
        // Follow the refreshes as the presenter would, from 20 minutes down to the end.
        while let wait = NotificationContent.nextRefresh(record, now: time) {
            let before = NotificationContent.timeLeft(record.fireDate!.timeIntervalSince(time))
            time = time.addingTimeInterval(wait)
            let after = NotificationContent.timeLeft(record.fireDate!.timeIntervalSince(time))
            #expect(before != after, "a refresh at \(record.fireDate!.timeIntervalSince(time)) s left changed nothing")
            #expect(NotificationContent.timeLeft(record.fireDate!.timeIntervalSince(time) + 0.1) == before,
                    "the refresh came late: the text had already changed")
            texts.append(after)
        }
        #expect(texts.first == "19 min")
        #expect(texts.suffix(5) == ["50 s", "40 s", "30 s", "20 s", "10 s"])
        #expect(Set(texts).count == texts.count, "no text shown twice: \(texts)")
    }

    @Test func aClosedAlertComesBackAFewTimesWithGrowingPausesThenStaysAway() {
        var policy = AlertReshowPolicy()
        var pauses: [Double] = []
        while case .reshow(let pause) = policy.closed(reason: 2, afterAction: false) { pauses.append(pause) }
        #expect(pauses == AlertReshowPolicy.pauses)
        #expect(pauses == pauses.sorted() && pauses.count <= 5)
        #expect(policy.closed(reason: 2, afterAction: false) == .giveUp)

        var answered = AlertReshowPolicy()
        #expect(answered.closed(reason: 2, afterAction: true) == .ignore, "a server closing after a button press")
        var expired = AlertReshowPolicy()
        #expect(expired.closed(reason: 1, afterAction: false) == .reshow(after: 10), "the server's own close: no hurry")
    }

    @Test func serverQuirksAreKnownByTheServersOwnName() {
        let xfce = NotificationServerProfile(name: "Xfce Notify Daemon", version: "0.7.3", capabilities: ["actions", "action-icons"])
        #expect(xfce.quirks.contains(.valueHintHidesEverything))
        #expect(NotificationServerProfile(name: "dunst", version: "1.9.0", capabilities: []).quirks == [.stacksDuplicates, .actionsNeedMenu])
        #expect(NotificationServerProfile(name: "some-new-server", version: "1", capabilities: ["actions"]).quirks.isEmpty)
        #expect(NotificationClient.escapingMarkup("<a href='x'>&</a>") == "&lt;a href='x'&gt;&amp;&lt;/a&gt;")
    }
}
