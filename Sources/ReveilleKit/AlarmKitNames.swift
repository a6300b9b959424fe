import FoundationEssentials
public import ReveilleModel
package import ReveilleCore

// AlarmKit's initializers, taking `LocalizedStringResource` where AlarmKit does. The
// `String` ones (ReveilleCore's) stay for code that builds texts at run time.

extension AlarmPresentation.Alert {
    /// An alert with its own Stop button (iOS 26.0's form).
    public init(title: LocalizedStringResource, stopButton: AlarmButton, secondaryButton: AlarmButton? = nil,
                secondaryButtonBehavior: SecondaryButtonBehavior? = nil) {
        self.init(title: title.defaultValue, stopButton: stopButton, secondaryButton: secondaryButton,
                  secondaryButtonBehavior: secondaryButtonBehavior)
    }

    /// An alert with the system's Stop button (iOS 26.1's form).
    public init(title: LocalizedStringResource, secondaryButton: AlarmButton? = nil,
                secondaryButtonBehavior: SecondaryButtonBehavior? = nil) {
        self.init(title: title.defaultValue, secondaryButton: secondaryButton, secondaryButtonBehavior: secondaryButtonBehavior)
    }
}

extension AlarmPresentation.Countdown {
    /// A countdown presentation; without `pauseButton` it cannot be paused from its notification.
    public init(title: LocalizedStringResource, pauseButton: AlarmButton? = nil) {
        self.init(title: title.defaultValue, pauseButton: pauseButton)
    }
}

extension AlarmPresentation.Paused {
    public init(title: LocalizedStringResource, resumeButton: AlarmButton) {
        self.init(title: title.defaultValue, resumeButton: resumeButton)
    }
}

extension AlarmButton {
    /// A button; `systemImageName` may be an SF Symbol name (it is never drawn: Linux
    /// notification servers show the label).
    public init(text: LocalizedStringResource, textColor: Color, systemImageName: String) {
        self.init(text: text.defaultValue, textColor: textColor, systemImageName: systemImageName)
    }
}
