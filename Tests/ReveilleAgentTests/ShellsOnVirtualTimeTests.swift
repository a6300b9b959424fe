import Foundation
import Testing
@testable import ReveilleAgent
import ReveilleBus
import ReveilleCore
import SystemPackage

/// The runtime with its real presenter and sounder, in process, on virtual time: a recording
/// notification server and a recording sound server stand in for the peers, and an hour
/// passes in a call. What the shells send the peers is checked in order.
@Suite("Shells on virtual time")
@GLibActor
final class ShellsOnVirtualTimeTests {
    let clock = VirtualClock()
    let notifications: RecordingNotifications
    let sound: RecordingSound
    let runtime: AgentRuntime
    let presenter: AlarmPresenter
    let sounder: AlarmSounder
    let folder: FilePath

    init() throws {
        folder = try privateFolder("reveille-shells")
        notifications = RecordingNotifications(clock: clock)
        sound = RecordingSound(clock: clock)
        runtime = AgentRuntime(store: AlarmStore(directory: folder), settings: .init(), logger: .init(label: "test"), clock: clock)
        presenter = AlarmPresenter(server: notifications, logger: .init(label: "test"), clock: clock, runtime: runtime)
        sounder = AlarmSounder(library: SoundLibrary(), output: sound, logger: .init(label: "test"), runtime: runtime, clock: clock)
        runtime.add([presenter], ringer: sounder)
        sounder.start()
        try runtime.start()
        notifications.start()
        clock.advance()
    }

    deinit {
        try? FileManager.default.removeItem(atPath: folder.string)
    }

    /// A timer of `seconds` whose second button snoozes for `snooze` seconds, as `reveille timer` sets it.
    func timer(_ title: String, seconds: TimeInterval, snooze: TimeInterval) throws -> AlarmRecord {
        let request = AlarmRequest(
            schedule: nil, countdownDuration: .init(preAlert: seconds, postAlert: snooze),
            presentation: AlarmPresentation(alert: .init(title: title, secondaryButton: .snoozeButton, secondaryButtonBehavior: .countdown),
                                            countdown: .init(title: title, pauseButton: .pauseButton), paused: .init(title: title)),
            ring: RingOptions())
        return try #require(try runtime.call(.schedule(id: UUID(), request: request, appID: ClientIdentity.userAppID)))
    }

    /// The Notify and CloseNotification calls since `start`.
    func calls(since start: Int) -> [RecordingNotifications.Call] { Array(notifications.calls[start...]) }

    @Test func aFiveMinuteTimerRingsSnoozesTwentyMinutesRingsAgainAndStops() throws {
        let started = Date()
        let scheduled = clock.now
        let tea = try timer("Tea", seconds: 300, snooze: 1200)
        clock.advance(by: 0.1)
        let countdown = try #require(notifications.shown("Tea"))
        #expect(calls(since: 0) == [.notify(countdown, summary: "Tea", replacing: 0, actions: ["pause", "cancel"])])

        // 1.5 s before its instant, the sound is opened corked; at the instant it plays.
        clock.advance(by: 298.3)
        #expect(sound.streams.isEmpty, "nothing opened minutes ahead")
        clock.advance(by: 0.2)
        #expect(sound.streams == [.open("Alarm: Tea", corked: true)])
        #expect(!sound.isAudible)
        var mark = notifications.calls.count
        clock.advance(by: 1.5)
        #expect(sound.isAudible && runtime.isRunning)
        #expect(sound.streams == [.open("Alarm: Tea", corked: true), .uncork("Alarm: Tea")] && sound.sink == .raiseSink)
        let alert = try #require(notifications.shown("Tea"))
        // The alert is a fresh notification; the countdown goes once the server answered for it.
        #expect(calls(since: mark) == [.notify(alert, summary: "Tea", replacing: 0, actions: ["stop", "secondary"]), .close(countdown)])

        // Snooze: silence at once, a countdown of 20 minutes, and the alert closed.
        mark = notifications.calls.count
        let snoozed = clock.now
        notifications.press("secondary", on: alert)
        clock.advance(by: 0.1)
        #expect(!sound.isAudible && sound.streams.last == .stop("Alarm: Tea") && sound.sink == .restoreSink)
        let snoozing = try #require(notifications.shown("Tea"))
        #expect(calls(since: mark).contains(.close(alert)) && snoozing != alert)

        // It rings again 20 minutes later, not sooner.
        clock.advance(by: 1_190)
        #expect(!sound.isAudible)
        clock.advance(by: 10)
        #expect(sound.isAudible, "rings again after the snooze")
        let again = try #require(notifications.shown("Tea"))
        #expect(again != snoozing)

        // Stop: silence, the alert closed, the timer gone.
        mark = notifications.calls.count
        notifications.press("stop", on: again)
        clock.advance(by: 0.1)
        #expect(!sound.isAudible && sound.streams.last == .stop("Alarm: Tea") && sound.sink == .restoreSink)
        #expect(calls(since: mark) == [.close(again)])
        #expect(notifications.onScreen.isEmpty)
        #expect(AlarmStore(directory: folder).load().first { $0.id == tea.id } == nil, "a timer that was stopped ends")
        // Each ring began at its instant to the millisecond, its stream opened 1.5 s ahead.
        let uncorked = sound.events.filter { $0.event == .uncork("Alarm: Tea") }.map { $0.at.timeIntervalSince(scheduled) }
        let opened = sound.events.filter { $0.event == .open("Alarm: Tea", corked: true) }.map { $0.at.timeIntervalSince(scheduled) }
        let rings = [300, snoozed.timeIntervalSince(scheduled) + 1200]
        #expect(zip(uncorked, rings).allSatisfy { abs($0 - $1) < 0.001 } && uncorked.count == 2, "\(uncorked)")
        #expect(zip(opened, rings).allSatisfy { abs($0 - ($1 - 1.5)) < 0.2 } && opened.count == 2, "\(opened)")
        #expect(Date().timeIntervalSince(started) < 2, "26 virtual minutes in \(Date().timeIntervalSince(started)) s")
    }
}
