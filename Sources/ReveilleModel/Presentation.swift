import FoundationEssentials

/// How an alarm shows itself in each of its states.
public struct AlarmPresentation: Codable, Hashable, Sendable {
    /// The alerting notification.
    public var alert: Alert
    /// The live countdown notification (timer, pre-alert, snooze); none when `nil`.
    public var countdown: Countdown?
    /// The paused countdown notification.
    public var paused: Paused?

    public init(alert: Alert, countdown: Countdown? = nil, paused: Paused? = nil) {
        self.alert = alert
        self.countdown = countdown
        self.paused = paused
    }

    /// The alert: title, the Stop button and an optional secondary button.
    public struct Alert: Codable, Hashable, Sendable {
        public var title: LocalizedStringResource
        public var stopButton: AlarmButton
        public var secondaryButton: AlarmButton?
        public var secondaryButtonBehavior: SecondaryButtonBehavior?

        /// An alert with its own Stop button (iOS 26.0's form).
        public init(title: LocalizedStringResource, stopButton: AlarmButton, secondaryButton: AlarmButton? = nil,
                    secondaryButtonBehavior: SecondaryButtonBehavior? = nil) {
            self.title = title
            self.stopButton = stopButton
            self.secondaryButton = secondaryButton
            self.secondaryButtonBehavior = secondaryButtonBehavior
        }

        /// An alert with the system's Stop button (iOS 26.1's form): Reveille's `.stopButton`,
        /// shown in the user's language, whatever `stopButton` the app defines for itself.
        public init(title: LocalizedStringResource, secondaryButton: AlarmButton? = nil,
                    secondaryButtonBehavior: SecondaryButtonBehavior? = nil) {
            self.init(title: title, stopButton: .stopButton, secondaryButton: secondaryButton,
                      secondaryButtonBehavior: secondaryButtonBehavior)
        }

        /// An alert titled with text built at run time (a literal takes the forms above).
        @_disfavoredOverload
        public init(title: String, stopButton: AlarmButton = .stopButton, secondaryButton: AlarmButton? = nil,
                    secondaryButtonBehavior: SecondaryButtonBehavior? = nil) {
            self.init(title: LocalizedStringResource(title), stopButton: stopButton, secondaryButton: secondaryButton,
                      secondaryButtonBehavior: secondaryButtonBehavior)
        }

        private enum CodingKeys: String, CodingKey {
            case title, stopButton, secondaryButton, secondaryButtonBehavior
        }

        /// Decodes with the initializer's defaults, so a hand-written configuration may omit `stopButton`.
        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            title = try container.decode(LocalizedStringResource.self, forKey: .title)
            stopButton = try container.decodeIfPresent(AlarmButton.self, forKey: .stopButton) ?? .stopButton
            secondaryButton = try container.decodeIfPresent(AlarmButton.self, forKey: .secondaryButton)
            secondaryButtonBehavior = try container.decodeIfPresent(SecondaryButtonBehavior.self, forKey: .secondaryButtonBehavior)
        }

        /// Leaves out a default Stop button: every stored and listed alarm is shorter for it.
        public func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(title, forKey: .title)
            if stopButton != .stopButton { try container.encode(stopButton, forKey: .stopButton) }
            try container.encodeIfPresent(secondaryButton, forKey: .secondaryButton)
            try container.encodeIfPresent(secondaryButtonBehavior, forKey: .secondaryButtonBehavior)
        }

        /// What the secondary button does.
        public enum SecondaryButtonBehavior: String, Codable, Hashable, Sendable {
            /// Starts the post-alert countdown: snooze or repeat.
            case countdown
            /// Runs the secondary intent, such as opening the app.
            case custom
        }
    }

    /// The countdown notification's title and its Pause button (none: it cannot be paused
    /// from the notification, as in AlarmKit).
    public struct Countdown: Codable, Hashable, Sendable {
        public var title: LocalizedStringResource
        public var pauseButton: AlarmButton?

        public init(title: LocalizedStringResource, pauseButton: AlarmButton? = nil) {
            self.title = title
            self.pauseButton = pauseButton
        }

        /// A countdown titled with text built at run time.
        @_disfavoredOverload
        public init(title: String, pauseButton: AlarmButton? = nil) {
            self.init(title: LocalizedStringResource(title), pauseButton: pauseButton)
        }
    }

    /// The paused notification's title and its Resume button.
    public struct Paused: Codable, Hashable, Sendable {
        public var title: LocalizedStringResource
        public var resumeButton: AlarmButton

        public init(title: LocalizedStringResource, resumeButton: AlarmButton = .resumeButton) {
            self.title = title
            self.resumeButton = resumeButton
        }

        /// A paused presentation titled with text built at run time.
        @_disfavoredOverload
        public init(title: String, resumeButton: AlarmButton = .resumeButton) {
            self.init(title: LocalizedStringResource(title), resumeButton: resumeButton)
        }
    }
}

