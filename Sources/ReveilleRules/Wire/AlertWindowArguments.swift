import FoundationEssentials

/// What the agent asks `reveille-alert` to show, as that program's command line:
/// `--alarm ID --title TEXT --detail TEXT --stop LABEL [--secondary LABEL]`. One codec for
/// both sides, so what the agent writes is what the window reads. Each value is the next
/// argument taken as it is (a title may begin with `-`); the text is already displayable
/// (the agent's `NotificationContent` made it so), and the window shows it as plain text.
package struct AlertWindowArguments: Equatable, Sendable {
    /// The ringing alarm the window answers (through the agent's D-Bus interface).
    package var alarmID: UUID
    package var title: String
    /// `Alarm · rang at 07:30`.
    package var detail: String
    package var stopLabel: String
    /// The second button's label, when pressing it has an action the window can ask for
    /// (Snooze, Repeat); `nil` for none.
    package var secondaryLabel: String?

    package init(alarmID: UUID, title: String, detail: String, stopLabel: String, secondaryLabel: String?) {
        (self.alarmID, self.title, self.detail, self.stopLabel, self.secondaryLabel) = (alarmID, title, detail, stopLabel, secondaryLabel)
    }

    /// The arguments after the program's path.
    package var arguments: [String] {
        ["--alarm", alarmID.uuidString.lowercased(), "--title", title, "--detail", detail, "--stop", stopLabel]
            + (secondaryLabel.map { ["--secondary", $0] } ?? [])
    }

    /// The form, for a refusal.
    package static let accepted = "--alarm UUID --title TEXT --detail TEXT --stop LABEL [--secondary LABEL]"

    /// Reads `arguments` (after the program's path); every option at most once, `--alarm`
    /// and `--stop` required.
    package init(parsing arguments: [String]) throws(InputError) {
        var values: [String: String] = [:]
        var rest = arguments[...]
        while let option = rest.popFirst() {
            guard ["--alarm", "--title", "--detail", "--stop", "--secondary"].contains(option), values[option] == nil else {
                throw InputError(text: option, expected: .alertOptionOnce, accepted: .alertWindowArguments)
            }
            guard let value = rest.popFirst() else {
                throw InputError(text: option, expected: .alertOptionValue, accepted: .alertWindowArguments)
            }
            values[option] = value
        }
        guard let id = values["--alarm"].flatMap(UUID.init(uuidString:)) else {
            throw InputError(text: values["--alarm"] ?? "", expected: .alertAlarmID, accepted: .alertWindowArguments)
        }
        guard let stop = values["--stop"] else {
            throw InputError(text: arguments.joined(separator: " "), expected: .alertStopLabel, accepted: .alertWindowArguments)
        }
        self.init(alarmID: id, title: values["--title"] ?? "", detail: values["--detail"] ?? "", stopLabel: stop,
                  secondaryLabel: values["--secondary"])
    }
}

/// How `reveille-alert` ends, its exit status: what the agent makes of a window that ended.
package enum AlertWindowExit: Int32, Sendable {
    /// Answered, closed by the person, or its agent gone.
    case done = 0
    case badArguments = 2
    /// It could not open the display.
    case noDisplay = 3
    /// It could not reach the session bus, or follow its alarm through the agent.
    case noAgent = 4

    /// Whether a window that ended with `status` could not connect (to its display, to the
    /// agent): a moment's refusal, worth another try.
    package static func couldNotConnect(_ status: Int32) -> Bool {
        status == noDisplay.rawValue || status == noAgent.rawValue
    }
}

/// Whether the alert window may show over the session's lock screen, as `reveille-alert
/// --lock-screen-overlay` finds its display and says it by its exit status (`reveille status`).
package enum LockScreenOverlay: Int32, Sendable {
    /// The compositor offers the program `kde_lockscreen_overlay_v1` (KWin: an installed
    /// desktop file names it with `X-KDE-Wayland-Interfaces`).
    case offered = 0
    /// A Wayland compositor that does not offer it to the program.
    case notOffered = 10
    /// Not a Wayland display (on X11 no window shows over a locker).
    case notWayland = 11
}
