import Foundation
@testable import ReveilleAgentRuntime
import ReveilleBus
import ReveilleCore
import ReveilleModel
@testable import ReveillePanel
import ReveilleRules
import ReveilleTimeZone
import Testing

/// The panel item's rules, in process: which alarm it shows, in the notification's words, the
/// menu each state offers, when its text changes, and menu ids that a stale click cannot misuse.
@Suite("Panel item policy")
struct PanelItemPolicyTests {
    let utc = GLibTimeZone(identifier: "UTC")!
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func timer(_ title: String, seconds: TimeInterval = 600) throws -> AlarmRecord {
        let request = AlarmRequest(
            schedule: nil, countdownDuration: .init(preAlert: seconds, postAlert: 300),
            presentation: AlarmPresentation(alert: .init(title: title, secondaryButton: .snoozeButton, secondaryButtonBehavior: .countdown),
                                            countdown: .init(title: title, pauseButton: .pauseButton), paused: .init(title: title)),
            secondaryIntent: nil)
        return try AlarmRecord(id: UUID(), request: request, appID: "test", now: now, timeZone: utc)
    }

    func ringing(_ title: String) throws -> AlarmRecord {
        let record = try timer(title, seconds: 60)
        guard case .updated(let fired) = record.advanced(to: record.fireDate!, lateWindow: 600, timeZone: utc) else {
            throw Failure("the timer did not fire")
        }
        return fired
    }

    func paused(_ record: AlarmRecord) throws -> AlarmRecord {
        try #require(try record.applying(.pause, now: now, timeZone: utc))
    }

    struct Failure: Error { var text: String; init(_ text: String) { self.text = text } }

    func view(_ records: [AlarmRecord], at time: Date? = nil) -> PanelItemView? {
        PanelItemView(running: records, now: time ?? now, timeZone: utc)
    }

    @Test func nothingRunningShowsNothing() throws {
        let request = AlarmRequest(schedule: .fixed(now + 3600), countdownDuration: nil,
                                   presentation: AlarmPresentation(alert: .init(title: "Wake")), ring: RingOptions())
        let alarm = try AlarmRecord(id: UUID(), request: request, appID: "test", now: now, timeZone: utc)
        #expect(alarm.state == .scheduled)
        #expect(view([alarm]) == nil, "a scheduled alarm does not run: no item")
        #expect(view([]) == nil)
    }

    /// Resting between unanswered rings (issue 52): the alert's title, which ring comes at
    /// what time, and Stop alone (Cancel would delete the alarm).
    @Test func aRestBetweenUnansweredRingsSaysWhichRingComes() throws {
        var record = try ringing("Nap")
        record.request.ring.repeatUnanswered = UnansweredRepeat(rings: 3, rest: 300)
        let limit = try #require(record.dueDate)
        guard case .ringsAgain(let resting) = record.advanced(to: limit, lateWindow: 600, timeZone: utc) else {
            throw Failure("it did not rest")
        }
        let entry = try #require(view([resting], at: limit)?.entries.first)
        #expect(entry.title == "Nap" && !entry.ringing)
        #expect(entry.line == "Unanswered · rings again at \(NotificationContent.clock(limit + 300, utc)) (2 of 3)", "\(entry.line)")
        #expect(entry.buttons.map(\.label) == ["Stop"], "\(entry.buttons)")
    }

    @Test func ringingComesFirstThenTheSoonestCountdownThenPaused() throws {
        let late = try timer("Late", seconds: 900), soon = try timer("Soon", seconds: 300)
        let held = try paused(timer("Held", seconds: 120)), bell = try ringing("Bell")
        let shown = try #require(view([held, late, bell, soon]))
        #expect(shown.entries.map(\.title) == ["Bell", "Soon", "Late", "Held"])
        #expect(shown.status == .needsAttention && shown.title == "Bell")
        let quiet = try #require(view([held, late, soon]))
        #expect(quiet.status == .active && quiet.title == "Soon")
    }

