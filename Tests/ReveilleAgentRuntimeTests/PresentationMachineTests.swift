import Foundation
@testable import ReveilleAgentRuntime
import ReveilleCore
import ReveilleModel
import ReveilleRules
import ReveilleTimeZone
import Testing

/// The notifications' rules in process: the machine gets the alarms' changes and the
/// server's answers, and the tests read what it asks the server and the timers to do.
@Suite("Presentation machine")
struct PresentationMachineTests {
    let utc = GLibTimeZone(identifier: "UTC")!
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let policy = PresentationPolicyTests()

    /// The `show` effects: alarm, generation and the id it replaces.
    func shows(_ effects: [PresentationMachine.Effect]) -> [(id: UUID, generation: Int, replacing: UInt32)] {
        effects.compactMap { if case .show(let id, let generation, _, let replacing) = $0 { (id, generation, replacing) } else { nil } }
    }

    func reshows(_ effects: [PresentationMachine.Effect]) -> [TimeInterval] {
        effects.compactMap { if case .scheduleReshow(_, _, let after) = $0 { after } else { nil } }
    }

    /// Presents `record` and answers its show with `shownID`.
    func shown(_ machine: inout PresentationMachine, _ record: AlarmRecord, as shownID: UInt32) throws {
        let show = try #require(shows(machine.present(record, now: now, timeZone: utc, soundingItself: true)).first)
        _ = machine.shown(record.id, generation: show.generation, shownID: shownID, current: record, now: now, timeZone: utc, soundingItself: true)
    }

    /// An alarm ringing (shown as 1) and a timer counting down (shown as 2).
    func ringingAndCountingDown(_ machine: inout PresentationMachine) throws -> (AlarmRecord, AlarmRecord) {
        let ringing = try policy.alerting(policy.timer(title: "A"))
        let countdown = try policy.timer(title: "B")
        try shown(&machine, ringing, as: 1)
        try shown(&machine, countdown, as: 2)
        return (ringing, countdown)
    }

