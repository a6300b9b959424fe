import Foundation
@testable import ReveilleAgentRuntime
import ReveilleBus
import ReveilleCore
import ReveilleModel
@testable import ReveilleRules
import ReveilleTimeZone
import Testing

/// The upcoming-alarm notice's rules (issue 52), in process: which alarms show one and when,
/// what it says, that a closed one stays closed for its occurrence, and what Skip does.
@Suite("Upcoming-alarm notice")
struct UpcomingNoticeTests {
    let utc = GLibTimeZone(identifier: "UTC")!
    let now = Date(timeIntervalSince1970: 1_800_000_000)  // 2027-01-15T08:00:00Z

    func alarm(_ title: String, in seconds: TimeInterval, repeating: Bool = false, wakes: Bool? = nil, timer: Bool = false) throws -> AlarmRecord {
        let fire = now.addingTimeInterval(seconds)
        let ofDay = Int(fire.timeIntervalSince1970) % 86_400
        let schedule: Alarm.Schedule? = timer ? nil : .relative(.init(time: .init(hour: ofDay / 3600, minute: ofDay / 60 % 60),
                                                                      repeats: repeating ? .weekly([.monday, .tuesday, .wednesday, .thursday, .friday, .saturday, .sunday]) : .never))
        let request = AlarmRequest(schedule: schedule, countdownDuration: timer ? .init(preAlert: seconds, postAlert: 300) : nil,
                                   presentation: AlarmPresentation(alert: .init(title: title), countdown: .init(title: title)),
                                   ring: RingOptions(wakesMachine: wakes))
        return try AlarmRecord(id: UUID(), request: request, appID: ClientIdentity.userAppID, now: now, timeZone: utc)
    }

    func shown(_ effects: [UpcomingNoticePolicy.Effect]) -> [UUID: NotificationContent] {
        var all: [UUID: NotificationContent] = [:]
        for case .show(let id, let content) in effects { all[id] = content }
        return all
    }

    func wakeAt(_ effects: [UpcomingNoticePolicy.Effect]) -> Date?? {
        for case .wake(let at) in effects { return at }
        return nil
    }

    @Test func aWakeUpAlarmShowsItsNoticeFromItsLeadWithSkipAndNoSound() throws {
        var policy = UpcomingNoticePolicy(which: .wakeUp, lead: 1800)
        let wake = try alarm("Wake up", in: 3600)
        let first = policy.reconcile([wake], now: now, timeZone: utc)
        #expect(shown(first).isEmpty, "an hour ahead, nothing yet")
        #expect(wakeAt(first) == .some(now.addingTimeInterval(1800)), "it looks again when the 30 min window opens")
        let opened = policy.reconcile([wake], now: now.addingTimeInterval(1800), timeZone: utc)
        let content = try #require(shown(opened)[wake.id])
        #expect(content.summary == "Wake up at 09:00" && content.kind == .upcoming && content.urgency == .low)
        #expect(content.buttons.map(\.key) == [.skipUpcoming] && content.buttons.map(\.label) == ["Skip this time"])
        let request = content.request()
        #expect(request.hints["suppress-sound"] == .bool(true) && request.hints["resident"] == nil)
        #expect(request.actions.map(\.key) == ["skip"])
        #expect(shown(policy.reconcile([wake], now: now.addingTimeInterval(1900), timeZone: utc)).isEmpty, "shown once, not again")
    }