    @Test func itSaysWhatTheNotificationSays() throws {
        for record in [try timer("Pasta"), try paused(timer("Pasta")), try ringing("Pasta")] {
            let content = try #require(NotificationContent(record, now: now, timeZone: utc))
            let entry = try #require(view([record])?.entries.first)
            #expect(entry.title == content.summary)
            #expect(content.body.hasPrefix(entry.line + "\n"), "the notification's first line, word for word: \(entry.line)")
            #expect(entry.buttons == content.buttons, "the notification's buttons, same labels and roles")
        }
        let countdown = try #require(view([try timer("Pasta")]))
        #expect(countdown.toolTip.title == "Pasta" && countdown.toolTip.text == "Rings at 08:10 · 10 min left")
        #expect(countdown.menu.compactMap { if case .button(_, let role, let label) = $0 { "\(role.rawValue):\(label)" } else { nil } }
                == ["pause:Pause", "cancel:Cancel"])
        let held = try #require(view([try paused(timer("Pasta"))]))
        #expect(held.toolTip.text == "Paused · 10 min left")
        #expect(held.entries[0].buttons.map(\.role) == [.resume, .cancel])
        let bell = try #require(view([try ringing("Pasta")]))
        #expect(bell.entries[0].buttons.map(\.role) == [.stop, .secondary])
        #expect(bell.entries[0].buttons.map(\.label) == ["Stop", "Snooze"])
    }

    @Test func theTooltipChangesWhenTheNotificationsTextDoesAndNoTimerRunsOtherwise() throws {
        let record = try timer("Tea", seconds: 600)
        let wait = try #require(PanelItemView.nextRefresh([record], now: now))
        #expect(wait == NotificationContent.nextRefresh(record, now: now), "the notification's own schedule")
        let before = try #require(view([record], at: now.addingTimeInterval(wait - 0.1))).toolTip.text
        let after = try #require(view([record], at: now.addingTimeInterval(wait))).toolTip.text
        #expect(before != after, "\(before) then \(after)")
        #expect(PanelItemView.nextRefresh([try paused(record), try ringing("Bell")], now: now) == nil,
                "nothing counts down: no refresh at all")
    }

    @Test func theMenuAndTooltipNameAtMostFiveAlarms() throws {
        let records = try (1...7).map { try timer("T\($0)", seconds: TimeInterval($0) * 60) }
        let shown = try #require(view(records))
        #expect(shown.entries.map(\.title) == ["T1", "T2", "T3", "T4", "T5"] && shown.hiddenCount == 2)
        #expect(shown.toolTip.text.split(separator: "\n").last == "and 2 more")
        #expect(shown.menu.last == .heading("and 2 more"))
        #expect(shown.menu.filter { $0 == .separator }.count == 5, "one between alarms, one before the count")
    }

    @Test func aStaleClickCannotReachAnotherButton() throws {
        let record = try timer("Tea")
        let first = PanelMenu.empty.showing(try #require(view([record])).menu)
        let pause = try #require(first.items.first { if case .button(_, .pause, _) = $0.content { true } else { false } })
        #expect(first.action(for: pause.id)! == (record.id, .pause))
        #expect(first.showing(first.items.map(\.content)) == first, "the same content keeps its ids and revision")

        let held = try paused(record)
        let second = first.showing(try #require(view([held])).menu)
        #expect(second.revision == first.revision + 1)
        #expect(Set(second.items.map(\.id)).isDisjoint(with: first.items.map(\.id)), "ids are never reused")
        #expect(second.action(for: pause.id) == nil && !second.knows(pause.id), "the old Pause is unknown now")
        #expect(!PanelItemView.offers(.pause, on: held, now: now, timeZone: utc), "nor would a paused timer take it")
        #expect(PanelItemView.offers(.resume, on: held, now: now, timeZone: utc))
    }

    @Test func noTitleActsAsMarkupInTheTooltip() throws {
        let shown = try #require(view([try timer("Tea & <img src=\"/etc/x.png\"> <b>now</b>")]))
        #expect(shown.toolTip.title == "Tea \u{FF06} \u{2039}img src=\"/etc/x.png\"\u{203A} \u{2039}b\u{203A}now\u{2039}/b\u{203A}")
        #expect(!shown.toolTip.title.contains { "<>&".contains($0) } && shown.title.contains("<b>"),
                "the tooltip is markup-proof; the title property (plain by the spec) is as written")
    }

    @Test func labelsShowAsWrittenAndTheLayoutIsDbusmenus() throws {
        #expect(PanelMenu.menuLabel("al_dente_") == "al__dente__", "dbusmenu reads _ as a mnemonic")
        let menu = PanelMenu.empty.showing([.heading("Tea_time"), .separator])
        let heading = menu.items[0].id
        #expect(menu.properties(of: heading) == ["label": .string("Tea__time"), "enabled": .bool(false)])
        #expect(menu.properties(of: heading, names: ["enabled"]) == ["enabled": .bool(false)])
        #expect(menu.properties(of: menu.items[1].id) == ["type": .string("separator")])
        guard case .tuple(let root) = menu.layout(of: 0, depth: -1, names: []), root.count == 3,
              case .array("v", let children) = root[2] else {
            Issue.record("the root's layout is (ia{sv}av)"); return
        }
        #expect(root[0] == .int32(0) && root[1].dictionary?["children-display"] == .string("submenu"))
        #expect(children.count == 2)
        #expect(menu.layout(of: 0, depth: 0, names: []).signature == "(ia{sv}av)")
    }
}
