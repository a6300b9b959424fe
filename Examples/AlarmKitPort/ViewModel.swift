import Observation
import ReveilleKit  // was: import AlarmKit (and SwiftUI, AppIntents)

/// The app's model, as an AlarmKit app writes it: it schedules through `AlarmManager.shared`,
/// reads the alarms synchronously, and follows `alarmUpdates`. Only the import line, the
/// colours and the intents differ from the iOS code.
@Observable final class ViewModel {
    typealias AlarmConfiguration = AlarmManager.AlarmConfiguration<CookingData>
    typealias AlarmsMap = [UUID: (Alarm, LocalizedStringResource)]

    @MainActor var alarmsMap = AlarmsMap()
    /// The labels of alarms scheduled in this session, kept apart from the map: an update that
    /// was on its way before `schedule` answered may drop and re-add an alarm.
    @MainActor private var labels: [UUID: LocalizedStringResource] = [:]
    @ObservationIgnored private let alarmManager = AlarmManager.shared

    @MainActor var hasUpcomingAlerts: Bool { !alarmsMap.isEmpty }

    init() {
        observeAlarms()
    }

    // MARK: Reading

    func fetchAlarms() {
        do {
            let remoteAlarms = try alarmManager.alarms
            updateAlarmState(with: remoteAlarms)
        } catch {
            print("Error fetching alarms: \(error)")
        }
    }

    var isAuthorized: Bool {
        switch alarmManager.authorizationState {
        case .authorized: true
        case .notDetermined, .denied: false
        }
    }

    // MARK: Scheduling

    /// A one-time alarm at `date`, alert only.
    func scheduleAlertOnly(_ label: LocalizedStringResource, at date: Date) {
        let alert = AlarmPresentation.Alert(title: label, stopButton: .stopButton)
        let attributes = AlarmAttributes<CookingData>(presentation: AlarmPresentation(alert: alert), tintColor: .mint)
        let configuration = AlarmConfiguration.alarm(schedule: .fixed(date), attributes: attributes)
        scheduleAlarm(id: UUID(), label: label, alarmConfiguration: configuration)
    }

    /// A weekly alarm with a 9-minute snooze.
    func scheduleWeekly(_ label: LocalizedStringResource, hour: Int, minute: Int, on days: [Locale.Weekday]) {
        let alert = AlarmPresentation.Alert(title: label, stopButton: .stopButton, secondaryButton: .repeatButton,
                                            secondaryButtonBehavior: .countdown)
        let attributes = AlarmAttributes(presentation: AlarmPresentation(alert: alert), metadata: CookingData(), tintColor: .blue)
        let time = Alarm.Schedule.Relative.Time(hour: hour, minute: minute)
        let schedule = Alarm.Schedule.relative(.init(time: time, repeats: .weekly(days)))
        let configuration = AlarmConfiguration(countdownDuration: Alarm.CountdownDuration(preAlert: nil, postAlert: 9 * 60),
                                               schedule: schedule, attributes: attributes)
        scheduleAlarm(id: UUID(), label: label, alarmConfiguration: configuration)
    }

    /// A timer that can be paused and resumed, and repeated when it alerts.
    func scheduleCountdown(_ label: LocalizedStringResource, seconds: TimeInterval, method: CookingData.Method) {
        let alert = AlarmPresentation.Alert(title: label, stopButton: .stopButton, secondaryButton: .repeatButton,
                                            secondaryButtonBehavior: .countdown)
        let countdown = AlarmPresentation.Countdown(title: "Cooking", pauseButton: .pauseButton)
        let paused = AlarmPresentation.Paused(title: "Paused", resumeButton: .resumeButton)
        let attributes = AlarmAttributes(presentation: AlarmPresentation(alert: alert, countdown: countdown, paused: paused),
                                         metadata: CookingData(method: method), tintColor: .brown)
        let configuration = AlarmConfiguration.timer(duration: seconds, attributes: attributes)
        scheduleAlarm(id: UUID(), label: label, alarmConfiguration: configuration)
    }

