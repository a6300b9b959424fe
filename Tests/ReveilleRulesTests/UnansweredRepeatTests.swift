import Foundation
import ReveilleAgentTesting
import ReveilleModel
@testable import ReveilleRules
import Testing

/// Ring, rest, ring again, then stop (issue 52): an occurrence nobody answers rings its
/// `repeatUnanswered` times in all, a rest apart, then is missed; a restart in the middle goes
/// on; Stop ends the chain, a snooze is an answer. On virtual time, in process.
@Suite("Unanswered repeat")
struct UnansweredRepeatTests {
    typealias Harness = AlarmEngineTests.Harness
    let utc = zone("UTC")
    let start = instant("2026-11-23T06:00:00Z")

    /// A daily 06:30 alarm that rings 60 s unanswered, with `plan` of its own.
    func wakeUp(_ plan: UnansweredRepeat?) -> AlarmRequest {
        var request = request(schedule: relative(6, 30, everyDay), postAlert: 540)
        request.presentation.alert.title = "Wake up"
        request.ring = RingOptions(ringLimit: 60, repeatUnanswered: plan)
        return request
    }

    var ended: (Harness) -> [AlarmHistory.Entry] = { harness in
        var all: [AlarmHistory.Entry] = []
        for case .ended(let entry) in harness.effects { all.append(entry) }
        return all
    }

