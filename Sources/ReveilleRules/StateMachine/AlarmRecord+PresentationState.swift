import FoundationEssentials
import ReveilleModel

extension AlarmRecord {
    /// The presentation state, or `nil` while merely scheduled (nothing is shown).
    package func presentationState(in timeZone: any TimeZoneRules) -> AlarmPresentationState? {
        let mode: AlarmPresentationState.Mode
        switch state {
        case .scheduled:
            return nil
        case .alerting:
            let since = alertingSince ?? fireDate ?? Date()
            let local = ISO8601Local.string(from: since, in: timeZone)
            let hour = Int(local.dropFirst(11).prefix(2)) ?? 0, minute = Int(local.dropFirst(14).prefix(2)) ?? 0
            mode = .alert(.init(time: .init(hour: hour, minute: minute)))
        case .countdown:
            guard let fireDate else { return nil }
            let total = countdownLength ?? 0, elapsed = previouslyElapsed ?? 0
            mode = .countdown(.init(totalCountdownDuration: total, previouslyElapsedDuration: elapsed,
                                    startDate: fireDate.addingTimeInterval(elapsed - total), fireDate: fireDate))
        case .paused:
            let total = countdownLength ?? 0
            mode = .paused(.init(totalCountdownDuration: total, previouslyElapsedDuration: max(0, total - (pausedTimeRemaining ?? 0))))
        }
        return AlarmPresentationState(alarmID: id, mode: mode)
    }
}
