import Foundation
@testable import ReveilleAgent
@testable import ReveilleAgentRuntime
import ReveilleAgentTesting
import ReveilleBus
import ReveilleCalendar
import ReveilleCore
import ReveilleKit
import ReveilleLoop
import ReveilleModel
import ReveilleRules
@testable import ReveilleSound
import SystemPackage
import Testing

/// The D-Bus service with the real runtime, sounder and authorizer, in process, on virtual
/// time: calls from named clients go in through the wire's decoder, and every reply, error and
/// signal is read back (`RecordingBus`); the user's prompts go to a recording notification server.
@Suite("Service on virtual time")
@GLibActor
final class AlarmServiceTests {
    let clock = VirtualClock()
    let notifications: RecordingNotifications
    let sound: RecordingSound
    let bus = RecordingBus()
    let clients = NamedClients()
    /// Presses as a notification's button would send them.
    let client = RuntimeClient()
    let runtime: AgentRuntime
    let authorizer: Authorizer
    let service: AlarmService
    let folder: FilePath

    /// Connections: the user's tools, and two apps once they said Hello.
    let user = ":1.10", cook = ":1.20", tea = ":1.30"

    init() throws {
        folder = try privateFolder("reveille-service")
        notifications = RecordingNotifications(clock: clock)
        sound = RecordingSound(clock: clock)
        let agent = try Agent.inProcess(folder: folder, clock: clock, notifications: notifications, sound: sound,
                                        bus: bus, clients: clients, sources: [client.outbox])
        (runtime, authorizer, service) = (agent.runtime, agent.authorizer, agent.service)
        bus.runtime = agent.runtime
        agent.sounder.start()
        try agent.startAlarms()
        notifications.start()
        // The sound server answers.
        clock.advance(by: 0.1)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: folder.string)
    }

    /// A timer's configuration, as a client sends it.
    func timer(_ title: String, seconds: TimeInterval, ringLimit: TimeInterval? = nil) throws -> String {
        let request = AlarmRequest(
            schedule: nil, countdownDuration: .init(preAlert: seconds, postAlert: 300),
            presentation: AlarmPresentation(alert: .init(title: title, secondaryButton: .snoozeButton, secondaryButtonBehavior: .countdown),
                                            countdown: .init(title: title, pauseButton: .pauseButton), paused: .init(title: title)),
            ring: RingOptions(ringLimit: ringLimit))
        return String(decoding: try JSONCoding.compactEncoder.encode(request), as: UTF8.self)
    }

    /// A weekly alarm's configuration (it can skip an occurrence).
    func weekly(_ title: String) throws -> String {
        let request = AlarmRequest(schedule: .relative(.init(time: .init(hour: 7, minute: 0), repeats: .weekly([.monday, .friday]))),
                                   countdownDuration: nil, presentation: .userAlarm(title: title, secondaryButton: nil, behavior: nil))
        return String(decoding: try JSONCoding.compactEncoder.encode(request), as: UTF8.self)
    }

    /// The reply's first string as `Value`; fails the test when the call was not answered so.
    func decoded<Value: Decodable>(_ call: SentCall, as type: Value.Type = AlarmRecord.self,
                                   sourceLocation: SourceLocation = #_sourceLocation) throws -> Value {
        let json = try #require(call.strings?.first, "\(call.method) answered \(String(describing: call.answer))", sourceLocation: sourceLocation)
        return try JSONCoding.decoder.decode(Value.self, from: Data(json.utf8))
    }

    /// `sender` schedules `configuration`; the alarm as the reply gives it.
    func schedule(_ configuration: String, from sender: String) async throws -> AlarmRecord {
        try decoded(await bus.send(.schedule(id: UUID(), configuration: configuration), from: sender))
    }

    /// The ids of the alarms in a reply's JSON array.
    func ids(_ call: SentCall) throws -> Set<UUID> {
        Set(try decoded(call, as: [AlarmRecord].self).map(\.id))
    }

    /// The alarms each `AlarmsUpdated` among `signals` carried, and the ids it said ended.
    func updated(_ signals: [RecordingBus.Signal]) throws -> [(changed: [AlarmRecord], removed: [String])] {
        try signals.filter { $0.name == "AlarmsUpdated" }.map { signal in
            let json = try #require(signal.arguments.first?.string)
            return (try JSONCoding.decoder.decode([AlarmRecord].self, from: Data(json.utf8)),
                    signal.arguments.last?.array?.compactMap(\.string) ?? [])
        }
    }

    /// An app says Hello and is allowed.
    func allowedApp(_ appID: String, on sender: String) async throws {
        #expect(await bus.send(.hello(appID: appID, usageDescription: "Timers for the kitchen"), from: sender).strings != nil)
        try authorizer.set(appID, .authorized)
    }

    @Test func everyMethodOfTheTableIsAnsweredThroughTheWiresDecoder() async throws {
        let tea = try await schedule(try timer("Tea", seconds: 300), from: user)
        let walk = try await schedule(try weekly("Walk"), from: user)
        let id = tea.id.uuidString
        var methods: Set<String> = []
        /// `sender` calls `call`, answered once, at once.
        func call(_ call: AgentCall, from sender: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) async -> SentCall {
            methods.insert(call.wire.method)
            let sent = await bus.send(call, from: sender ?? user)
            #expect(sent.answers.count == 1, "\(sent.method) answered at once", sourceLocation: sourceLocation)
            return sent
        }

        #expect(try decoded(await call(.hello(appID: "org.example.Cook", usageDescription: "Timers"), from: cook), as: ClientIdentity.self).appID
                == "org.example.Cook")
        #expect(try ids(await call(.subscribe)) == [tea.id, walk.id])
        #expect(await call(.subscribeUpdates).strings == [])
        #expect(try ids(await call(.list)) == [tea.id, walk.id])
        let first = [tea.id, walk.id].map(\.uuidString).min()!
        let page = try #require(await call(.listPage(after: "", limit: 1)).strings)
        #expect(page.last == first, "one alarm a page: the next page starts after it")
        #expect(try #require(await call(.listPage(after: first.lowercased(), limit: 1)).strings) == #require(await call(.listPage(after: first, limit: 1)).strings),
                "the id to page after is read as ids are everywhere, whatever its case")
        #expect(try AgentClient.pageAndWake(#require(await call(.listPageAndWake(after: "", limit: 1)).values)).alarms == page[0])
        #expect(try JSONCoding.decoder.decode([AlarmRecord].self, from: Data(page[0].utf8)).map(\.id.uuidString) == [first])
        #expect(try decoded(await call(.get(id: id))).request.presentation.alert.title == "Tea")
        let updated = try decoded(await call(.update(id: id, configuration: try timer("Green tea", seconds: 240))))
        #expect(updated.id == tea.id && updated.request.presentation.alert.title == "Green tea")
        #expect(try decoded(await call(.apply(.pause, id: id))).state == .paused)
        #expect(try decoded(await call(.apply(.resume, id: id))).state == .countdown)
        #expect(try decoded(await call(.pressButton(id: id, button: .pause))).state == .paused, "as the countdown's Pause on its notification")
        #expect(await call(.pressButton(id: id, button: .resume), from: cook).error == "NotAuthorized", "an app does not press as the person")
        #expect(try decoded(await call(.pressButton(id: id, button: .resume))).state == .countdown)
        #expect(await call(.snooze(id: id, seconds: 60)).error == "InvalidState", "only a ringing alarm snoozes")
        #expect(await call(.apply(.countdown, id: walk.id.uuidString)).error == "InvalidState", "only a ringing alarm repeats its countdown")
        #expect(await call(.apply(.stop, id: id)).strings == ["null"], "a timer stopped before it rings ends")
        #expect(try ids(await bus.send(.list, from: user)) == [walk.id])
        #expect(await call(.apply(.cancel, id: walk.id.uuidString)).strings != nil)
        #expect(try !ids(await bus.send(.list, from: user)).contains(walk.id))
        // Undo of that Cancel: the same alarm, its id again; not while the id is in use.
        let walkJSON = String(decoding: try JSONCoding.compactEncoder.encode(walk), as: UTF8.self)
        #expect(try decoded(await call(.restore(record: walkJSON))) == walk)
        #expect(await call(.restore(record: walkJSON)).error == "InvalidConfiguration", "an id is used once")
        #expect(await call(.restore(record: "{}")).error == "InvalidConfiguration", "only an AlarmRecord is restored")
        #expect(await call(.apply(.cancel, id: walk.id.uuidString)).strings != nil)
        let morning = try decoded(await call(.schedule(id: UUID(), configuration: try weekly("Morning"))))
        #expect(try decoded(await call(.skip(id: morning.id.uuidString))).fireDate! > morning.fireDate!)
        #expect(try decoded(await call(.unskip(id: morning.id.uuidString))).fireDate == morning.fireDate)
        #expect(try decoded(await call(.setEnabled(false, id: morning.id.uuidString))).disabled)
        #expect(try !decoded(await call(.setEnabled(true, id: morning.id.uuidString))).disabled)
        #expect(await call(.requestAuthorization).strings == ["authorized"], "the user's tools are never asked")
        #expect(await call(.authorizationState, from: cook).strings == ["notDetermined"])
        #expect(await call(.setAuthorization(appID: "org.example.Cook", state: .denied)).strings == ["denied"])
        #expect(await call(.setAuthorization(appID: "org.example.Tea", state: .authorized), from: cook).error == "NotAuthorized")
        #expect(try decoded(await call(.authorizations), as: [AppAuthorization].self).map(\.appID) == ["org.example.Cook"])
        #expect(try !decoded(await call(.listSounds), as: [SoundLibrary.Entry].self).isEmpty)
        #expect(try decoded(await call(.listOutputs), as: [PulseAudio.Output].self).isEmpty, "the recording output has none")
        #expect(await call(.listOutputs, from: cook).error == "NotAuthorized", "the machine's outputs are the user's")
        let preview = await call(.playSound(name: "default", seconds: 2))
        #expect(preview.strings?.count == 1, "\(String(describing: preview.answer))")
        #expect(sound.streams == [.open("Reveille preview", corked: false)])
        clock.advance(by: 2)
        #expect(sound.streams.last == .stop("Reveille preview"), "a preview ends after its seconds, on virtual time")
        #expect(sound.volumes["Reveille preview"] == 1, "PlaySound plays at full volume")
        _ = await call(.playSound(name: "default", seconds: 10))
        #expect(await call(.previewSound(name: "default", seconds: 10, volume: 0.5)).strings?.count == 1)
        #expect(sound.volumes["Reveille preview"] == 0.5, "at the volume asked")
        #expect(sound.playing.count == 1, "one preview at a time: the earlier one stopped")
        #expect(await call(.stopPreview).strings == [])
        #expect(sound.playing.isEmpty, "StopPreview stops it before its seconds")
        #expect(try !decoded(await call(.wakeStatus), as: WakeStatus.self).wakes)
        #expect(await call(.wakeStatus, from: cook).error == "NotAuthorized", "the next alarm's time is the user's")
        _ = try decoded(await call(.history), as: [AlarmHistory.Entry].self)
        #expect(try !decoded(await call(.syncStatus), as: SyncStatus.self).configured)
        #expect(await call(.syncAdd(url: "https://dav.example.org/alarms/", user: "me", password: "secret")).error == "AgentUnavailable",
                "no sync service yet")
        #expect(await call(.syncRemove).error == "AgentUnavailable")
        #expect(await call(.syncStatus, from: cook).error == "NotAuthorized")
        #expect(try AgentSettings().changed(by: #require(await call(.settings).strings?.first)) == AgentSettings(), "no file: the defaults")
        #expect(try AgentSettings().changed(by: #require(await call(.setSettings(changes: #"{"wakeLead": 90, "ringOn": "all"}"#)).strings?.first)).wakeLead == 90)
        #expect(sound.settings?.ringOn == .all && sound.settings?.wakeLead == 90, "the sound output was given the change at once")
        // Edited by hand: the next read applies it.
        try #"{"wakeLead": 90, "ringOn": "default"}"#.write(toFile: folder.appending("settings.json").string, atomically: true, encoding: .utf8)
        _ = await call(.settings)
        #expect(sound.settings?.ringOn == .defaultOutput, "a Settings read that finds the file edited applies it")
        _ = await call(.setSettings(changes: #"{"wakeFromSuspend": false}"#))
        #expect(try decoded(await call(.wakeStatus), as: WakeStatus.self).reason?.contains("turned off") == true, "the wake-up follows at once")
        let refused = await call(.setSettings(changes: #"{"panelItem": false, "wakeLead": -1}"#))
        #expect(refused.answer == .error("InvalidConfiguration", message: "settings: wakeLead is -1; accepted: seconds, 0 to 3600"))
        let after = try AgentSettings().changed(by: #require(await call(.settings).strings?.first))
        #expect(after.wakeLead == 90 && after.panelItem, "a refused change changes nothing")
        #expect(await call(.settings, from: cook).error == "NotAuthorized", "the settings are the user's")
        #expect(methods == Set(AgentCall.methods), "every method of the interface is called here")
    }

    /// Each method the table keeps for the user's own tools refuses an app before it does
    /// anything, saying what only the user may do; the user's tools are not refused so.
    /// Issue 50: the person's defaults for new alarms are given by Schedule to the person's own
    /// alarms that leave them out, as the settings are at that moment; an app's are as it asked.
    @Test func scheduleGivesThePersonsNewAlarmsTheirDefaultsAndAnAppsNone() async throws {
        #expect(await bus.send(.setSettings(changes: #"{"ringLimit": 1800, "sound": "chime"}"#), from: user).strings != nil)
        let users = try await schedule(try timer("Tea", seconds: 300), from: user)
        #expect(users.ring.ringLimit == 1800 && users.sound == .named("chime"), "\(users.ring) \(users.sound)")
        let own = try await schedule(try timer("Eggs", seconds: 300, ringLimit: 60), from: user)
        #expect(own.ring.ringLimit == 60, "its own limit wins")
        try await allowedApp("org.example.Cook", on: cook)
        let apps = try await schedule(try timer("Pasta", seconds: 600), from: cook)
        #expect(apps.ring.ringLimit == nil && apps.sound == .default, "an app's alarm is as the app asked")
        #expect(await bus.send(.setSettings(changes: #"{"ringLimit": 600, "sound": "default"}"#), from: user).strings != nil)
        // A default sound that is not installed is refused, as `--sound` is, and nothing is written.
        let unknown = await bus.send(.setSettings(changes: #"{"sound": "chmie"}"#), from: user)
        #expect(unknown.strings == nil && "\(String(describing: unknown.answer))".contains("sound: "), "\(String(describing: unknown.answer))")
        #expect(try AgentSettings().changed(by: #require(await bus.send(.settings, from: user).strings?.first)).sound == nil)
        let kept = try decoded(await bus.send(.get(id: users.id.uuidString), from: user))
        #expect(kept.ring.ringLimit == 1800 && kept.sound == .named("chime"), "an alarm already set keeps what it was given")
    }

    @Test func everyMethodForTheUsersToolsOnlyRefusesAnAppSayingWhat() async throws {
        let tea = try await schedule(try timer("Tea", seconds: 300), from: user)
        try await allowedApp("org.example.Cook", on: cook)
        // Arguments a method accepts: its declared kinds, but where only some values are accepted.
        let accepted: [String: [AgentCall.Argument]] = [
            "SetAuthorization": [.string("org.example.Tea"), .string("denied")],
            "PressButton": [.string(tea.id.uuidString), .string("pause")],
            "PlaySound": [.string("default"), .number(1)],
            "PreviewSound": [.string("default"), .number(1), .number(0.5)],
        ]
        let userOnly = AgentMethod.table.filter { $0.userOnly != nil }
        #expect(!userOnly.isEmpty)
        for method in userOnly {
            let arguments = accepted[method.name] ?? method.parameters.map { parameter -> AgentCall.Argument in
                switch parameter.kind {
                case .string: .string(tea.id.uuidString)
                case .count: .count(0)
                case .number: .number(60)
                case .options: .dictionary(count: 0)
                }
            }
            let call = try AgentCall.decode(method: method.name, arguments: arguments)
            let refused = await bus.send(call, from: cook)
            #expect(refused.answer == .error("NotAuthorized", message: "only the user's own tools may \(method.userOnly ?? ""); org.example.Cook is an app"),
                    "\(method.name)")
            #expect(await bus.send(call, from: user).error != "NotAuthorized", "\(method.name) answers the user's tools")
        }
        #expect(try decoded(await bus.send(.get(id: tea.id.uuidString), from: user)).state == .paused, "only the user's press was taken")
    }

    @Test func listPageAndWakeIsListPageWithTheWakeAnswerTyped() async throws {
        let tea = try await schedule(try timer("Tea", seconds: 300), from: user)
        _ = try await schedule(try weekly("Walk"), from: user)
        // Read as the client reads it: the page ListPage gives, and the answer WakeStatus gives.
        for limit in [0, 1] {
            var after = "", pages = 0
            repeat {
                let reply = try AgentClient.pageAndWake(try #require(await bus.send(.listPageAndWake(after: after, limit: limit), from: user).values))
                #expect(try [reply.alarms, reply.next] == #require(await bus.send(.listPage(after: after, limit: limit), from: user).strings))
                let wake = try #require(reply.wake, "the user's tools are told whether alarms wake the machine")
                #expect(wake == (try decoded(await bus.send(.wakeStatus, from: user), as: WakeStatus.self)))
                after = reply.next
                pages += 1
            } while !after.isEmpty
            #expect(pages == (limit == 1 ? 2 : 1))
        }
        // An app: its own alarms, and no wake answer (WakeStatus is the user's).
        try await allowedApp("org.example.Cook", on: cook)
        let pasta = try await schedule(try timer("Pasta", seconds: 600), from: cook)
        let app = try AgentClient.pageAndWake(try #require(await bus.send(.listPageAndWake(after: "", limit: 0), from: cook).values))
        #expect(try JSONCoding.decoder.decode([AlarmRecord].self, from: Data(app.alarms.utf8)).map(\.id) == [pasta.id])
        #expect(app.wake == nil && app.next.isEmpty)
        #expect(tea.id != pasta.id)
    }

    @Test func aListPageAndWakeReplyOfAnotherShapeIsRefusedSayingWhy() async throws {
        func refusal(_ reply: [Variant]) -> String? {
            do { _ = try AgentClient.pageAndWake(reply); return nil } catch { return error.reason }
        }
        let wake: [String: Variant] = ["wakes": .bool(false), "lead": .double(60), "reason": .string("no helper"),
                                       "mechanism": .string("wake-helper"), "wakeAt": .double(1_800_000_000),
                                       "alarmID": .string("3F2A0000-0000-4000-8000-000000000000"), "blocked": .bool(true)]
        let read = try AgentClient.pageAndWake([.string("[]"), .string(""), .vardict(wake)])
        #expect(read.wake == WakeStatus(wakes: false, reason: "no helper", wakeAt: Date(timeIntervalSince1970: 1_800_000_000),
                                        alarmID: UUID(uuidString: "3F2A0000-0000-4000-8000-000000000000"), lead: 60, blocked: true,
                                        mechanism: .wakeHelper))
        #expect(try AgentClient.pageAndWake([.string("[]"), .string(""), .vardict([:])]).wake == nil)
        #expect(refusal([.string("[]"), .string("")])?.contains("it is (ss), not (ssa{sv})") == true)
        #expect(refusal([.string("[]"), .uint32(1), .vardict(wake)])?.contains("not (ssa{sv})") == true)
        #expect(refusal([.string("[]"), .string(""), .vardict(["lead": .double(60)])])?.contains("wake has no wakes (b) and lead (d)") == true)
        #expect(refusal([.string("[]"), .string(""), .vardict(["wakes": .bool(true)])])?.contains("wake has no wakes (b) and lead (d)") == true)
        #expect(refusal([.string("[]"), .string(""), .vardict(wake.merging(["lead": .string("60")]) { $1 })])?
            .contains("wake's lead is s") == true)
        #expect(refusal([.string("[]"), .string(""), .vardict(wake.merging(["mechanism": .string("magic")]) { $1 })])?
            .contains("wake's mechanism is s 'string(\"magic\")', which it cannot be") == true)
        #expect(refusal([.string("[]"), .string(""), .vardict(wake.merging(["alarmID": .string("3f2a")]) { $1 })])?
            .contains("wake's alarmID") == true)
        #expect(refusal([.string("[]"), .string(""), .vardict(wake)]) == nil)
    }

    @Test func aChangeIsAnsweredOnlyOnceItIsWritten() async throws {
        let call = await bus.send(.schedule(id: UUID(), configuration: try timer("Tea", seconds: 300)), from: user)
        let id = try decoded(call).id
        #expect(AlarmStore(directory: folder).load().map(\.id) == [id], "on disk when answered")
        // Made by the runtime in a later turn, its work (the write among it) is charged to the caller.
        #expect(call.charged > 0, "the change's loop time is counted on the caller's budget")
        #expect(await bus.send(.list, from: user).charged == 0, "a read is answered while called: nothing later to charge")

        // A folder that cannot hold the store: the change is refused, nothing is told, nothing kept.
        let signals = bus.signals.count
        #expect(await bus.send(.subscribeUpdates, from: user).strings == [])
        try FileManager.default.removeItem(atPath: folder.string)
        #expect(FileManager.default.createFile(atPath: folder.string, contents: Data("not a folder".utf8)))
        let refused = await bus.send(.schedule(id: UUID(), configuration: try timer("Coffee", seconds: 60)), from: user)
        #expect(refused.error == "StorageFailure")
        #expect(bus.signals.count == signals, "no AlarmsUpdated for a change that was not made")
        #expect(try ids(await bus.send(.list, from: user)) == [id])
        #expect(await bus.send(.apply(.cancel, id: id.uuidString), from: user).error == "StorageFailure")
        #expect(try ids(await bus.send(.list, from: user)) == [id], "the alarm is still there")
        try FileManager.default.removeItem(atPath: folder.string)
    }

    @Test func callsWaitingForTheUserAreAnsweredWhenTheUserDecidesAndAreBounded() async throws {
        #expect(await bus.send(.hello(appID: "org.example.Cook", usageDescription: "Timers for the kitchen"), from: cook).strings != nil)
        let shown = notifications.calls.count
        let asking = await bus.send(.requestAuthorization, from: cook)
        var scheduling = [await bus.send(.schedule(id: UUID(), configuration: try timer("Pasta", seconds: 600)), from: cook)]
        clock.advance(by: 1)
        #expect(asking.answer == nil && scheduling[0].answer == nil, "both wait for the user")
        guard case .notify(let prompt, _, _, let actions)? = notifications.calls.dropFirst(shown).first else {
            Issue.record("the user is asked with a notification: \(notifications.calls)")
            return
        }
        #expect(actions.contains("allow"))
        #expect(notifications.calls.count == shown + 1, "asked once for the app, however many calls wait")

        // At most 8 calls of a connection wait; the next is refused at once, naming the bound.
        for _ in 0..<(WireLimits.parkedCallsPerConnection - 2) {
            scheduling.append(await bus.send(.schedule(id: UUID(), configuration: try timer("Rice", seconds: 900)), from: cook))
        }
        let over = await bus.send(.schedule(id: UUID(), configuration: try timer("Soup", seconds: 900)), from: cook)
        #expect(over.error == "InvalidState")
        #expect(scheduling.allSatisfy { $0.answer == nil })

        clock.advance(by: 30)
        #expect(asking.answer == nil, "nothing is answered before the user is")
        notifications.press("allow", on: prompt)
        #expect(asking.strings == ["authorized"])
        await runtime.quiet()
        let scheduled = try scheduling.map { try decoded($0).id }
        #expect(try ids(await bus.send(.list, from: cook)) == Set(scheduled))
        // What waited is released: the next call is answered at once.
        #expect(await bus.send(.schedule(id: UUID(), configuration: try timer("Soup", seconds: 900)), from: cook).strings != nil)
    }

    @Test func anAppSeesChangesAndHearsOnlyItsOwnAlarms() async throws {
        try await allowedApp("org.example.Cook", on: cook)
        try await allowedApp("org.example.Tea", on: tea)
        for sender in [user, cook, tea] { #expect(await bus.send(.subscribeUpdates, from: sender).strings == []) }
        let start = bus.signals.count
        let pasta = try await schedule(try timer("Pasta", seconds: 600), from: cook)
        let green = try await schedule(try timer("Green", seconds: 180), from: tea)
        #expect(try updated(bus.signals(since: start, to: cook)).map { $0.changed.map(\.id) } == [[pasta.id]])
        #expect(try updated(bus.signals(since: start, to: tea)).map { $0.changed.map(\.id) } == [[green.id]])
        #expect(try updated(bus.signals(since: start, to: user)).map { $0.changed.map(\.id) } == [[pasta.id], [green.id]])

        #expect(try ids(await bus.send(.list, from: cook)) == [pasta.id])
        #expect(try ids(await bus.send(.list, from: user)) == [pasta.id, green.id])
        #expect(try JSONCoding.decoder.decode([AlarmRecord].self,
                                              from: Data(await bus.send(.listPage(after: "", limit: 0), from: tea).strings![0].utf8)).map(\.id) == [green.id])
        // Another app's alarm is not there for it, to read or to change.
        #expect(await bus.send(.get(id: green.id.uuidString), from: cook).error == "NotFound")
        #expect(await bus.send(.apply(.cancel, id: green.id.uuidString), from: cook).error == "NotFound")
        #expect(await bus.send(.update(id: green.id.uuidString, configuration: try timer("Mine", seconds: 60)), from: cook).error == "NotFound")
        #expect(try ids(await bus.send(.list, from: user)) == [pasta.id, green.id])

        // Tea's alarm ends: Tea and the user hear it, Cook hears nothing.
        let mark = bus.signals.count
        #expect(await bus.send(.apply(.cancel, id: green.id.uuidString), from: tea).strings != nil)
        #expect(bus.signals(since: mark, to: cook).isEmpty)
        #expect(try updated(bus.signals(since: mark, to: tea)).map(\.removed) == [[green.id.uuidString]])
        #expect(try updated(bus.signals(since: mark, to: user)).map(\.removed) == [[green.id.uuidString]])
    }

    @Test func eachChangeIsToldOnceAndTheViewMovesOnVirtualTime() async throws {
        #expect(await bus.send(.subscribeUpdates, from: user).strings == [])
        var mark = bus.signals.count
        let tea = try await schedule(try timer("Tea", seconds: 60), from: user)
        #expect(try updated(bus.signals(since: mark, to: user)).map { $0.changed.map(\.state) } == [[.countdown]])
        #expect(bus.signals.count == mark + 1, "one signal for one change")

        mark = bus.signals.count
        clock.advance(by: 59.9)
        #expect(bus.signals.count == mark, "nothing before the instant")
        clock.advance(by: 0.2)
        let ringing = bus.signals(since: mark, to: user)
        #expect(ringing.map(\.name) == ["AlarmsUpdated", "AlarmAlerting"])
        #expect(try updated(ringing).map { $0.changed.map(\.state) } == [[.alerting]])
        #expect(ringing.last?.arguments == [.string(tea.id.uuidString)])
        clock.advance(by: 5)
        #expect(bus.signals.count == mark + 2, "told once while it rings")

        mark = bus.signals.count
        #expect(await bus.send(.apply(.stop, id: tea.id.uuidString), from: user).strings == ["null"], "a timer stopped ends")
        #expect(try updated(bus.signals(since: mark, to: user)).map(\.removed) == [[tea.id.uuidString]])
        #expect(bus.signals.count == mark + 1)
    }

    @Test func anAppHearsItsOwnButtonsMissedAlarmsAndAuthorizationOnly() async throws {
        #expect(await bus.send(.hello(appID: "org.example.Cook", usageDescription: "Timers for the kitchen"), from: cook).strings != nil)
        #expect(await bus.send(.hello(appID: "org.example.Tea", usageDescription: "Tea timers"), from: tea).strings != nil)
        for sender in [user, cook, tea] { #expect(await bus.send(.subscribeUpdates, from: sender).strings == []) }
        var mark = bus.signals.count
        #expect(await bus.send(.setAuthorization(appID: "org.example.Cook", state: .authorized), from: user).strings == ["authorized"])
        let allowed = RecordingBus.Signal(name: "AuthorizationChanged", to: cook, arguments: [.string("org.example.Cook"), .string("authorized")])
        #expect(bus.signals(since: mark, to: cook) == [allowed])
        #expect(bus.signals(since: mark, to: user).map(\.arguments) == [allowed.arguments])
        #expect(bus.signals(since: mark, to: tea).isEmpty)

        // The settings are the user's: a change is told to the user's tools, to no app.
        mark = bus.signals.count
        let changed = try #require(await bus.send(.setSettings(changes: #"{"alertWindow": "never"}"#), from: user).strings?.first)
        #expect(bus.signals(since: mark, to: user) == [RecordingBus.Signal(name: "SettingsChanged", to: user, arguments: [.string(changed)])])
        #expect(bus.signals(since: mark, to: cook).isEmpty && bus.signals(since: mark, to: tea).isEmpty)

        // A button pressed on Cook's ringing alarm: Cook and the user hear which.
        let pasta = try await schedule(try timer("Pasta", seconds: 60), from: cook)
        clock.advance(by: 60)
        mark = bus.signals.count
        await client.send(.buttonPressed(pasta.id, .stop), to: runtime)
        let pressed = [Variant.string(pasta.id.uuidString), .string("stop")]
        #expect(bus.signals(since: mark, to: cook).filter { $0.name == "ActionInvoked" }.map(\.arguments) == [pressed])
        #expect(bus.signals(since: mark, to: user).filter { $0.name == "ActionInvoked" }.map(\.arguments) == [pressed])
        #expect(bus.signals(since: mark, to: tea).isEmpty)

        // The same Stop from the user's alert window (PressButton): Cook hears it as a press.
        let eggs = try await schedule(try timer("Eggs", seconds: 60), from: cook)
        clock.advance(by: 60)
        mark = bus.signals.count
        #expect(await bus.send(.pressButton(id: eggs.id.uuidString, button: .stop), from: user).strings == ["null"], "a stopped timer ends")
        #expect(bus.signals(since: mark, to: cook).filter { $0.name == "ActionInvoked" }.map(\.arguments)
                == [[.string(eggs.id.uuidString), .string("stop")]])
        #expect(await bus.send(.pressButton(id: eggs.id.uuidString, button: .stop), from: user).error == "NotFound", "pressed again: it ended")

        // A window drawn while the alarm rang, pressed after it was snoozed: the snoozing alarm
        // shows no Stop, so nothing ends, no intent runs and Cook hears nothing.
        let soup = try await schedule(try timer("Soup", seconds: 60), from: cook)
        clock.advance(by: 60)
        #expect(await bus.send(.apply(.countdown, id: soup.id.uuidString), from: user).error == nil)
        mark = bus.signals.count
        let stale = await bus.send(.pressButton(id: soup.id.uuidString, button: .stop), from: user)
        #expect(stale.error == "InvalidState")
        if case .error(_, let message)? = stale.answer { #expect(message.contains("pressed: stop"), "\(message)") }
        #expect(bus.signals(since: mark, to: cook).isEmpty)
        #expect(try ids(await bus.send(.list, from: user)).contains(soup.id), "the snoozed timer is still there")

        // Rung unanswered to its ring limit: missed, told to Cook and the user at that instant.
        let rice = try await schedule(try timer("Rice", seconds: 60, ringLimit: 30), from: cook)
        clock.advance(by: 60 + 29)
        mark = bus.signals.count
        clock.advance(by: 2)
        let missed = bus.signals(since: mark, to: cook).filter { $0.name == "AlarmMissed" }
        #expect(missed.map { $0.arguments.first } == [.string(rice.id.uuidString)])
        #expect(bus.signals(since: mark, to: user).filter { $0.name == "AlarmMissed" }.count == 1)
        #expect(bus.signals(since: mark, to: tea).isEmpty)
    }

    @Test func aCallLargerThanTheWireAllowsIsRefusedUnread() async throws {
        let huge = String(repeating: "x", count: WireLimits.callBytes)
        let call = await bus.send("Schedule", CallArguments(delivering: [.string(""), .string(huge), .vardict([:])], limit: WireLimits.callBytes),
                            from: user)
        #expect(call.error == "InvalidConfiguration")
        if case .error(_, let message)? = call.answer { #expect(message.contains("at most \(WireLimits.callBytes)")) }
        #expect(try ids(await bus.send(.list, from: user)).isEmpty)
        let unknown = await bus.send("Explode", CallArguments(delivering: [], limit: WireLimits.callBytes), from: user)
        #expect(unknown.error == "InvalidConfiguration", "an unknown method is refused, naming the methods")
    }
}