    @Test func threeRingsFiveMinutesApartThenMissedAndTheNextDayFresh() throws {
        var harness = Harness(now: start, timeZone: utc)
        let id = try harness.schedule(wakeUp(UnansweredRepeat(rings: 3, rest: 300))).id
        var rings: [Date] = []
        var history: [AlarmHistory.Outcome] = []
        // Follow the engine's own timer, as the agent does, until the occurrence is missed.
        for _ in 0..<10 {
            guard case .some(.some(let next)) = harness.armed, next < instant("2026-11-23T08:00:00Z") else { break }
            harness.advance(to: next)
            history += ended(harness).map(\.outcome)
            if harness.state(id) == .alerting { rings.append(harness.now) }
        }
        #expect(rings == [instant("2026-11-23T06:30:00Z"), instant("2026-11-23T06:36:00Z"), instant("2026-11-23T06:42:00Z")],
                "three rings, each 60 s, 5 min rest between: \(rings)")
        #expect(history == [.unansweredRingsAgain, .unansweredRingsAgain, .missedUnanswered])
        let missed = try #require(harness.missed.first)
        #expect(missed.1 == instant("2026-11-23T06:30:00Z") && missed.2 == .unanswered, "missed as the occurrence that first rang")
        let after = try #require(harness.engine.alarms[id])
        #expect(after.state == .scheduled && after.fireDate == instant("2026-11-24T06:30:00Z") && after.unanswered == nil)
    }

    @Test func restingSaysWhichRingComesAndOnlyStopIsShown() throws {
        var harness = Harness(now: start, timeZone: utc)
        let id = try harness.schedule(wakeUp(UnansweredRepeat(rings: 3, rest: 300))).id
        harness.advance(to: instant("2026-11-23T06:30:00Z"))
        harness.advance(to: instant("2026-11-23T06:31:00Z"))
        let resting = try #require(harness.engine.alarms[id])
        #expect(resting.state == .countdown && resting.fireDate == instant("2026-11-23T06:36:00Z"))
        #expect(resting.unanswered == UnansweredRings(rang: 1, rings: 3, since: instant("2026-11-23T06:30:00Z")))
        #expect(resting.shownButtons == [.stop], "Cancel would delete the alarm; Stop ends the chain")
        #expect(harness.missed.isEmpty, "no missed notice until the last ring")
        #expect(harness.saved.map(\.id) == [id], "the rest is written: a restart goes on from it")
    }

    @Test func aRestartInTheMiddleGoesOn() throws {
        var harness = Harness(now: start, timeZone: utc)
        let id = try harness.schedule(wakeUp(UnansweredRepeat(rings: 3, rest: 300))).id
        harness.advance(to: instant("2026-11-23T06:30:00Z"))
        harness.advance(to: instant("2026-11-23T06:31:00Z"))
        // The agent stops here and starts again at 06:33 from what it wrote.
        let stored = try JSONCoding.encoder.encode(Array(harness.engine.alarms.values))
        let loaded = try JSONCoding.decoder.decode([AlarmRecord].self, from: stored)
        var restarted = Harness(now: instant("2026-11-23T06:33:00Z"), timeZone: utc, loading: loaded)
        #expect(restarted.engine.alarms[id]?.unanswered?.rang == 1)
        #expect(restarted.armed == .some(instant("2026-11-23T06:36:00Z")))
        restarted.advance(to: instant("2026-11-23T06:36:00Z"))
        #expect(restarted.state(id) == .alerting, "the second ring comes after the restart")
        restarted.advance(to: instant("2026-11-23T06:37:00Z"))
        #expect(restarted.engine.alarms[id]?.unanswered?.rang == 2)
        restarted.advance(to: instant("2026-11-23T06:42:00Z"))
        restarted.advance(to: instant("2026-11-23T06:43:00Z"))
        #expect(restarted.missed.count == 1 && restarted.state(id) == .scheduled, "three rings in all, then missed")
    }

    @Test func stopWhileRestingEndsTheChainAndASnoozeIsAnAnswer() throws {
        var harness = Harness(now: start, timeZone: utc)
        let id = try harness.schedule(wakeUp(UnansweredRepeat(rings: 3, rest: 300))).id
        harness.advance(to: instant("2026-11-23T06:30:00Z"))
        harness.advance(to: instant("2026-11-23T06:31:00Z"))
        harness.now = instant("2026-11-23T06:32:00Z")
        let stopped = try #require(try harness.perform(.apply(.stop, id: .id(id))))
        #expect(stopped.state == .scheduled && stopped.fireDate == instant("2026-11-24T06:30:00Z") && stopped.unanswered == nil)

        // The next day: the first ring unanswered, the second snoozed; the snooze rings anew.
        harness.advance(to: instant("2026-11-24T06:30:00Z"))
        harness.advance(to: instant("2026-11-24T06:31:00Z"))
        harness.advance(to: instant("2026-11-24T06:36:00Z"))
        harness.now = instant("2026-11-24T06:36:10Z")
        let snoozed = try #require(try harness.perform(.apply(.countdown, id: .id(id))))
        #expect(snoozed.state == .countdown && snoozed.unanswered == nil, "a snooze is an answer")
        #expect(snoozed.shownButtons != [.stop] || snoozed.presentation.countdown == nil)
    }

    @Test func theSettingIsTheDefaultAndAnAlarmsOwnOnceWins() throws {
        var harness = Harness(now: start, timeZone: utc, settings: .init(defaultRepeat: UnansweredRepeat(rings: 2, rest: 60)))
        let following = try harness.schedule(wakeUp(nil)).id
        let once = try harness.schedule(wakeUp(.once)).id
        harness.advance(to: instant("2026-11-23T06:30:00Z"))
        harness.advance(to: instant("2026-11-23T06:31:00Z"))
        #expect(harness.engine.alarms[following]?.unanswered == UnansweredRings(rang: 1, rings: 2, since: instant("2026-11-23T06:30:00Z")))
        #expect(harness.missed.map(\.0.id) == [once], "its own `once` rings once")
        // The setting changed to off while it rests: the ring already promised still comes.
        harness.engine.defaultRepeat = .once
        harness.advance(to: instant("2026-11-23T06:32:00Z"))
        #expect(harness.state(following) == .alerting)
        harness.advance(to: instant("2026-11-23T06:33:00Z"))
        #expect(harness.missed.map(\.0.id) == [following])
    }

    @Test func aOneTimeTimerRingsAgainThenEnds() throws {
        var harness = Harness(now: start, timeZone: utc)
        var tea = AlarmEngineTests().timer(60, ringLimit: 10)
        tea.ring.repeatUnanswered = UnansweredRepeat(rings: 2, rest: 30)
        let id = try harness.schedule(tea).id
        harness.advance(to: start.addingTimeInterval(60))
        harness.advance(to: start.addingTimeInterval(70))
        #expect(harness.state(id) == .countdown)
        harness.advance(to: start.addingTimeInterval(100))
        #expect(harness.state(id) == .alerting)
        harness.advance(to: start.addingTimeInterval(110))
        #expect(harness.engine.alarms[id] == nil && harness.missed.count == 1, "missed after its second ring, and gone")
    }

    @Test func aClockSetDuringTheRestKeepsTheRestsLength() throws {
        var harness = Harness(now: start, timeZone: utc)
        let id = try harness.schedule(wakeUp(UnansweredRepeat(rings: 2, rest: 300))).id
        harness.advance(to: instant("2026-11-23T06:30:00Z"))
        harness.advance(to: instant("2026-11-23T06:31:00Z"))
        harness.now = instant("2026-11-23T07:31:00Z")
        harness.effects = harness.engine.clockSet(by: 3600, now: harness.now, timeZone: utc)
        #expect(harness.engine.alarms[id]?.fireDate == instant("2026-11-23T07:36:00Z"), "a rest measures elapsed time, as a snooze")
    }

    // MARK: Bounds

    @Test func whatIsTypedIsReadAndJudged() throws {
        #expect(InputParser.unansweredRepeat("3x5m") == UnansweredRepeat(rings: 3, rest: 300))
        #expect(InputParser.unansweredRepeat(" 2X90s ") == UnansweredRepeat(rings: 2, rest: 90))
        #expect(InputParser.unansweredRepeat("4") == UnansweredRepeat(rings: 4, rest: UnansweredRepeat.defaultRest))
        #expect(InputParser.unansweredRepeat("off") == .once && InputParser.unansweredRepeat("1") == .once)
        for refused in ["11x5m", "0x5m", "3x1s", "3x2h", "3x", "x5m", "-3x5m", "999999999999x5m", "", "3x5mx2"] {
            #expect(InputParser.unansweredRepeat(refused) == nil, "\(refused)")
        }
        #expect(UnansweredRepeat(rings: 3, rest: 300).text == "3x5m" && UnansweredRepeat.once.text == "off")
        let settings = try AgentSettings().changed(by: #"{"repeatUnanswered": "3x5m"}"#)
        #expect(settings.repeatUnanswered == UnansweredRepeat(rings: 3, rest: 300))
        #expect(settings.json.contains(#""repeatUnanswered": "3x5m""#) || settings.json.contains(#""repeatUnanswered":"3x5m""#), "\(settings.json)")
        #expect(throws: AlarmError.self) { try AgentSettings().changed(by: #"{"repeatUnanswered": "20x5m"}"#) }
        for bad in [UnansweredRepeat(rings: 0, rest: 300), UnansweredRepeat(rings: 11, rest: 300), UnansweredRepeat(rings: 3, rest: .nan),
                    UnansweredRepeat(rings: 3, rest: 4), UnansweredRepeat(rings: Int.max, rest: 300)] {
            #expect(throws: AlarmError.self) { try RingOptions(repeatUnanswered: bad).validate() }
        }
    }

    @Test func aStoredChainPastItsEndIsNone() throws {
        var harness = Harness(now: start, timeZone: utc)
        let record = try harness.schedule(wakeUp(UnansweredRepeat(rings: 3, rest: 300)))
        var text = String(decoding: try JSONCoding.encoder.encode(record), as: UTF8.self)
        for chain in [#"{"rang": 5, "rings": 3, "since": "2026-11-23T06:30:00Z"}"#, #"{"rang": 0, "rings": 3, "since": "2026-11-23T06:30:00Z"}"#,
                      #"{"rang": 1, "rings": 99999999, "since": "2026-11-23T06:30:00Z"}"#] {
            text = String(decoding: try JSONCoding.encoder.encode(record), as: UTF8.self)
            text.removeLast()
            text += #", "unanswered": "# + chain + "}"
            let read = try JSONCoding.decoder.decode(AlarmRecord.self, from: Data(text.utf8))
            #expect(read.unanswered == nil, "\(chain)")
        }
    }
}