    /// A recipe's timer as Apple's documentation writes it (iOS 26.1's alert with the system's
    /// Stop, iOS 27's `appEntityIdentifier:`).
    func scheduleRecipeTimer(for recipe: RecipeEntity, seconds: TimeInterval) -> UUID {
        let alert = AlarmPresentation.Alert(title: "Eggs are ready!",
           secondaryButton: AlarmButton(text: "Repeat", textColor: .blue, systemImageName: "repeat"),
           secondaryButtonBehavior: .countdown)
        let countdown = AlarmPresentation.Countdown(title: "Eggs are cooking")
        let paused = AlarmPresentation.Paused(
            title: "Timer paused",
            resumeButton: AlarmButton(text: "Resume", textColor: .blue, systemImageName: "play.circle"))
        let presentation = AlarmPresentation(alert: alert, countdown: countdown, paused: paused)
        let attributes = AlarmAttributes<CookingData>(presentation: presentation, tintColor: .yellow)
        let configuration = AlarmConfiguration.timer(duration: seconds, attributes: attributes,
                                                     appEntityIdentifier: EntityIdentifier(for: recipe))
        let id = UUID()
        scheduleAlarm(id: id, label: alert.title, alarmConfiguration: configuration)
        return id
    }

    /// A one-time alarm for a recipe, named by its type and id (iOS 27).
    func scheduleRecipeAlarm(_ label: LocalizedStringResource, for recipe: RecipeEntity, at date: Date) {
        let attributes = AlarmAttributes<CookingData>(presentation: AlarmPresentation(alert: .init(title: label)),
                                                      tintColor: .yellow)
        let configuration = AlarmConfiguration(schedule: .fixed(date), attributes: attributes,
                                               appEntityIdentifier: EntityIdentifier(for: RecipeEntity.self, identifier: recipe.id))
        scheduleAlarm(id: UUID(), label: label, alarmConfiguration: configuration)
    }

    /// An alarm whose second button opens the app and leaves the alarm ringing.
    func scheduleCustomButtonAlert(_ label: LocalizedStringResource, at date: Date) {
        let alert = AlarmPresentation.Alert(title: label, stopButton: .stopButton, secondaryButton: .openAppButton,
                                            secondaryButtonBehavior: .custom)
        let attributes = AlarmAttributes(presentation: AlarmPresentation(alert: alert), metadata: CookingData(method: .oven),
                                         tintColor: .orange)
        let configuration = AlarmConfiguration(schedule: .fixed(date), attributes: attributes,
                                               secondaryIntent: Intents.openApp())
        scheduleAlarm(id: UUID(), label: label, alarmConfiguration: configuration)
    }

    private func scheduleAlarm(id: UUID, label: LocalizedStringResource, alarmConfiguration: AlarmConfiguration) {
        Task {
            do {
                guard await requestAuthorization() else {
                    print("Not authorized to schedule alarms.")
                    return
                }
                await MainActor.run { labels[id] = label }
                let alarm = try await alarmManager.schedule(id: id, configuration: alarmConfiguration)
                await MainActor.run {
                    alarmsMap[id] = (alarm, label)
                }
            } catch {
                print("Error encountered when scheduling alarm: \(error)")
            }
        }
    }

    // MARK: Answering (synchronous, as in AlarmKit)

    func pause(_ id: UUID) { try? alarmManager.pause(id: id) }
    func resume(_ id: UUID) { try? alarmManager.resume(id: id) }
    func stop(_ id: UUID) { try? alarmManager.stop(id: id) }

    func unscheduleAlarm(with alarmID: UUID) {
        try? alarmManager.cancel(id: alarmID)
        Task { @MainActor in
            alarmsMap[alarmID] = nil
        }
    }

    // MARK: Following the agent

    private func requestAuthorization() async -> Bool {
        switch alarmManager.authorizationState {
        case .notDetermined:
            do {
                let state = try await alarmManager.requestAuthorization()
                return state == .authorized
            } catch {
                print("Error occurred while requesting authorization: \(error)")
                return false
            }
        case .denied: return false
        case .authorized: return true
        }
    }

    private func observeAlarms() {
        Task {
            for await incomingAlarms in alarmManager.alarmUpdates {
                updateAlarmState(with: incomingAlarms)
            }
        }
    }

    private func updateAlarmState(with remoteAlarms: [Alarm]) {
        Task { @MainActor in
            // Alarms scheduled in an earlier session have no label here.
            for updated in remoteAlarms {
                alarmsMap[updated.id, default: (updated, labels[updated.id] ?? "Alarm (Old Session)")].0 = updated
            }
            let knownAlarmIDs = Set(alarmsMap.keys)
            let incomingAlarmIDs = Set(remoteAlarms.map(\.id))
            for id in knownAlarmIDs.subtracting(incomingAlarmIDs) {
                alarmsMap[id] = nil
            }
        }
    }
}
