// An app on ReveilleKit for the end-to-end tests: each command is one AlarmManager call.
//
//   reveille-test-app APP_ID [USAGE|-] COMMAND [ARG]
//   commands: request-authorization, state, timer SECONDS [METADATA_JSON] (sound from
//             REVEILLE_TEST_SOUND), list, cancel ID,
//             updates COUNT, events COUNT, fill COUNT, plural COUNT, metadata, timer-run SECONDS ARGV_JSON,
//             timer-open SECONDS DESKTOP_ID, shared (AlarmManager.shared without configureShared), actions COUNT,
//             record-argv FILE ARG... (writes its arguments and REVEILLE_ALARM_ID/ACTION to FILE),
//             sync-calls main|plain|loop (every synchronous call: on the main actor, a plain
//             thread, or the GLib loop's thread),
//             list-twice FILE (lists, waits for FILE to exist, lists again), snooze-for ID SECONDS,
//             concurrent-calls COUNT FILE (one call, then, once FILE exists, COUNT at once; the
//             process's threads counted before and while they wait)
// Prints results as JSON lines; an AlarmError as "error: CODE: REASON" on stderr, exit 3.
import Foundation
import ReveilleBus
import ReveilleCore
import ReveilleKit
import ReveilleLoop
import ReveilleRules
import ReveilleSystem
import ReveilleWords
import Synchronization

/// What the tests attach to alarms, to prove metadata round-trips.
struct Recipe: AlarmMetadata {
    var dish: String
    var minutes: Int
}

func printJSON<Value: Encodable>(_ value: Value) throws {
    print(String(decoding: try JSONCoding.compactEncoder.encode(value), as: UTF8.self))
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: reveille-test-app APP_ID USAGE|- COMMAND [ARG]\n".utf8))
    exit(2)
}
let manager = AlarmManager(appID: arguments[0], usageDescription: arguments[1] == "-" ? nil : arguments[1])
let argument = arguments.count > 3 ? arguments[3] : ""

func attributes(_ recipe: Recipe?) -> AlarmAttributes<Recipe> {
    AlarmAttributes(presentation: AlarmPresentation(
        alert: .init(title: recipe?.dish ?? "Test", stopButton: .stopButton, secondaryButton: .repeatButton,
                     secondaryButtonBehavior: .countdown),
        countdown: .init(title: recipe?.dish ?? "Test", pauseButton: .pauseButton), paused: .init(title: recipe?.dish ?? "Test")),
        metadata: recipe, tintColor: .orange)
}

