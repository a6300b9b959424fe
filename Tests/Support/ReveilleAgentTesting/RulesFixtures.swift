import FoundationEssentials
import ReveilleModel
import ReveilleRules
import ReveilleTimeZone

// What the rules' tests of several modules build their cases from: zones, instants, schedules,
// requests and phases.

/// A zone of the system's tz database, as the agent and the CLI read it.
package func zone(_ identifier: String) -> GLibTimeZone { GLibTimeZone(identifier: identifier)! }

/// Parses an ISO 8601 instant in a test, failing loudly on a typo.
package func instant(_ text: String, in timeZone: any TimeZoneRules = UTCTimeZone()) -> Date {
    guard let date = ISO8601Local.parse(text, defaultTimeZone: timeZone) else {
        fatalError("test instant '\(text)' does not parse")
    }
    return date
}

package func relative(_ hour: Int, _ minute: Int, _ days: [Locale.Weekday]? = nil) -> Alarm.Schedule {
    .relative(.init(time: .init(hour: hour, minute: minute), repeats: days.map { .weekly($0) } ?? .never))
}

package let everyDay: [Locale.Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday, .saturday, .sunday]

package func request(schedule: Alarm.Schedule?, preAlert: TimeInterval? = nil, postAlert: TimeInterval? = 540,
             title: String = "Wake up") -> AlarmRequest {
    AlarmRequest(
        schedule: schedule,
        countdownDuration: .init(preAlert: preAlert, postAlert: postAlert),
        presentation: AlarmPresentation(alert: .init(
            title: title, secondaryButton: postAlert == nil ? nil : .snoozeButton,
            secondaryButtonBehavior: postAlert == nil ? nil : .countdown)))
}

/// A phase of `state`, with plausible data, for tests that put an alarm in any state.
package func phase(_ state: Alarm.State, at now: Date = Date(timeIntervalSince1970: 1_800_000_000)) -> AlarmRecord.Phase {
    switch state {
    case .scheduled: .scheduled(fireDate: now.addingTimeInterval(600))
    case .countdown: .countdown(until: now.addingTimeInterval(60), length: 100, previouslyElapsed: nil)
    case .paused: .paused(remaining: 60, length: 100)
    case .alerting: .alerting(since: now)
    }
}