/// A button on an alarm's notification. `systemImageName` is a freedesktop icon name (an SF
/// Symbol name is accepted and never drawn: notification servers show the label).
public struct AlarmButton: Codable, Hashable, Sendable {
    public var text: LocalizedStringResource
    public var textColor: Color
    public var systemImageName: String

    public init(text: LocalizedStringResource, textColor: Color, systemImageName: String) {
        self.text = text
        self.textColor = textColor
        self.systemImageName = systemImageName
    }

    /// A button labelled with text built at run time (the presets' msgids among it).
    @_disfavoredOverload
    public init(text: String, textColor: Color, systemImageName: String) {
        self.init(text: LocalizedStringResource(text), textColor: textColor, systemImageName: systemImageName)
    }

    private enum CodingKeys: String, CodingKey { case text, textColor, systemImageName }

    /// `textColor` may be left out: white.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        text = try container.decode(LocalizedStringResource.self, forKey: .text)
        textColor = try container.decodeIfPresent(Color.self, forKey: .textColor) ?? .white
        systemImageName = try container.decode(String.self, forKey: .systemImageName)
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(text, forKey: .text)
        if textColor != .white { try container.encode(textColor, forKey: .textColor) }
        try container.encode(systemImageName, forKey: .systemImageName)
    }

    public static let stopButton = AlarmButton(text: N_("Stop"), textColor: .white, systemImageName: "media-playback-stop")
    public static let snoozeButton = AlarmButton(text: N_("Snooze"), textColor: .white, systemImageName: "alarm-symbolic")
    public static let repeatButton = AlarmButton(text: N_("Repeat"), textColor: .white, systemImageName: "view-refresh")
    public static let pauseButton = AlarmButton(text: N_("Pause"), textColor: .white, systemImageName: "media-playback-pause")
    public static let resumeButton = AlarmButton(text: N_("Resume"), textColor: .white, systemImageName: "media-playback-start")
    public static let openAppButton = AlarmButton(text: N_("Open"), textColor: .white, systemImageName: "window-new")
}

/// A plain RGB colour, components from 0 to 1.
public struct Color: Codable, Hashable, Sendable {
    public var red: Double
    public var green: Double
    public var blue: Double

    public init(red: Double, green: Double, blue: Double) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// SwiftUI's initializer; the opacity is dropped (a tint here is a plain colour).
    public init(red: Double, green: Double, blue: Double, opacity: Double) {
        self.init(red: red, green: green, blue: blue)
    }

    // SwiftUI's standard colours, close to their light-mode values.
    public static let black = Color(red: 0, green: 0, blue: 0)
    public static let white = Color(red: 1, green: 1, blue: 1)
    public static let gray = Color(red: 0.56, green: 0.56, blue: 0.58)
    public static let red = Color(red: 1, green: 0.23, blue: 0.19)
    public static let orange = Color(red: 1, green: 0.58, blue: 0)
    public static let yellow = Color(red: 1, green: 0.8, blue: 0)
    public static let green = Color(red: 0.2, green: 0.78, blue: 0.35)
    public static let mint = Color(red: 0, green: 0.78, blue: 0.75)
    public static let blue = Color(red: 0, green: 0.48, blue: 1)
    public static let indigo = Color(red: 0.35, green: 0.34, blue: 0.84)
    public static let purple = Color(red: 0.69, green: 0.32, blue: 0.87)
    public static let pink = Color(red: 1, green: 0.18, blue: 0.33)
    public static let brown = Color(red: 0.64, green: 0.52, blue: 0.37)
    public static let cyan = Color(red: 0.2, green: 0.68, blue: 0.9)
    public static let teal = Color(red: 0.19, green: 0.69, blue: 0.78)
    /// No tint of its own: Reveille's default blue.
    public static let accentColor = blue
    public static let primary = black
    public static let secondary = gray
    /// Transparent in SwiftUI; a tint cannot be, so white.
    public static let clear = white
}
