import ReveilleBus
import ReveilleCore
import ReveilleGtk
import ReveilleLoop

/// The alert window's widgets, made through the windows' GTK layer (ReveilleGtk, as the app's
/// are), in libadwaita's style, light or dark as the desktop prefers: a title, a line of detail,
/// Stop and an optional second button, large, with keys (Enter or Escape: Stop; S: the second
/// button). Kept above other windows and on every workspace where the platform allows (X11),
/// without taking the focus from a window being typed into; elsewhere an ordinary toplevel.
@GLibActor
final class AlertView {
    /// What the person asked for.
    enum Answer { case stop, secondary }

    private let window: Widget
    private let status: Widget

    /// Opens GTK on the display in the environment, with libadwaita's style; `false` when there
    /// is none to open.
    static func openDisplay() -> Bool {
        // The window's class (WM_CLASS, the Wayland app id) for window rules.
        guard Application.openDisplay(programName: "reveille-alert") else { return false }
        Adwaita.styleFollowsDesktop()
        Application.loadStyle(style)
        return true
    }

    init(title: String, detail: String, stopLabel: String, secondaryLabel: String?, keyHint: String,
         onAnswer: @escaping @GLibActor (Answer) -> Void, onClose: @escaping @GLibActor () -> Void) {
        window = Widget.window(title: title, width: 560)
        window.addStyle("reveille-alert")
        status = Self.label("", style: "alert-status")
        status.addStyle("error")
        status.isVisible = false

        let box = Widget.box(vertical: true, spacing: 18)
        box.setMargins(36)
        let heading = Self.label(title, style: "alert-title")
        heading.wrapsText()
        box.append(heading)
        box.append(Self.label(detail, style: "alert-detail"))

        let buttons = Widget.box(vertical: false, spacing: 18)
        buttons.centerHorizontally()
        buttons.setTopMargin(12)
        let stop = Self.button(stopLabel, style: "destructive-action") { onAnswer(.stop) }
        buttons.append(stop)
        if let secondaryLabel {
            buttons.append(Self.button(secondaryLabel, style: "suggested-action") { onAnswer(.secondary) })
        }
        box.append(buttons)
        let keys = Self.label(keyHint, style: "alert-keys")
        keys.addStyle("dim-label")
        box.append(keys)
        box.append(status)
        window.setChild(box)
        window.setDefault(stop)
        stop.grabFocus()

        // Keys are taken before the focused button sees them (capture), and only those the
        // gate admits act: a key pressed before the window was active and settled is not an
        // answer, nor is Enter or Space reaching the focused Stop for it.
        let hasSecondary = secondaryLabel != nil
        let state = KeyState { answer in
            guard answer == .stop || hasSecondary else { return false }
            onAnswer(answer)
            return true
        }
        window.onKey(pressed: { key, code in state.pressed(key: key, code: code) },
                     released: { code in state.gate.released(code) })
        window.onActiveChanged { active in state.gate.active(active, at: KeyState.now) }
        window.onCloseRequest(onClose)
        window.keepsAboveEverywhere()
    }

    /// The keys' state: the gate, and what an admitted key answers.
    final class KeyState {
        var gate = AlertKeyGate()
        let answer: @GLibActor (Answer) -> Bool
        init(answer: @escaping @GLibActor (Answer) -> Bool) { self.answer = answer }

        static var now: Double { Application.monotonicSeconds }

        /// Whether the press is taken here: refused by the gate (nothing else sees it), or an answer.
        @GLibActor func pressed(key: UInt32, code: UInt32) -> Bool {
            guard gate.pressed(code, at: Self.now) else { return true }
            let answer: Answer? = switch Widget.keyName(key) {
            case "Return", "KP_Enter", "Escape": .stop
            case "s", "S": .secondary
            default: nil
            }
            return answer.map { self.answer($0) } ?? false
        }
    }

    /// Shows the window without taking the focus where the desktop allows: a person typing
    /// elsewhere as it opens keeps typing there. A click answers it at once; its keys answer it
    /// once the person moves to it.
    /// Over the lock screen too, where the compositor lets it (KWin on Wayland).
    func present() { window.showWithoutFocus(overLockScreen: true) }

    /// A line under the buttons: why an answer did not reach the agent.
    func showStatus(_ text: String) {
        status.text = text
        status.isVisible = true
    }

    // MARK: Building blocks

    private static func label(_ text: String, style: String) -> Widget {
        let label = Widget.label(text)
        label.addStyle(style)
        return label
    }

    private static func button(_ text: String, style: String, action: @escaping @GLibActor () -> Void) -> Widget {
        let button = Widget.button(plain: text)
        button.addStyle(style)
        button.addStyle("alert-answer")
        button.onClicked(action)
        return button
    }

    /// Large text and buttons, readable across a room; colours are libadwaita's (light or dark).
    private static let style = """
        .alert-title { font-size: 30pt; font-weight: bold; }
        .alert-detail { font-size: 16pt; }
        .alert-keys { font-size: 11pt; }
        .alert-status { font-size: 11pt; }
        button.alert-answer { font-size: 20pt; font-weight: bold; padding: 14px 36px; min-width: 160px; }
        /* Filled, as libadwaita 1.2 draws it; from 1.6 a destructive button is only tinted. */
        button.alert-answer.destructive-action { background-color: @destructive_bg_color; color: @destructive_fg_color; }
        """
}
