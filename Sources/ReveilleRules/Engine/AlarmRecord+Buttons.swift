import ReveilleModel

extension AlarmRecord {
    /// The buttons the alarm shows in its state, in order: what its notification and alert
    /// window draw, and so the only buttons a press may name (a stale bubble, a window drawn
    /// before the alarm moved on, a client's `PressButton`).
    package var shownButtons: [AlarmButtonRole] {
        switch state {
        case .scheduled: []
        case .alerting: [.stop] + (presentation.alert.secondaryButton == nil ? [] : [.secondary])
        // Resting between unanswered rings: Stop ends the chain (Cancel would delete the alarm).
        case .countdown where unanswered != nil: [.stop]
        case .countdown: presentation.countdown.map { ($0.pauseButton == nil ? [] : [.pause]) + [.cancel] } ?? []
        case .paused: presentation.paused == nil ? [] : [.resume, .cancel]
        }
    }
}
