// An app on ReveilleKit for the end-to-end tests: each command is one AlarmManager call.
//
//   reveille-test-app APP_ID [USAGE|-] COMMAND [ARG]
//   commands: request-authorization, state, timer SECONDS [METADATA_JSON] (sound from
//             REVEILLE_TEST_SOUND), list, cancel ID,
//             updates COUNT, fill COUNT, metadata, timer-run SECONDS ARGV_JSON, actions COUNT,
//             record-argv FILE ARG... (writes its arguments and REVEILLE_ALARM_ID/ACTION to FILE)
// Prints results as JSON lines; an AlarmError as "error: CODE: REASON" on stderr, exit 3.
import Foundation
import ReveilleKit

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
        countdown: .init(title: recipe?.dish ?? "Test"), paused: .init(title: recipe?.dish ?? "Test")),
        metadata: recipe, tintColor: .orange)
}

do {
    switch arguments[2] {
    case "request-authorization":
        print(try await manager.requestAuthorization().rawValue)
    case "state":
        print(try await manager.authorizationState.rawValue)
    case "timer":
        let seconds = Double(argument) ?? 60
        let recipe = arguments.count > 4 ? try JSONDecoder().decode(Recipe.self, from: Data(arguments[4].utf8)) : nil
        // REVEILLE_TEST_SOUND: a sound name (or anything else) to ask for.
        let sound = ProcessInfo.processInfo.environment["REVEILLE_TEST_SOUND"].map { AlertConfiguration.AlertSound.named($0) } ?? .default
        let alarm = try await manager.schedule(id: UUID(), configuration: .init(
            countdownDuration: .init(preAlert: seconds, postAlert: seconds), attributes: attributes(recipe), sound: sound))
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
    case "actions":
        var left = Int(argument) ?? 1
        print("listening")
        fflush(nil)
        for await action in manager.alarmActions {
            try printJSON(["id": action.alarmID.uuidString, "button": action.button])
            fflush(nil)
            left -= 1
            if left == 0 { break }
        }
    case "record-argv":
        // Writes this process's arguments after the file name, and its alarm environment, to the file.
        let record = ["arguments": Array(arguments.dropFirst(4)),
                      "alarm": [ProcessInfo.processInfo.environment["REVEILLE_ALARM_ID"] ?? "",
                                ProcessInfo.processInfo.environment["REVEILLE_ACTION"] ?? ""]]
        try JSONEncoder().encode(record).write(to: URL(fileURLWithPath: argument))
    case "list":
        try printJSON(try await manager.alarms.map(\.id.uuidString))
    case "cancel":
        try await manager.cancel(id: UUID(uuidString: argument) ?? UUID())
        print("ok")
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
        let decoded: [Recipe?] = try await manager.alarmMetadata(Recipe.self).map(\.metadata)
        try printJSON(decoded)
    default:
        FileHandle.standardError.write(Data("unknown command \(arguments[2])\n".utf8))
        exit(2)
    }
} catch let error as AlarmError {
    FileHandle.standardError.write(Data("error: \(error.code): \(error.reason)\n".utf8))
    exit(3)
}
