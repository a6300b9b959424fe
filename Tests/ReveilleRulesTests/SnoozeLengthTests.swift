import Foundation
import ReveilleAgentTesting
@testable import ReveilleCore
import ReveilleModel
@testable import ReveilleRules
import ReveilleWords
import Testing

/// Issue 27: a snooze for a length chosen at the moment (`reveille snooze ID 20m`, the alert's
/// longer snooze, `Snooze` on the bus), bounded wherever it enters.
@Suite("Snooze length")
struct SnoozeLengthTests {
    let utc = UTCTimeZone()
    let start = instant("2026-11-23T08:00:00Z")

    func ringing() throws -> (AlarmEngineTests.Harness, AlarmRecord) {
        var harness = AlarmEngineTests.Harness(now: start, timeZone: utc)
        let alarm = try harness.schedule(request(schedule: .fixed(start + 60), postAlert: 540))
        harness.advance(to: start + 60)
        return (harness, alarm)
    }

    @Test func aSnoozeForAGivenLengthRingsAgainAfterItAndKeepsTheAlarmsOwnLength() throws {
        var (harness, alarm) = try ringing()
        let snoozed = try #require(try harness.perform(.snooze(id: .prefix(String(alarm.id.uuidString.prefix(6))), length: 1200)))
        #expect(snoozed.state == .countdown && snoozed.fireDate == start + 60 + 1200 && snoozed.countdownLength == 1200)
        #expect(snoozed.countdownDuration?.postAlert == 540, "the alarm's own snooze length stays")
        #expect(harness.armed == start + 1260)
        #expect(harness.effects.contains { if case .ended(let entry) = $0 { entry.outcome == .snoozed } else { false } })
        harness.advance(to: start + 1260)
        #expect(harness.state(alarm.id) == .alerting)
        // The next plain snooze is the alarm's own length again.
        try harness.perform(.apply(.countdown, id: .id(alarm.id)))
        #expect(harness.engine.alarms[alarm.id]?.fireDate == start + 1260 + 540)
    }

    /// N14: 5e-324 s and 1e-9 s rang again at once; a second is the least.
    @Test(arguments: [0.0, -60, .nan, .infinity, -.infinity, 86_401, 1e300, 5e-324, 1e-9, 0.999, 86_400.001])
    func aLengthOutsideASecondToADayIsRefusedInWords(length: Double) throws {
        var (harness, alarm) = try ringing()
        let before = harness.engine.alarms
        do {
            try harness.perform(.snooze(id: .id(alarm.id), length: length))
            Issue.record("\(length) s was accepted")
        } catch {
            #expect(error == .snoozeLength(length) || length.isNaN)
            guard case .invalidConfiguration(let reason) = AlarmError(error) else { Issue.record("\(error)"); return }
            #expect(reason.hasPrefix("the snooze length is ") && reason.hasSuffix("accepted: 1 second to 24 hours (86400 seconds)"), "\(reason)")
        }
        #expect(harness.engine.alarms == before, "nothing changed")
        #expect(throws: AlarmError.self) { try AgentCall.decode(method: "Snooze", arguments: [.string(alarm.id.uuidString), .number(length)]) }
    }

    @Test func theBoundsAreInclusiveOfADayAndTheLengthNeedsARingingAlarm() throws {
        var (harness, alarm) = try ringing()
        #expect(try harness.perform(.snooze(id: .id(alarm.id), length: 86_400))?.fireDate == start + 60 + 86_400)
        harness.advance(to: start + 60 + 86_400)
        #expect(try harness.perform(.snooze(id: .id(alarm.id), length: 1))?.fireDate == start + 60 + 86_400 + 1, "a second is the least")
        #expect(throws: AlarmRuleError.self, "a countdown is not ringing") { try harness.perform(.snooze(id: .id(alarm.id), length: 60)) }
        #expect(throws: AlarmRuleError.lengthOnlyForSnooze(.stop), "a length goes with a snooze only") {
            try alarm.applying(.stop, now: start, timeZone: utc, snoozeLength: 60)
        }
    }

    /// N14: a refusal never rounds the length it refuses (86,400.001 s had read "24.0 hours").
    @Test func theRefusalSaysTheLengthExactly() {
        func reason(_ length: Double) -> String { AlarmError(AlarmRuleError.snoozeLength(length)).reason }
        #expect(reason(86_400.001) == "the snooze length is 86400.001 seconds; accepted: 1 second to 24 hours (86400 seconds)")
        #expect(reason(1e-9).hasPrefix("the snooze length is 1e-09 seconds;"))
        #expect(reason(90_000).hasPrefix("the snooze length is 25 hours;"))
        #expect(AlarmRequest.spoken(9000) == "2.5 hours" && AlarmRequest.spoken(8280) == "2.3 hours" && AlarmRequest.spoken(90.5) == "90.5 seconds")
    }

    @Test func theWireCarriesTheLengthBothWays() throws {
        let call = AgentCall.snooze(id: "3f2a", seconds: 1200)
        #expect(call.wire.method == "Snooze" && AgentCall.methods.contains("Snooze"))
        #expect(try AgentCall.decode(method: call.wire.method, arguments: call.wire.arguments) == call)
        #expect(throws: AlarmError.self) { try AgentCall.decode(method: "Snooze", arguments: [.string("3f2a")]) }
        #expect(throws: AlarmError.self) { try AgentCall.decode(method: "Snooze", arguments: [.string("3f2a"), .string("20m")]) }
    }

    @Test func theLongerSnoozeButtonSnoozesForItsLengthAndTellsTheAppItsSecondButton() throws {
        let (harness, alarm) = try ringing()
        let press = try #require(try harness.engine.press(.secondary, on: alarm.id, snoozeLength: 1200))
        #expect(press.command == .snooze(id: .id(alarm.id), length: 1200))
        #expect(press.effects.contains { if case .announceButton(_, .secondary) = $0 { true } else { false } })
        #expect(try harness.engine.press(.secondary, on: alarm.id)?.command == .apply(.countdown, id: .id(alarm.id)))
        #expect(try harness.engine.press(.stop, on: alarm.id, snoozeLength: 1200)?.command == .apply(.stop, id: .id(alarm.id)),
                "a length on another button changes nothing")
    }
}
