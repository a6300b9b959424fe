import Foundation
import Logging
@testable import ReveilleAgentRuntime
import ReveilleCore
import ReveilleModel
@testable import ReveilleSound
import Testing

/// The sounder's rules on virtual time: streams follow the alarms, the next alarm's stream is
/// prepared ahead, an ended stream comes back after growing pauses, a lost sound server is
/// reported once and asked again while anything rings.
@Suite("Sound machine")
struct SoundMachineTests {
    var machine = SoundMachine()
    var now = Date(timeIntervalSince1970: 1_800_000_000)
    let id = UUID()

    mutating func handle(_ event: SoundMachine.Event) -> [SoundMachine.Effect] {
        machine.handle(event, now: now)
    }

    mutating func alarm(_ state: Alarm.State?, due: Date? = nil, id: UUID? = nil) -> [SoundMachine.Effect] {
        handle(.changed([.init(id: id ?? self.id, state: state, fireDate: due)]))
    }

    /// Started, with the sound server reachable.
    mutating func running() {
        #expect(handle(.started) == [.connect, .restoreSink])
        _ = handle(.server(ready: true))
    }

    @Test mutating func nothingTouchesTheSoundServerBeforeTheAgentStarts() {
        #expect(alarm(.alerting).isEmpty)
        #expect(handle(.started) == [.connect], "connect, then wait for the server")
        // An agent that starts while its alarm still rings (it crashed mid-ring) raises the sink,
        // never gives it back first: the restore would mute the alarm it is about to play.
        #expect(handle(.server(ready: true)) == [.raiseSink, .open(id, corked: false), .sounding([id])])
    }

    @Test mutating func theSinkIsGivenBackWhenTheServerComesOnlyIfNothingRings() {
        #expect(handle(.started) == [.connect, .restoreSink])
        #expect(handle(.server(ready: true)) == [.restoreSink], "a crash's change is put back when nothing rings")
        #expect(alarm(.alerting) == [.raiseSink, .open(id, corked: false), .sounding([id])])
        #expect(handle(.server(ready: false)).contains(.stop(id)))
        #expect(!handle(.server(ready: true)).contains(.restoreSink), "the server back while it rings: raised, not restored")
    }

    @Test mutating func anAlertingAlarmRingsUntilItLeavesAlertingThenTheSinkIsGivenBack() {
        running()
        #expect(alarm(.alerting) == [.raiseSink, .open(id, corked: false), .sounding([id])])
        // Another change while it rings opens nothing twice.
        #expect(!alarm(.alerting).contains { if case .open = $0 { true } else { false } })
        #expect(alarm(nil) == [.stop(id), .restoreSink, .sounding([])])
    }

    @Test mutating func theNextAlarmsStreamIsPreparedAheadAndUncorkedWhenItRings() {
        running()
        let due = now.addingTimeInterval(10)
        #expect(alarm(.scheduled, due: due) == [.armPrepare(id, at: due.addingTimeInterval(-SoundMachine.prepareAhead)), .restoreSink])
        now = due.addingTimeInterval(-SoundMachine.prepareAhead)
        #expect(handle(.prepareDue(id)) == [.open(id, corked: true), .restoreSink])
        now = due
        #expect(alarm(.alerting) == [.raiseSink, .uncork(id), .sounding([id])])
    }

