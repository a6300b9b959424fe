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

// The widget's buttons are labelled with the presentation's texts, `LocalizedStringResource`s
// as in AlarmKit (`Text(button.text)` in SwiftUI).
func buttonLabels(_ presentation: AlarmPresentation) -> [LocalizedStringResource] {
    let alert = presentation.alert
    var labels: [LocalizedStringResource] = [alert.title, alert.stopButton.text]
    if let secondary = alert.secondaryButton { labels.append(secondary.text) }
    if let countdown = presentation.countdown { labels.append(countdown.title) }
    if let pause = presentation.countdown?.pauseButton { labels.append(pause.text) }
    if let paused = presentation.paused { labels += [paused.title, paused.resumeButton.text] }
    return labels
}
