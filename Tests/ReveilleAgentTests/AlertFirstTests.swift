import Foundation
import Logging
@testable import ReveilleAgent
@testable import ReveilleAgentRuntime
import ReveilleAgentTesting
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleModel
@testable import ReveilleNotifications
import ReveilleRules
@testable import ReveilleSound
import SystemPackage
import Testing

/// The firing path sends the alert first: at the instant the sound plays and the Notify is
/// sent, and the other followers and the save wait until the notification server answered it
/// (at most `AgentRuntime.alertHeadStart`), so the agent's loop takes no processor the
/// notification's threads need. Before any later event, the firing is finished.
@Suite("Alert first")
@GLibActor
final class AlertFirstTests {
    let clock = VirtualClock()
    /// Another follower, listed before the presenter: the alerter goes first all the same.
    let follower = ChangeLog()
    let folder: FilePath
    let notifications: HeldNotifications
    let sound: RecordingSound
    let runtime: AgentRuntime
    let client = RuntimeClient()

    init() throws {
        folder = try privateFolder("reveille-alert-first")
        (notifications, sound) = (HeldNotifications(clock: clock), RecordingSound(clock: clock))
        let logger = Logger(label: "test")
        // The runtime keeps its followers and its ringer.
        let sounder = AlarmSounder(library: SoundLibrary(), output: sound, logger: logger, clock: clock)
        runtime = AgentRuntime(store: AlarmStore(directory: folder), settings: .init(), logger: logger, clock: clock, sources: [client.outbox],
                               ringer: sounder, alerter: AlarmPresenter(server: notifications, logger: logger, clock: clock),
                               followers: [follower])
        sounder.start()
        try runtime.start()
        notifications.start()
        clock.advance()
    }

    deinit {
        try? FileManager.default.removeItem(atPath: folder.string)
    }

    /// A one-off alarm `seconds` from now.
    func alarm(_ title: String, in seconds: TimeInterval) async throws -> AlarmRecord {
        let request = AlarmRequest(schedule: .fixed(clock.now.addingTimeInterval(seconds)), countdownDuration: nil,
                                   presentation: AlarmPresentation(alert: .init(title: title, secondaryButton: nil)))
        return try #require(try await client.call(.schedule(id: UUID(), request: request, appID: ClientIdentity.userAppID)))
    }

    /// The alarm's state as the store on disk has it.
    func stored(_ id: UUID) -> Alarm.State? {
        AlarmStore(directory: folder).load().first { $0.id == id }?.state
    }

    @Test func theOtherFollowersAndTheSaveWaitUntilTheAlertIsAnswered() async throws {
        let wake = try await alarm("Wake", in: 60)
        clock.advance(by: 59)
        notifications.holdsAnswers = true
        clock.advance(by: 1)
        #expect(notifications.sent == ["Wake"], "the alert is sent at its instant")
        #expect(sound.isAudible, "the sound starts at its instant")
        #expect(follower.heard(wake.id) == [.scheduled], "the other followers wait for the alert to leave")
        #expect(stored(wake.id) == .scheduled, "the save waits for the alert to leave")

        notifications.answerAll()
        #expect(follower.heard(wake.id) == [.scheduled, .alerting])
        #expect(stored(wake.id) == .alerting)
    }

    @Test func aServerThatDoesNotAnswerHoldsTheRestAtMostItsHeadStart() async throws {
        let wake = try await alarm("Wake", in: 60)
        notifications.holdsAnswers = true
        clock.advance(by: 60)
        #expect(notifications.sent == ["Wake"] && stored(wake.id) == .scheduled)
        clock.advance(by: AgentRuntime.alertHeadStart)
        #expect(follower.heard(wake.id) == [.scheduled, .alerting])
        #expect(stored(wake.id) == .alerting)
        #expect(!notifications.answered, "nothing was answered: the bound ran the rest")
    }

    @Test func anAgentStoppingWhileTheAlertIsUnderWaySavesTheFiringFirst() async throws {
        let wake = try await alarm("Wake", in: 60)
        notifications.holdsAnswers = true
        clock.advance(by: 60)
        #expect(stored(wake.id) == .scheduled, "the save waits for the alert to leave")
        runtime.settle() // what the agent's "alarms" part does when it stops
        #expect(stored(wake.id) == .alerting, "a stop inside the head start does not lose the firing's save")
        #expect(follower.heard(wake.id) == [.scheduled, .alerting])
    }