    @Test func itGoesWhenTheAlarmRingsIsSkippedOrMovesAndAClosedOneStaysClosed() throws {
        var policy = UpcomingNoticePolicy(which: .wakeUp, lead: 1800)
        var daily = try alarm("Run", in: 600, repeating: true)
        _ = policy.reconcile([daily], now: now, timeZone: utc)
        #expect(policy.shown[daily.id] != nil)
        // Skipped: the next occurrence is a day ahead, outside the window.
        let skipped = try daily.skippingNextOccurrence(now: now, timeZone: utc)
        #expect(policy.reconcile([skipped], now: now, timeZone: utc).contains(.withdraw(daily.id)))
        // Shown again for the occurrence after the skip, once its window opens; closed by the
        // person, it does not come back for that occurrence, but does for the next.
        let dayLater = now.addingTimeInterval(86_400)
        _ = policy.reconcile([skipped], now: dayLater, timeZone: utc)
        #expect(policy.shown[daily.id] != nil)
        policy.closedByPerson(daily.id)
        #expect(shown(policy.reconcile([skipped], now: dayLater.addingTimeInterval(60), timeZone: utc)).isEmpty)
        daily = skipped
        daily.phase = .scheduled(fireDate: daily.fireDate!.addingTimeInterval(86_400))
        #expect(shown(policy.reconcile([daily], now: dayLater.addingTimeInterval(86_400), timeZone: utc))[daily.id] != nil,
                "the next day's occurrence has a notice of its own")
        // It rings: the notice goes.
        var ringing = daily
        ringing.phase = .alerting(since: daily.fireDate!)
        #expect(policy.reconcile([ringing], now: daily.fireDate!, timeZone: utc).contains(.withdraw(daily.id)))
    }

    @Test func whichAlarmsOptIn() throws {
        let plain = try alarm("Plain", in: 600), noWake = try alarm("No wake", in: 600, wakes: false)
        let tea = try alarm("Tea", in: 600, timer: true)
        var off = try alarm("Off", in: 600)
        off.disabled = true
        var wakeUp = UpcomingNoticePolicy(which: .wakeUp, lead: 1800)
        #expect(Set(shown(wakeUp.reconcile([plain, noWake, tea, off], now: now, timeZone: utc)).keys) == [plain.id])
        var all = UpcomingNoticePolicy(which: .all, lead: 1800)
        #expect(Set(shown(all.reconcile([plain, noWake, tea, off], now: now, timeZone: utc)).keys) == [plain.id, noWake.id], "never timers nor alarms switched off")
        var none = UpcomingNoticePolicy(which: .off, lead: 1800)
        #expect(shown(none.reconcile([plain, noWake], now: now, timeZone: utc)).isEmpty)
        // Switched off while shown: withdrawn.
        wakeUp.which = .off
        #expect(wakeUp.reconcile([plain], now: now, timeZone: utc).contains(.withdraw(plain.id)))
    }

    @Test func skippingAOneTimeAlarmEndsItAndKeepsAHistoryEntry() throws {
        var engine = AlarmEngine()
        _ = engine.load([], now: now, timeZone: utc)
        let dentist = try alarm("Dentist", in: 600)
        let scheduled = try engine.propose(.schedule(id: dentist.id, request: dentist.request, appID: ClientIdentity.userAppID),
                                           owner: nil, now: now, timeZone: utc)
        _ = engine.commit(scheduled)
        let skip = try engine.propose(.skip(id: .id(dentist.id)), owner: nil, now: now, timeZone: utc)
        #expect(skip.result == nil && skip.changes.map(\.record) == [nil], "a one-time alarm is done")
        let entry = try #require(skip.ended)
        #expect(entry.outcome == .skipped && entry.rang == nil && entry.due == dentist.fireDate && entry.by == ClientIdentity.userAppID)

        let daily = try alarm("Run", in: 600, repeating: true)
        _ = engine.commit(try engine.propose(.schedule(id: daily.id, request: daily.request, appID: ClientIdentity.userAppID),
                                             owner: nil, now: now, timeZone: utc))
        let skipDaily = try engine.propose(.skip(id: .id(daily.id)), owner: nil, now: now, timeZone: utc)
        #expect(skipDaily.result?.fireDate == daily.fireDate?.addingTimeInterval(86_400))
        #expect(skipDaily.ended?.outcome == .skipped && skipDaily.ended?.due == daily.fireDate)
    }
}
