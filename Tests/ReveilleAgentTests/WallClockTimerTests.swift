import Foundation
@testable import ReveilleAgent
import ReveilleBus
import ReveilleLoop
import ReveilleTestTraits
import SystemPackage
import Testing

/// No silent failure on the firing path (issue 51): a wall-clock timer that cannot be armed is
/// said in the log and armed again until it holds, so the alarm still rings.
@Suite("Wall-clock timer", .waitsOnItsOwnThread)
struct WallClockTimerTests {
    @GLibActor final class Record {
        var attempts = 0
        var fired = 0
        var timer: WallClockTimer?
        var answered = false
    }

    @Test func aTimerThatFailsToArmIsArmedAgainAndFires() async throws {
        let record = await Record()
        let fired = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            Task { @GLibActor in
                do {
                    // The first two attempts fail as timerfd_settime can (ENOMEM, EINVAL), then it holds.
                    // A timer left unarmed never fires: the test ends after 10 s rather than hang.
                    _ = MainLoopSources.after(milliseconds: 10_000) {
                        if !record.answered { record.answered = true; done.resume(returning: false) }
                    }
                    record.timer = try WallClockTimer(onFire: {
                        record.fired += 1
                        if !record.answered { record.answered = true; done.resume(returning: true) }
                    }, onClockChange: {}, arming: { seconds, arm throws(Errno) in
                        record.attempts += 1
                        if record.attempts <= 2 { throw Errno.noMemory }
                        try arm(seconds)
                    })
                    record.timer?.arm(at: Date().addingTimeInterval(0.2))
                } catch {
                    Issue.record("no timer: \(error)")
                    record.answered = true
                    done.resume(returning: false)
                }
            }
        }
        #expect(fired, "the alarm's timer fired within 10 s of two failures to arm it")
        let (attempts, count) = await Task { @GLibActor in (record.attempts, record.fired) }.value
        #expect(attempts == 3 && count == 1, "armed after two failures (\(attempts) attempts), fired \(count) time(s)")
        await Task { @GLibActor in record.timer = nil }.value
    }
}