    @Test func aClientsChangeWhileTheAlertIsUnderWayComesAfterTheFiringIsDone() async throws {
        let wake = try await alarm("Wake", in: 60)
        notifications.holdsAnswers = true
        clock.advance(by: 60)
        #expect(stored(wake.id) == .scheduled)
        // Stop, before the server answered: the firing is followed and written first, then the
        // Stop, so the store does not bring back the alert the Stop ended.
        _ = try await client.call(.apply(.stop, id: .id(wake.id)))
        #expect(follower.heard(wake.id) == [.scheduled, .alerting, nil])
        #expect(stored(wake.id) == nil, "the Stop, written after the firing, ended the alarm")
        #expect(!sound.isAudible)
        notifications.answerAll()
        clock.advance(by: 1)
        #expect(stored(wake.id) == nil)
    }
}

/// A follower that records the state each change left each alarm in (`nil`: it ended).
@GLibActor
final class ChangeLog: AlarmFollower {
    private var states: [UUID: [Alarm.State?]] = [:]

    func follow(_ changes: [AlarmChange], in alarms: AlarmTable) {
        for change in changes { states[change.id, default: []].append(change.record?.state) }
    }

    func heard(_ id: UUID) -> [Alarm.State?] { states[id] ?? [] }
}

/// A notification server in process whose answers can be held back: while `holdsAnswers`, a
/// Notify is recorded as sent but answered only by `answerAll()`; `whenCaughtUp` waits for it.
@GLibActor
final class HeldNotifications: NotificationTransport {
    private(set) var sent: [String] = []
    private(set) var answered = false
    var holdsAnswers = false
    private var observers: [@GLibActor (NotificationEvent) -> Void] = []
    private var unanswered: [@GLibActor () -> Void] = []
    private var caughtUp: [@GLibActor () -> Void] = []
    private var lastID: UInt32 = 0
    private let clock: VirtualClock

    init(clock: VirtualClock) { self.clock = clock }

    func start() {
        for observer in observers { observer(.ready(NotificationServerProfile(name: "held", version: "1", capabilities: ["actions", "body"]))) }
    }

    func observe(_ observer: @escaping @GLibActor (NotificationEvent) -> Void) {
        observers.append(observer)
    }

    func show(_ request: NotificationRequest, replacing id: UInt32, shown: @escaping @GLibActor (UInt32?) -> Void) {
        lastID += 1
        let given = lastID
        sent.append(request.summary)
        guard holdsAnswers else { return shown(given) }
        unanswered.append { shown(given) }
    }

    func close(_ id: UInt32) {}

    func whenCaughtUp(_ body: @escaping @GLibActor () -> Void) {
        guard unanswered.isEmpty else { return caughtUp.append(body) }
        body()
    }

    /// The server answers every Notify it holds.
    func answerAll() {
        let answers = unanswered
        unanswered = []
        answered = answered || !answers.isEmpty
        for answer in answers { answer() }
        let waiting = caughtUp
        caughtUp = []
        for body in waiting { body() }
    }
}

/// The alert's texts are made displayable (and escaped for a server that reads markup) on the
/// firing path: plain text takes a short cut, and everything else the general way as before.
@Suite("Displayable text's short cut")
struct DisplayableShortCutTests {
    @Test func plainTextIsKeptAndAnythingElseIsStillCleaned() {
        #expect(NotificationContent.displayable("Wake up: 7:30 (work)") == "Wake up: 7:30 (work)")
        #expect(NotificationContent.displayable(String(repeating: "a", count: 200)) == String(repeating: "a", count: 200))
        #expect(NotificationContent.displayable(String(repeating: "a", count: 201)) == String(repeating: "a", count: 199) + "…")
        #expect(NotificationContent.displayable("  Tea  time ") == "Tea time")
        #expect(NotificationContent.displayable("Tea\ttime\n") == "Tea time")
        #expect(NotificationContent.displayable("Tea\u{7F}time") == "Tea time")
        #expect(NotificationContent.displayable("Café") == "Café")
    }

    @Test func textWithoutMarkupIsKeptAndMarkupIsStillEscaped() {
        #expect(NotificationClient.escapingMarkup("Timer · rang at 7:30") == "Timer · rang at 7:30")
        #expect(NotificationClient.escapingMarkup("Tea & <b>cake</b>") == "Tea &amp; &lt;b&gt;cake&lt;/b&gt;")
    }
}
