// An app on ReveilleKit for the end-to-end tests: each command is one AlarmManager call.
//
//   reveille-test-app APP_ID [USAGE|-] COMMAND [ARG]
//   commands: request-authorization, state, timer SECONDS [METADATA_JSON] (sound from
//             REVEILLE_TEST_SOUND), list, cancel ID,
//             updates COUNT, fill COUNT, metadata
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