do {
    switch arguments[2] {
    case "request-authorization":
        print(try await manager.requestAuthorization().rawValue)
    case "state":
        print(manager.authorizationState.rawValue)
    case "timer":
        let seconds = Double(argument) ?? 60
        let recipe = arguments.count > 4 ? try JSONDecoder().decode(Recipe.self, from: Data(arguments[4].utf8)) : nil
        // REVEILLE_TEST_SOUND: a sound name (or anything else) to ask for.
        let sound = ProcessInfo.processInfo.environment["REVEILLE_TEST_SOUND"].map { AlertConfiguration.AlertSound.named($0) } ?? .default
        // REVEILLE_TEST_RING_LIMIT: seconds it rings unanswered.
        let ringLimit = ProcessInfo.processInfo.environment["REVEILLE_TEST_RING_LIMIT"].flatMap(Double.init)
        let alarm = try await manager.schedule(id: UUID(), configuration: AlarmManager.AlarmConfiguration(
            countdownDuration: .init(preAlert: seconds, postAlert: seconds), attributes: attributes(recipe), sound: sound)
            .ringing(ringLimit: ringLimit))
        try printJSON(["id": alarm.id.uuidString, "state": alarm.state.rawValue])
    case "timer-run":
        // A timer whose secondary button runs the JSON argument vector in arguments[4].
        let argv = try JSONDecoder().decode([String].self, from: Data(arguments[4].utf8))
        let presentation = AlarmPresentation(alert: .init(
            title: "Runner", stopButton: .stopButton,
            secondaryButton: AlarmButton(text: "Run", textColor: .white, systemImageName: "system-run"),
            secondaryButtonBehavior: .custom))
        let alarm = try await manager.schedule(id: UUID(), configuration: .init(
            countdownDuration: .init(preAlert: Double(argument) ?? 1, postAlert: nil),
            attributes: AlarmAttributes<Recipe>(presentation: presentation, tintColor: .green),
            secondaryIntent: .run(arguments: argv)))
        try printJSON(["id": alarm.id.uuidString, "state": alarm.state.rawValue])
    case "timer-open":
        // A timer whose Stop button opens the desktop id in arguments[4].
        let alarm = try await manager.schedule(id: UUID(), configuration: .init(
            countdownDuration: .init(preAlert: Double(argument) ?? 1, postAlert: nil),
            attributes: AlarmAttributes<Recipe>(presentation: AlarmPresentation(alert: .init(title: "Opener", stopButton: .stopButton)),
                                                tintColor: .green),
            stopIntent: .openApp(desktopID: arguments[4])))
        try printJSON(["id": alarm.id.uuidString, "state": alarm.state.rawValue])
    case "shared":
        // AlarmManager.shared as an app that never called configureShared: asks, then schedules a timer.
        print(try await AlarmManager.shared.requestAuthorization().rawValue)
        let alarm = try await AlarmManager.shared.schedule(id: UUID(), configuration: .timer(duration: 600, attributes: attributes(nil)))
        try printJSON(["id": alarm.id.uuidString, "state": alarm.state.rawValue])
    case "actions":
        var left = Int(argument) ?? 1
        print("listening")
        fflush(nil)
        for await action in manager.alarmActions {
            try printJSON(["id": action.alarmID.uuidString, "button": action.button.rawValue])
            fflush(nil)
            left -= 1
            if left == 0 { break }
        }
    case "events":
        var left = Int(argument) ?? 1
        print("listening")
        fflush(nil)
        for await event in manager.alarmEvents {
            switch event {
            case .alerting(let id): print("alerting \(id.uuidString)")
            case .missed(let id, _, let reason): print("missed \(id.uuidString) \(reason.rawValue)")
            }
            fflush(nil)
            left -= 1
            if left == 0 { break }
        }
    case "plural":
        // The missed notice's plural, as the agent's catalogs give it in this locale.
        Localization.setUp()
        let count = Int(argument) ?? 0
        print(L("It rang at %@ for %@ and stopped without an answer.", "07:00", Ln("%@ minute", "%@ minutes", count, String(count))))
    case "record-argv":
        // Writes this process's arguments after the file name, and its alarm environment, to the file.
        let record = ["arguments": Array(arguments.dropFirst(4)),
                      "alarm": [ProcessInfo.processInfo.environment["REVEILLE_ALARM_ID"] ?? "",
                                ProcessInfo.processInfo.environment["REVEILLE_ACTION"] ?? ""]]
        try JSONEncoder().encode(record).write(to: URL(fileURLWithPath: argument))
    case "list":
        try printJSON(try manager.alarms.map(\.id.uuidString))
    case "cancel":
        try manager.cancel(id: UUID(uuidString: argument) ?? UUID())
        print("ok")
    case "snooze-for":
        // Reveille's extension: snooze ID (argument) for arguments[4] seconds.
        try manager.snooze(id: UUID(uuidString: argument) ?? UUID(), for: Double(arguments[4]) ?? 0)
        print("ok")
    case "list-twice":
        try printJSON(try manager.alarms.map(\.id.uuidString))
        fflush(nil)
        while !FileManager.default.fileExists(atPath: arguments[4]) { usleep(20_000) }
        try printJSON(try manager.alarms.map(\.id.uuidString))
    case "concurrent-calls":
        // The threads of this process (/proc/self/task) once the client has made its first call,
        // and while COUNT calls wait for an agent the test holds stopped: each waits on the
        // client's one thread, so there are no more than a few more (Swift's task pool's).
        func threads() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1 }
        let count = Int(argument) ?? 32
        _ = try await manager.async.alarms
        print("idle \(threads())")
        fflush(nil)
        while !FileManager.default.fileExists(atPath: arguments[4]) { usleep(20_000) }
        let answered = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<count { group.addTask { try await manager.async.alarms.count } }
            try await Task.sleep(for: .seconds(1))
            print("waiting \(threads())")
            fflush(nil)
            var answered = 0
            for try await _ in group { answered += 1 }
            return answered
        }
        print("answered \(answered)")
    case "sync-calls":
        // Two timers scheduled the async way; then every synchronous call, on the thread asked for.
        let long = try await manager.schedule(id: UUID(), configuration: .timer(duration: 600, attributes: attributes(nil)))
        let short = try await manager.schedule(id: UUID(), configuration: .timer(duration: 1, attributes: attributes(nil)))
        let calls: @Sendable () -> [String] = {
            var log = ["authorizationState \(manager.authorizationState.rawValue)"]
            func state(_ id: UUID) -> String {
                ((try? manager.alarms.first { $0.id == id }?.state.rawValue) ?? nil) ?? "gone"
            }
            func step(_ name: String, _ id: UUID, _ call: (Alarm.ID) throws -> Void) {
                do {
                    try call(id)
                    log.append("\(name) \(state(id))")
                } catch {
                    log.append("\(name) failed: \(error)")
                }
            }
            log.append("alarms \((try? manager.alarms.count).map(String.init) ?? "failed")")
            step("pause", long.id, manager.pause)
            step("resume", long.id, manager.resume)
            step("cancel", long.id, manager.cancel)
            let deadline = Date().addingTimeInterval(10)
            while state(short.id) != "alerting", Date() < deadline { usleep(50_000) }
            log.append("fired \(state(short.id))")
            step("countdown", short.id, manager.countdown)
            step("stop", short.id, manager.stop)
            return log
        }
        let log: [String]
        switch argument {
        case "plain":
            let box = Mutex<[String]>([])
            let thread = PosixThread { box.withLock { $0 = calls() } }
            thread.join()
            log = box.withLock { $0 }
        case "loop":
            log = await Task { @GLibActor in
                GLibActor.shared.preconditionIsolated()  // on the thread that runs the GLib loop
                return calls()
            }.value
        default:
            // The main actor, where a SwiftUI-style view model calls from (on Linux, libdispatch
            // drains the main queue on a thread of its own after the main thread exits).
            log = await MainActor.run {
                MainActor.preconditionIsolated()
                return calls()
            }
        }
        for line in log { print(line) }
    case "updates":
        var left = Int(argument) ?? 1
        for await alarms in manager.alarmUpdates {
            try printJSON(alarms.map(\.id.uuidString))
            fflush(nil)
            left -= 1
            if left == 0 { break }
        }
    case "fill":
        var made = 0
        for _ in 0..<(Int(argument) ?? 1) {
            _ = try await manager.schedule(id: UUID(), configuration: .timer(duration: 3600, attributes: attributes(nil)))
            made += 1
        }
        print(made)
    case "metadata":
        let decoded: [Recipe?] = try manager.alarmMetadata(Recipe.self).map(\.metadata)
        try printJSON(decoded)
    default:
        FileHandle.standardError.write(Data("unknown command \(arguments[2])\n".utf8))
        exit(2)
    }
} catch let error as AlarmError {
    FileHandle.standardError.write(Data("error: \(error.code): \(error.reason)\n".utf8))
    exit(3)
}
