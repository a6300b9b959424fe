// A cooking timer on ReveilleKit, after AlarmKit's WWDC sample: a timer with custom
// metadata, countdown and paused presentations, and a Repeat button. It prints every
// update of its alarms until the timer alerts (or after --updates N).
//
//   reveille-example-cooking [--minutes M | --seconds S] [--updates N]
import Foundation
import ReveilleKit

/// The app's data, carried with the alarm by the agent.
struct CookingData: AlarmMetadata {
    var dish: String
    var method: String
}

var seconds: TimeInterval = 4 * 60
var updatesWanted = Int.max
var iterator = CommandLine.arguments.dropFirst().makeIterator()
while let argument = iterator.next() {
    switch argument {
    case "--minutes": seconds = (Double(iterator.next() ?? "") ?? 4) * 60
    case "--seconds": seconds = Double(iterator.next() ?? "") ?? 240
    case "--updates": updatesWanted = Int(iterator.next() ?? "") ?? Int.max
    default:
        print("usage: reveille-example-cooking [--minutes M | --seconds S] [--updates N]")
        exit(2)
    }
}

// On iOS the usage description is NSAlarmKitUsageDescription in Info.plist.
AlarmManager.configureShared(appID: "io.github.reveille.CookingTimer",
                             usageDescription: "Rings when your dish is done, even if this app is closed.")
let manager = AlarmManager.shared

do {
    // Ask once; the user answers on a notification (or with `reveille auth allow`).
    guard try await manager.requestAuthorization() == .authorized else {
        print("Not allowed to schedule alarms. `reveille auth allow io.github.reveille.CookingTimer` changes that.")
        exit(1)
    }

    let alert = AlarmPresentation.Alert(title: "Pasta is ready", stopButton: .stopButton,
                                        secondaryButton: .repeatButton, secondaryButtonBehavior: .countdown)
    let countdown = AlarmPresentation.Countdown(title: "Cooking pasta", pauseButton: .pauseButton)
    let paused = AlarmPresentation.Paused(title: "Paused", resumeButton: .resumeButton)
    let attributes = AlarmAttributes(presentation: AlarmPresentation(alert: alert, countdown: countdown, paused: paused),
                                     metadata: CookingData(dish: "Spaghetti", method: "boil"), tintColor: .orange)

    let id = UUID()
    let alarm = try await manager.schedule(id: id, configuration: .timer(duration: seconds, attributes: attributes))
    print("scheduled \(alarm.id) (\(alarm.state.rawValue)) for \(Int(seconds)) s")

    for await alarms in manager.alarmUpdates {
        let states = alarms.map { "\($0.id.uuidString.prefix(8)) \($0.state.rawValue)" }
        print("update: " + (states.isEmpty ? "no alarms" : states.joined(separator: ", ")))
        fflush(nil)
        updatesWanted -= 1
        if updatesWanted == 0 || alarms.first(where: { $0.id == id })?.state == .alerting { break }
    }
    let metadata = try manager.alarmMetadata(CookingData.self).first { $0.alarm.id == id }?.metadata
    print("metadata: \(metadata.map { "\($0.dish), \($0.method)" } ?? "none")")
} catch {
    print("error: \(error)")
    exit(1)
}
