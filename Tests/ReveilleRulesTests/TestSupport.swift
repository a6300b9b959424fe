import Foundation
@testable import ReveilleRules
import ReveilleTimeZone
import ReveilleModel

/// A zone of the system's tz database, as the agent and the CLI read it.
func zone(_ identifier: String) -> GLibTimeZone { GLibTimeZone(identifier: identifier)! }

/// Parses an ISO 8601 instant in a test, failing loudly on a typo.
func instant(_ text: String, in timeZone: any TimeZoneRules = UTCTimeZone()) -> Date {
    guard let date = ISO8601Local.parse(text, defaultTimeZone: timeZone) else {
        fatalError("test instant '\(text)' does not parse")
    }
    return date
}

func relative(_ hour: Int, _ minute: Int, _ days: [Locale.Weekday]? = nil) -> Alarm.Schedule {
    .relative(.init(time: .init(hour: hour, minute: minute), repeats: days.map { .weekly($0) } ?? .never))
}

let everyDay: [Locale.Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday, .saturday, .sunday]

func request(schedule: Alarm.Schedule?, preAlert: TimeInterval? = nil, postAlert: TimeInterval? = 540,
             title: String = "Wake up") -> AlarmRequest {
    AlarmRequest(
        schedule: schedule,
        countdownDuration: .init(preAlert: preAlert, postAlert: postAlert),
        presentation: AlarmPresentation(alert: .init(
            title: title, secondaryButton: postAlert == nil ? nil : .snoozeButton,
            secondaryButtonBehavior: postAlert == nil ? nil : .countdown)))
}

/// A phase of `state`, with plausible data, for tests that put an alarm in any state.
func phase(_ state: Alarm.State, at now: Date = Date(timeIntervalSince1970: 1_800_000_000)) -> AlarmRecord.Phase {
    switch state {
    case .scheduled: .scheduled(fireDate: now.addingTimeInterval(600))
    case .countdown: .countdown(until: now.addingTimeInterval(60), length: 100, previouslyElapsed: nil)
    case .paused: .paused(remaining: 60, length: 100)
    case .alerting: .alerting(since: now)
    }
}
