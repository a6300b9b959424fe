import Foundation
@testable import ReveilleAgentRuntime
import ReveilleCore
import ReveilleModel
import ReveilleRules
import ReveilleTimeZone
import Testing

/// Issue 27: an alert offers a longer snooze as a third button where the server draws buttons a
/// click answers, and only for an alarm whose second button snoozes.
@Suite("Longer snooze on the alert")
struct LongerSnoozeTests {
    let utc = GLibTimeZone(identifier: "UTC")!
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func ringing(secondary: AlarmButton? = .snoozeButton, behavior: AlarmPresentation.Alert.SecondaryButtonBehavior? = .countdown,
                 snooze: TimeInterval = 540) throws -> AlarmRecord {
        let request = AlarmRequest(
            schedule: nil, countdownDuration: .init(preAlert: 60, postAlert: snooze),
            presentation: AlarmPresentation(alert: .init(title: "Tea", secondaryButton: secondary, secondaryButtonBehavior: behavior)),
            secondaryIntent: behavior == .custom ? .run(arguments: ["/usr/bin/true"]) : nil)
        var record = try AlarmRecord(id: UUID(), request: request, appID: "test", now: now, timeZone: utc)
        record.phase = .alerting(since: now)
        return record
    }

    @Test func aSnoozingAlertOffersTwentyMinutesAsAThirdButtonWhereTheServerAnswersClicks() throws {
        let alert = try #require(NotificationContent(ringing(), now: now, timeZone: utc, buttonsAnswer: true))
        #expect(alert.buttons.map(\.label) == ["Stop", "Snooze", "Snooze 20 min"])
        #expect(alert.request().actions.map(\.key) == ["stop", "secondary", "secondary:1200"])
        #expect(alert.buttons.map(\.role) == [.stop, .secondary, .secondary] && alert.buttons.map(\.snoozeLength) == [nil, nil, 1200])
        let plain = try #require(NotificationContent(ringing(), now: now, timeZone: utc))
        #expect(plain.buttons.map(\.label) == ["Stop", "Snooze"], "not offered unless the server draws it")
    }

    @Test func theLongerChoiceIsLongerThanTheAlarmsOwnAndOnlyForASnooze() throws {
        #expect(try NotificationContent.longerSnooze(for: ringing(snooze: 1200)) == 3600)
        #expect(try NotificationContent.longerSnooze(for: ringing(snooze: 3600)) == nil)
        #expect(try NotificationContent.longerSnooze(for: ringing(secondary: .repeatButton)) == nil, "Repeat is not a snooze")
        #expect(try NotificationContent.longerSnooze(for: ringing(secondary: .openAppButton, behavior: .custom)) == nil)
        #expect(try NotificationContent.longerSnooze(for: ringing(secondary: nil, behavior: nil)) == nil)
        #expect(NotificationContent.snoozeLabel(3600) == "Snooze 1 h")
    }

    @Test func pressingItCarriesItsLengthToTheRuntime() throws {
        var machine = PresentationMachine()
        machine.buttonsAnswer = true
        let record = try ringing()
        let effects = machine.present(record, now: now, timeZone: utc, soundingItself: true)
        guard case .show(_, let generation, let request, _)? = effects.first(where: { if case .show = $0 { true } else { false } }) else {
            Issue.record("nothing shown: \(effects)"); return
        }
        #expect(request.actions.map(\.key).contains("secondary:1200"))
        #expect(machine.pressed(record.id, generation: generation, key: "secondary:1200") == [.button(record.id, .secondary, snoozeLength: 1200)])
    }

    @Test func onlyAServerWhoseButtonsAClickAnswersIsOfferedIt() {
        #expect(NotificationReach.of(NotificationServerProfile(name: "gnome-shell", version: "43", capabilities: ["actions"])) == .answerable)
        #expect(NotificationReach.of(NotificationServerProfile(name: "dunst", version: "1.9.0", capabilities: ["actions"])) == .seenOnly)
        #expect(NotificationReach.of(NotificationServerProfile(name: "mako", version: "1.7", capabilities: [])) == .seenOnly)
    }
}
