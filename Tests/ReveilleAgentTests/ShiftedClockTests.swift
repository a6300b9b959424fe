import Foundation
@testable import ReveilleAgent
@testable import ReveilleAgentRuntime
import ReveilleAgentTesting
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleRules
import Testing

/// The tests' shifted clock, a decorator of another clock (here the virtual one): it reads
/// the base clock plus its file's seconds, arms the base's timers that much earlier, and reads
/// its file again when the clock is set or its signal comes.
@Suite("Shifted test clock")
@GLibActor
struct ShiftedClockTests {
    let base = VirtualClock()
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-offset-\(UUID().uuidString)").path

    @Test func itShiftsTheBaseClockAndItsTimersByTheFilesSeconds() throws {
        defer { try? FileManager.default.removeItem(atPath: file) }
        try "3600".write(toFile: file, atomically: true, encoding: .utf8)
        let clock = ShiftedClock(base: base, offsetFile: file, signal: nil)
        #expect(clock.now == base.now.addingTimeInterval(3600))
        var fired = 0, changed = 0
        let timer = try clock.wallClockTimer(onFire: { fired += 1 }, onClockChange: { changed += 1 })
        // Armed at an instant an hour and a minute ahead on the shifted clock: a minute on the base.
        timer.arm(at: clock.now.addingTimeInterval(3600 + 60))
        base.advance(by: 3600 + 59)
        #expect(fired == 0, "not before its instant")
        // The file now says two hours, and the signal comes: the clock is set, the timer hears it.
        try "7200".write(toFile: file, atomically: true, encoding: .utf8)
        clock.fileChanged()
        #expect(changed == 1)
        #expect(clock.now == base.now.addingTimeInterval(7200))
        timer.arm(at: clock.now.addingTimeInterval(30))
        base.advance(by: 31)
        #expect(fired == 1, "armed on the base clock 30 s ahead")
        // The base clock set (the kernel's ECANCELED): the file is read again too.
        try "0".write(toFile: file, atomically: true, encoding: .utf8)
        base.set(to: base.now)
        #expect(changed == 2 && clock.now == base.now)
    }

    @Test func theLoopsTimersAndTheZoneAreTheBaseClocks() throws {
        let clock = ShiftedClock(base: base, offsetFile: file, signal: nil)
        #expect(clock.now == base.now, "no file: no shift")
        var ran = false
        clock.after(5) { ran = true }
        base.advance(by: 5)
        #expect(ran)
        #expect(clock.timeZone.identifier == base.timeZone.identifier && clock.bootTime == base.bootTime)
    }
}
