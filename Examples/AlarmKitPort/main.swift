// AlarmKit code as Apple's documentation and the WWDC25 session write it (ViewModel.swift,
// CookingData.swift, AlarmButtons.swift), ported by changing the import line, the colours and
// the intents (Intents.swift). This file stands in for the SwiftUI views: it drives the model
// the way a person would, prints what the model sees, and exits 0 when all went as expected.
//
//   reveille-example-alarmkit
import Glibc
import ReveilleKit

// On iOS the usage description is NSAlarmKitUsageDescription in Info.plist.
AlarmManager.configureShared(appID: "io.github.reveille.AlarmKitPort",
                             usageDescription: "Rings your kitchen timers and wake-up alarms.")

let model = ViewModel()

/// Waits (polling the model, as a view would redraw) until `condition` holds, or fails.
func waitUntil(_ what: String, seconds: Double = 15, _ condition: @MainActor () -> Bool) async {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if await MainActor.run(body: condition) { return }
        try? await Task.sleep(nanoseconds: 50_000_000)
    }
    print("FAILED waiting for \(what)")
    exit(1)
}

@MainActor func state(of label: String) -> Alarm.State? {
    model.alarmsMap.values.first { String(localized: $0.1) == label }?.0.state
}

@MainActor func id(of label: String) -> UUID {
    model.alarmsMap.first { String(localized: $0.value.1) == label }!.key
}

print("authorized: \(model.isAuthorized)")
let minutes = 3
model.scheduleAlertOnly("Call the baker", at: Date().addingTimeInterval(3600))
model.scheduleWeekly("Wake up", hour: 7, minute: 30, on: [.monday, .wednesday, .friday])
model.scheduleCountdown("Boil \(minutes) min eggs", seconds: 2, method: .stove)
model.scheduleCustomButtonAlert("Check the oven", at: Date().addingTimeInterval(7200))
await waitUntil("four alarms") { model.alarmsMap.count == 4 }
print("scheduled: \(await MainActor.run { model.alarmsMap.values.map { String(localized: $0.1) }.sorted() })")

// The timer: pause and resume it (synchronous calls), then let it ring and stop it.
let eggs = await MainActor.run { id(of: "Boil 3 min eggs") }
model.pause(eggs)
await waitUntil("the timer paused") { state(of: "Boil 3 min eggs") == .paused }
print("eggs: paused")
for state in try AlarmManager.shared.presentationStates where state.alarmID == eggs {
    print("eggs live activity: \(liveActivityText(state))")
}
model.resume(eggs)
await waitUntil("the timer counting down again") { state(of: "Boil 3 min eggs") == .countdown }
print("eggs: countdown")
await waitUntil("the timer alerting") { state(of: "Boil 3 min eggs") == .alerting }
print("eggs: alerting")
model.stop(eggs)
await waitUntil("the stopped timer gone") { state(of: "Boil 3 min eggs") == nil }
print("eggs: stopped")

// Synchronous and asynchronous reads agree; metadata comes back typed.
model.fetchAlarms()
let synchronous = try AlarmManager.shared.alarms.map(\.id).sorted { $0.uuidString < $1.uuidString }
let asynchronous = try await AlarmManager.shared.async.alarms.map(\.id).sorted { $0.uuidString < $1.uuidString }
print("alarms: \(synchronous.count), async agrees: \(synchronous == asynchronous)")
let methods = try AlarmManager.shared.alarmMetadata(CookingData.self).compactMap { $0.metadata?.method?.rawValue }
print("metadata methods: \(methods.sorted())")

// A recipe's timer in iOS 26.1's and 27's words: the system's Stop (not the app's Done), and
// the texts read back as the widget would label its buttons.
model.scheduleRecipeAlarm("Buy eggs", for: .softBoiledEggs, at: Date().addingTimeInterval(86_400))
await waitUntil("the recipe alarm") { state(of: "Buy eggs") == .scheduled }
let recipeTimer = model.scheduleRecipeTimer(for: .softBoiledEggs, seconds: 1)
await waitUntil("the recipe timer alerting") { state(of: "Eggs are ready!") == .alerting }
let shown = try AlarmManager.shared.presentation(of: recipeTimer)
print("recipe timer: \(buttonLabels(shown).map { String(localized: $0) })")
model.stop(recipeTimer)
await waitUntil("the stopped recipe timer gone") { state(of: "Eggs are ready!") == nil }

// Cancel everything, as a list's swipe-to-delete would.
for alarmID in await MainActor.run(body: { Array(model.alarmsMap.keys) }) {
    model.unscheduleAlarm(with: alarmID)
}
await waitUntil("no alarms left") { !model.hasUpcomingAlerts }
print("alarms left: \(try AlarmManager.shared.alarms.count)")
