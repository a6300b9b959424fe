import ReveilleKit

// On iOS this is the widget extension's Live Activity view, fed the alarm's
// `AlarmAttributes<CookingData>.ContentState`. Here it is text.
func liveActivityText(_ state: AlarmAttributes<CookingData>.ContentState) -> String {
    switch state.mode {
    case .countdown(let countdown):
        let left = countdown.fireDate.timeIntervalSince(Date())
        return "counting down, \(left > 0 ? "time left" : "due") of \(Int(countdown.totalCountdownDuration)) s"
    case .paused(let paused):
        let left = paused.totalCountdownDuration - paused.previouslyElapsedDuration
        return "paused, \(left > 0 ? "time left" : "none left") of \(Int(paused.totalCountdownDuration)) s"
    case .alert(let alert):
        return "alerting since \(alert.time.hour):\(alert.time.minute)"
    }
}