    @Test func aCountdownUpdatesInPlaceAndItsAlertComesFresh() throws {
        var machine = PresentationMachine()
        let timer = try policy.timer(seconds: 600)
        try shown(&machine, timer, as: 7)
        let later = try #require(try timer.applying(.pause, now: now.addingTimeInterval(60), timeZone: utc))
        let paused = machine.present(later, now: now, timeZone: utc, soundingItself: true)
        #expect(shows(paused).map(\.replacing) == [7], "paused replaces the countdown in place")
        _ = machine.shown(timer.id, generation: shows(paused)[0].generation, shownID: 7, current: later, now: now, timeZone: utc, soundingItself: true)
        let ringing = try policy.alerting(timer)
        let alert = machine.present(ringing, now: now, timeZone: utc, soundingItself: true)
        #expect(!alert.contains(.close(7)) && shows(alert).map(\.replacing) == [0], "an alert is a new notification")
        // The countdown goes once the server answered for the alert, never in the same instant.
        #expect(machine.shown(timer.id, generation: shows(alert)[0].generation, shownID: 8, current: ringing, now: now,
                              timeZone: utc, soundingItself: true) == [.close(7)])
        #expect(machine.present(ringing, now: now, timeZone: utc, soundingItself: true).isEmpty, "nothing new: nothing sent")
    }

    /// GNOME Shell gives no banner to a fresh alert sent while the countdown it replaces is on
    /// screen: there the countdown is closed first, in the same turn, before the alert is sent.
    @Test func whereTheServerNeedsItTheOldNotificationIsClosedBeforeTheFreshOne() throws {
        var machine = PresentationMachine()
        machine.closeBeforeFresh = true
        let timer = try policy.timer(seconds: 600)
        try shown(&machine, timer, as: 7)
        let ringing = try policy.alerting(timer)
        let alert = machine.present(ringing, now: now, timeZone: utc, soundingItself: true)
        let close = try #require(alert.firstIndex(of: .close(7)))
        let show = try #require(alert.firstIndex { if case .show = $0 { true } else { false } })
        #expect(close < show && shows(alert).map(\.replacing) == [0])
        #expect(machine.shown(timer.id, generation: shows(alert)[0].generation, shownID: 8, current: ringing, now: now,
                              timeZone: utc, soundingItself: true).isEmpty, "nothing left to close")
    }

    @Test func aChangeWhileTheServerIsAskedIsShownWhenItAnswers() throws {
        var machine = PresentationMachine()
        let timer = try policy.timer(seconds: 600)
        let first = try #require(shows(machine.present(timer, now: now, timeZone: utc, soundingItself: true)).first)
        let paused = try #require(try timer.applying(.pause, now: now.addingTimeInterval(30), timeZone: utc))
        #expect(machine.present(paused, now: now, timeZone: utc, soundingItself: true).isEmpty, "one Notify at a time")
        let answer = machine.shown(timer.id, generation: first.generation, shownID: 3, current: paused, now: now, timeZone: utc, soundingItself: true)
        #expect(shows(answer).map(\.replacing) == [3])
    }

    @Test func aNotificationWithdrawnWhileAskedIsClosedWhenItAppears() throws {
        var machine = PresentationMachine()
        let timer = try policy.timer()
        let first = try #require(shows(machine.present(timer, now: now, timeZone: utc, soundingItself: true)).first)
        #expect(machine.withdraw(timer.id).contains(.cancelRefresh(timer.id)))
        #expect(machine.shown(timer.id, generation: first.generation, shownID: 9, current: nil, now: now, timeZone: utc, soundingItself: true) == [.close(9)])
    }

    @Test func aClosedAlertComesBackUnlessAButtonClosedIt() throws {
        var machine = PresentationMachine()
        let ringing = try policy.alerting(policy.timer())
        try shown(&machine, ringing, as: 5)
        let generation = try #require(machine.slots[ringing.id]?.generation)
        #expect(reshows(machine.closed(ringing.id, generation: generation, shownID: 5, reason: 2)) == [0.25], "dismissed: back at once")
        let again = machine.reshowDue(ringing.id, generation: generation, current: ringing, now: now, timeZone: utc, soundingItself: true)
        #expect(shows(again).map(\.replacing) == [0])
        _ = machine.shown(ringing.id, generation: generation, shownID: 6, current: ringing, now: now, timeZone: utc, soundingItself: true)
        #expect(machine.pressed(ringing.id, generation: generation, key: "stop") == [.button(ringing.id, .stop)])
        #expect(machine.closed(ringing.id, generation: generation, shownID: 6, reason: 2).isEmpty, "closed after Stop: the change follows")
        #expect(machine.closed(ringing.id, generation: generation, shownID: 99, reason: 2).isEmpty, "another notification's close is not this one's")
    }

    @Test func anExpiredAlertWaitsLongerAndADismissedCountdownStaysAway() throws {
        var machine = PresentationMachine()
        let ringing = try policy.alerting(policy.timer())
        try shown(&machine, ringing, as: 5)
        let generation = try #require(machine.slots[ringing.id]?.generation)
        #expect(reshows(machine.closed(ringing.id, generation: generation, shownID: 5, reason: 1)) == [10], "dunst's stacked duplicate")
        let countdown = try policy.timer()
        try shown(&machine, countdown, as: 8)
        _ = machine.closed(countdown.id, generation: try #require(machine.slots[countdown.id]?.generation), shownID: 8, reason: 2)
        let refreshed = machine.present(countdown, now: now.addingTimeInterval(120), timeZone: utc, soundingItself: true)
        #expect(shows(refreshed).isEmpty, "a countdown the user dismissed stays away until it changes state")
    }

    @Test func aCustomButtonBringsTheAlertBackAtOnce() throws {
        var machine = PresentationMachine()
        let custom = try policy.alerting(policy.timer(secondary: AlarmButton(text: "Run", textColor: .white, systemImageName: "system-run"),
                                                      behavior: .custom, intent: .run(arguments: ["/usr/bin/true"])))
        try shown(&machine, custom, as: 4)
        let generation = try #require(machine.slots[custom.id]?.generation)
        #expect(machine.pressed(custom.id, generation: generation, key: "secondary") == [.button(custom.id, .secondary)])
        let after = machine.afterPress(custom.id, role: .secondary, current: custom, now: now, timeZone: utc, soundingItself: true)
        #expect(!after.contains(.close(4)) && shows(after).map(\.replacing) == [0])
        #expect(machine.shown(custom.id, generation: generation, shownID: 4, current: custom, now: now, timeZone: utc,
                              soundingItself: true).isEmpty, "the server gave the closed one's id to the new one: nothing to close")
        #expect(machine.afterPress(custom.id, role: .stop, current: custom, now: now, timeZone: utc, soundingItself: true).isEmpty)
    }

    @Test func aReplacedNotificationWithdrawnBeforeTheServerAnswersIsClosedWithTheNewOne() throws {
        var machine = PresentationMachine()
        let timer = try policy.timer(seconds: 600)
        try shown(&machine, timer, as: 7)
        let alert = machine.present(try policy.alerting(timer), now: now, timeZone: utc, soundingItself: true)
        let withdrawn = machine.withdraw(timer.id)
        #expect(withdrawn.contains(.close(7)), "the countdown the alert was to replace")
        #expect(machine.shown(timer.id, generation: shows(alert)[0].generation, shownID: 8, current: nil, now: now,
                              timeZone: utc, soundingItself: true) == [.close(8)])
    }

    @Test func alertsADroppingServerLostAreShownAgainFresh() throws {
        var machine = PresentationMachine()
        let (ringing, countdown) = try ringingAndCountingDown(&machine)
        let again = machine.showAlertsAgain([ringing, countdown], now: now, timeZone: utc, soundingItself: { _ in true })
        #expect(shows(again).map(\.id) == [ringing.id] && shows(again).map(\.replacing) == [0], "the alert only, as a new notification")
        #expect(machine.shown(ringing.id, generation: shows(again)[0].generation, shownID: 3, current: ringing, now: now,
                              timeZone: utc, soundingItself: true) == [.close(1)])
    }

    @Test func terminalCommandsOnlyWhereButtonsMayNotAnswer() throws {
        var machine = PresentationMachine()
        let ringing = try policy.alerting(policy.timer())
        let bodies = { (machine: inout PresentationMachine) in
            machine.present(ringing, now: self.now, timeZone: self.utc, soundingItself: true).compactMap {
                if case .show(_, _, let request, _) = $0 { request.body } else { nil }
            }
        }
        #expect(bodies(&machine).allSatisfy { $0.contains("reveille stop") }, "reach not known yet: the commands stay")
        var answering = PresentationMachine()
        answering.buttonsAnswer = true
        let answered = bodies(&answering)
        #expect(answered.count == 1 && answered.allSatisfy { !$0.contains("reveille") }, "\(answered)")
    }

    @Test func whenTheServerGoesAnAlertIsAskedForAgainAndANewServerGetsEverything() throws {
        var machine = PresentationMachine()
        let (ringing, countdown) = try ringingAndCountingDown(&machine)
        let gone = machine.serverChanged(present: false, alarms: [], now: now, timeZone: utc, soundingItself: { _ in true })
        #expect(reshows(gone) == [0.25], "the alert only: asking again starts an activatable server")
        let back = machine.serverChanged(present: true, alarms: [ringing, countdown], now: now, timeZone: utc, soundingItself: { _ in true })
        #expect(Set(shows(back).map(\.id)) == [ringing.id, countdown.id] && shows(back).allSatisfy { $0.replacing == 0 },
                "a new server knows none of our notifications")
    }

    @Test func aCountdownAsksToBeRedrawnWhenItsTextChanges() throws {
        var machine = PresentationMachine()
        let timer = try policy.timer(seconds: 600)
        let effects = machine.present(timer, now: now, timeZone: utc, soundingItself: true)
        let refresh = effects.compactMap { if case .scheduleRefresh(_, _, let after) = $0 { after } else { nil } }
        #expect(refresh == [NotificationContent.nextRefresh(timer, now: now)!])
        _ = machine.shown(timer.id, generation: try #require(shows(effects).first).generation, shownID: 3, current: timer,
                          now: now, timeZone: utc, soundingItself: true)
        let alert = machine.present(try policy.alerting(timer), now: now, timeZone: utc, soundingItself: true)
        #expect(alert.contains(.cancelRefresh(timer.id)) && !alert.contains { if case .scheduleRefresh = $0 { true } else { false } },
                "an alert's text does not count down")
    }

    /// A countdown closed by the user while its update was being asked for is on screen again
    /// once the server answers: it keeps counting down (a "dismissed" flag beside a shown
    /// notification once froze it).
    @Test func aCountdownClosedWhileItsUpdateIsAskedForKeepsCountingDownWhenShownAgain() throws {
        var machine = PresentationMachine()
        let timer = try policy.timer(seconds: 600)
        try shown(&machine, timer, as: 7)
        let update = machine.present(timer, now: now.addingTimeInterval(120), timeZone: utc, soundingItself: true)
        let generation = try #require(shows(update).first).generation
        #expect(shows(update).map(\.replacing) == [7], "updated in place")
        #expect(machine.closed(timer.id, generation: generation, shownID: 7, reason: 2).isEmpty)
        #expect(machine.shown(timer.id, generation: generation, shownID: 8, current: timer, now: now, timeZone: utc,
                              soundingItself: true).isEmpty)
        let next = machine.present(timer, now: now.addingTimeInterval(240), timeZone: utc, soundingItself: true)
        #expect(shows(next).map(\.replacing) == [8], "the countdown on screen is updated, not left stale")
        #expect(machine.slots[timer.id]?.screen == .asking(.init(previous: .updatedInPlace(8, answered: false))))
    }
}