    @Test mutating func aPrepareTimerFollowsTheSoonestAlarmAndAStaleOneOpensNothing() {
        running()
        let other = UUID()
        _ = alarm(.scheduled, due: now.addingTimeInterval(100))
        #expect(alarm(.scheduled, due: now.addingTimeInterval(50), id: other)
            == [.disarmPrepare, .armPrepare(other, at: now.addingTimeInterval(50 - SoundMachine.prepareAhead)), .restoreSink])
        #expect(handle(.prepareDue(id)).allSatisfy { if case .open = $0 { false } else { true } }, "not the armed one")
        // Beyond the horizon nothing is armed: the alarm opens uncorked when it rings.
        var far = SoundMachine()
        _ = far.handle(.started, now: now)
        _ = far.handle(.server(ready: true), now: now)
        #expect(far.handle(.changed([.init(id: id, state: .scheduled, fireDate: now.addingTimeInterval(50 * 86_400))]), now: now) == [.restoreSink])
    }

    @Test mutating func anEndedStreamComesBackAfterGrowingPausesAndNotBefore() {
        running()
        _ = alarm(.alerting)
        var pauses: [TimeInterval] = []
        for _ in 0..<4 {
            let effects = handle(.streamEnded(id))
            for case .restartLater(let ended, let seconds) in effects where ended == id { pauses.append(seconds) }
            #expect(effects.contains(.sounding([])))
            // A change of the alarms during the pause does not start it early.
            #expect(!alarm(.alerting).contains(.open(id, corked: false)))
            #expect(handle(.restartDue(id)).contains(.open(id, corked: false)))
        }
        #expect(pauses == [0.25, 0.5, 1, 2])
        // Answered: the count starts over next time.
        _ = alarm(nil)
        _ = alarm(.alerting)
        let effects = handle(.streamEnded(id))
        #expect(effects.contains(.restartLater(id, seconds: 0.25)))
    }

    @Test mutating func aLostSoundServerIsReportedOnceAskedAgainEverySecondAndRingingResumes() {
        running()
        _ = alarm(.alerting)
        let lost = handle(.server(ready: false))
        #expect(lost.contains(.stop(id)) && lost.contains(.reconnectLater) && lost.contains(.sounding([])))
        #expect(lost.filter { if case .log = $0 { true } else { false } }.count == 1)
        let again = handle(.reconnectDue)
        #expect(again.first == .connect && again.contains(.reconnectLater))
        #expect(!again.contains { if case .log = $0 { true } else { false } }, "said once")
        #expect(handle(.server(ready: false)).filter { if case .log = $0 { true } else { false } }.isEmpty)
        let back = handle(.server(ready: true))
        #expect(back.contains(.log(.info, "PulseAudio is back; ringing resumes")))
        #expect(back.suffix(3) == [.raiseSink, .open(id, corked: false), .sounding([id])])
        // Nothing ringing: the server is not asked again.
        _ = alarm(nil)
        _ = handle(.server(ready: false))
        #expect(handle(.reconnectDue).allSatisfy { $0 != .connect })
    }

    @Test mutating func aSoundThatCannotBeOpenedIsLeftToTheNotificationUntilTheAlarmRingsAgain() {
        running()
        _ = alarm(.alerting)
        #expect(handle(.openFailed(id)) == [.raiseSink, .sounding([])], "not opened again at once")
        #expect(!alarm(.alerting).contains(.open(id, corked: false)))
        _ = alarm(.countdown, due: now.addingTimeInterval(60))
        #expect(alarm(.alerting).contains(.open(id, corked: false)), "a new ring tries again")
    }

    @Test mutating func silenceStopsEveryStreamAndGivesTheSinkBack() {
        running()
        let other = UUID()
        _ = alarm(.alerting)
        _ = alarm(.alerting, id: other)
        let effects = handle(.silence)
        #expect(Set(effects.filter { if case .stop = $0 { true } else { false } }) == [.stop(id), .stop(other)])
        #expect(effects.suffix(2) == [.restoreSink, .sounding([])])
    }

    /// An alarm due in less than the prepare lead arms its prepare timer in the past, which
    /// fires at once: a prepare that could not open (the sound server not there yet, or the
    /// stream refused) once armed the same past instant again, and the loop spun until the
    /// alarm rang. Each instant is prepared once; the stream then opens when the alarm rings.
    @Test mutating func aPrepareThatCannotOpenIsNotArmedAgainForTheSameInstant() {
        #expect(handle(.started) == [.connect, .restoreSink])
        let due = now.addingTimeInterval(1)
        #expect(alarm(.scheduled, due: due) == [.armPrepare(id, at: due.addingTimeInterval(-SoundMachine.prepareAhead)), .restoreSink])
        #expect(!handle(.prepareDue(id)).contains { if case .armPrepare = $0 { true } else { false } }, "the server is not there yet")
        // Once the server is there, the prepare is tried again: a refused stream is not.
        #expect(handle(.server(ready: true)).contains(.armPrepare(id, at: due.addingTimeInterval(-SoundMachine.prepareAhead))))
        #expect(handle(.prepareDue(id)) == [.open(id, corked: true), .restoreSink])
        #expect(!handle(.openFailed(id)).contains { if case .armPrepare = $0 { true } else { false } }, "refused: not armed again")
        now = due
        #expect(alarm(.alerting) == [.raiseSink, .open(id, corked: false), .sounding([id])], "it opens when it rings")
    }
}
