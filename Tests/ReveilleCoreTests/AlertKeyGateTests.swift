import ReveilleCore
import Testing

/// Which key presses the alert window answers (issue 49): none before it is active and
/// settled, and a key held from before counts only once released and pressed again.
@Suite("Alert window's keys")
struct AlertKeyGateTests {
    let enter: UInt32 = 36, s: UInt32 = 39

    @Test func aPressAsTheWindowTakesTheFocusIsNoAnswer() {
        var gate = AlertKeyGate()
        gate.active(true, at: 11)
        let typedOn = gate.pressed(enter, at: 11.2)
        #expect(!typedOn, "the Enter of a sentence typed as the window took the focus")
        gate.released(enter)
        let settled = gate.pressed(enter, at: 11 + AlertKeyGate.settling + 0.01)
        #expect(settled, "a press after it settled")
    }

    @Test func aKeyReachingAWindowNotSaidActiveIsTheFirstSignOfItsFocus() {
        var gate = AlertKeyGate()
        let first = gate.pressed(enter, at: 10)
        gate.released(enter)
        let soon = gate.pressed(enter, at: 10.3)
        gate.released(enter)
        let later = gate.pressed(enter, at: 10 + AlertKeyGate.settling + 0.01)
        #expect(!first && !soon && later)
    }

    @Test func aKeyHeldFromBeforeCountsOnlyOnceReleasedAndPressedAgain() {
        var gate = AlertKeyGate()
        gate.active(true, at: 0)
        let held = gate.pressed(enter, at: 0.1)
        // Its repeats go on past the settling time: still the same press.
        let repeats = [gate.pressed(enter, at: 1), gate.pressed(enter, at: 2)]
        let other = gate.pressed(s, at: 2)
        gate.released(enter)
        let again = gate.pressed(enter, at: 3)
        let ownRepeat = gate.pressed(enter, at: 3.1)
        #expect(!held && repeats == [false, false], "held as the window appeared")
        #expect(other, "another key pressed now counts")
        #expect(again && !ownRepeat, "released and pressed again, once")
    }

    @Test func losingTheFocusStartsOver() {
        var gate = AlertKeyGate()
        gate.active(true, at: 0)
        let before = gate.pressed(enter, at: 1)
        gate.released(enter)
        gate.active(false, at: 2)
        gate.active(true, at: 5)
        let soon = gate.pressed(s, at: 5.1)
        gate.released(s)
        let settled = gate.pressed(s, at: 5 + AlertKeyGate.settling + 0.01)
        #expect(before && !soon && settled)
    }
}
