import CGtk
import Glibc
import ReveilleBus
import ReveilleCore

/// The alert window's widgets, the one place GTK's C API is used: a title, a line of detail,
/// Stop and an optional second button, large, with keys (Enter or Escape: Stop; S: the second
/// button). Kept above other windows and on every workspace where the platform allows (X11),
/// without taking the focus from a window being typed into; elsewhere an ordinary toplevel.
@GLibActor
final class AlertView {
    /// What the person asked for.
    enum Answer { case stop, secondary }

    private let window: UnsafeMutablePointer<GtkWidget>
    private let status: UnsafeMutablePointer<GtkWidget>

    /// Has GTK draw with cairo and load no GL driver, unless the person chose a renderer
    /// (`GSK_RENDERER`). The window is a few labels and buttons; GTK's default GL renderer
    /// first loads a GL driver, and where there is no GPU (a virtual machine, Xvfb) that is
    /// Mesa's llvmpipe with LLVM: measured on Xvfb, 200 ms of CPU and of time to the first
    /// frame, against 80 ms this way, for an alert that should appear at once. GTK 4.8–4.14
    /// read `GDK_DEBUG=gl-disable`, later ones `GDK_DISABLE=gl`. Called before any thread
    /// starts: `setenv` is not safe beside a reader of the environment.
    nonisolated static func preferCairoRenderer() {
        guard getenv("GSK_RENDERER") == nil else { return }
        setenv("GSK_RENDERER", "cairo", 0)
        setenv("GDK_DEBUG", "gl-disable", 0)
        setenv("GDK_DISABLE", "gl", 0)
    }

    /// Opens GTK on the display in the environment; `nil` when there is none to open.
    static func openDisplay() -> Bool {
        // The window's class (WM_CLASS, the Wayland app id) for window rules.
        g_set_prgname("reveille-alert")
        return gtk_init_check() != 0
    }

    init(title: String, detail: String, stopLabel: String, secondaryLabel: String?, keyHint: String,
         onAnswer: @escaping @GLibActor (Answer) -> Void, onClose: @escaping @GLibActor () -> Void) {
        Self.loadStyle()
        window = gtk_window_new()
        status = gtk_label_new(nil)
        let gtkWindow = Self.cast(window, GtkWindow.self)
        gtk_window_set_title(gtkWindow, title)
        gtk_window_set_icon_name(gtkWindow, "io.github.reveille.Reveille")
        gtk_window_set_default_size(gtkWindow, 560, -1)
        gtk_widget_add_css_class(window, "reveille-alert")

        let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 18)!
        for edge in [gtk_widget_set_margin_top, gtk_widget_set_margin_bottom, gtk_widget_set_margin_start, gtk_widget_set_margin_end] {
            edge(box, 36)
        }
        let heading = Self.label(title, style: "alert-title")
        gtk_label_set_wrap(OpaquePointer(heading), 1)
        gtk_box_append(Self.cast(box, GtkBox.self), heading)
        gtk_box_append(Self.cast(box, GtkBox.self), Self.label(detail, style: "alert-detail"))

        let buttons = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 18)!
        gtk_widget_set_halign(buttons, GTK_ALIGN_CENTER)
        gtk_widget_set_margin_top(buttons, 12)
        let stop = Self.button(stopLabel, style: "destructive-action") { onAnswer(.stop) }
        gtk_box_append(Self.cast(buttons, GtkBox.self), stop)
        if let secondaryLabel {
            gtk_box_append(Self.cast(buttons, GtkBox.self), Self.button(secondaryLabel, style: "suggested-action") { onAnswer(.secondary) })
        }
        gtk_box_append(Self.cast(box, GtkBox.self), buttons)
        gtk_box_append(Self.cast(box, GtkBox.self), Self.label(keyHint, style: "alert-keys"))
        gtk_widget_add_css_class(status, "alert-status")
        gtk_widget_set_visible(status, 0)
        gtk_box_append(Self.cast(box, GtkBox.self), status)
        gtk_window_set_child(gtkWindow, box)
        gtk_window_set_default_widget(gtkWindow, stop)
        gtk_widget_grab_focus(stop)

        // Keys are taken before the focused button sees them (capture), and only those the
        // gate admits act: a key pressed before the window was active and settled is not an
        // answer, nor is Enter or Space reaching the focused Stop for it.
        let keys = gtk_event_controller_key_new()!
        gtk_event_controller_set_propagation_phase(keys, GTK_PHASE_CAPTURE)
        let hasSecondary = secondaryLabel != nil
        let state = KeyState { answer in
            guard answer == .stop || hasSecondary else { return false }
            onAnswer(answer)
            return true
        }
        typealias KeyPressed = @convention(c) (UnsafeMutableRawPointer?, guint, guint, GdkModifierType, UnsafeMutableRawPointer?) -> gboolean
        let keyPressed: KeyPressed = { _, key, code, _, data in
            let state = CallbackBox<KeyState>.from(data)
            return GLibActor.assumeIsolated { state.pressed(key: key, code: code) } ? 1 : 0
        }
        Self.connect(UnsafeMutableRawPointer(keys), "key-pressed", unsafeBitCast(keyPressed, to: GCallback.self), CallbackBox(state))
        typealias KeyReleased = @convention(c) (UnsafeMutableRawPointer?, guint, guint, GdkModifierType, UnsafeMutableRawPointer?) -> Void
        let keyReleased: KeyReleased = { _, _, code, _, data in
            let state = CallbackBox<KeyState>.from(data)
            GLibActor.assumeIsolated { state.gate.released(code) }
        }
        Self.connect(UnsafeMutableRawPointer(keys), "key-released", unsafeBitCast(keyReleased, to: GCallback.self), CallbackBox(state))
        gtk_widget_add_controller(window, keys)
        typealias Notified = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void
        let activeChanged: Notified = { window, _, data in
            let state = CallbackBox<KeyState>.from(data)
            let active = gtk_window_is_active(window?.assumingMemoryBound(to: GtkWindow.self)) != 0
            GLibActor.assumeIsolated { state.gate.active(active, at: KeyState.now) }
        }
        Self.connect(UnsafeMutableRawPointer(window), "notify::is-active", unsafeBitCast(activeChanged, to: GCallback.self), CallbackBox(state))

        typealias CloseRequest = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean
        let closeRequest: CloseRequest = { _, data in
            let handler = CallbackBox<@GLibActor () -> Void>.from(data)
            GLibActor.assumeIsolated { handler() }
            return 0
        }
        Self.connect(UnsafeMutableRawPointer(window), "close-request", unsafeBitCast(closeRequest, to: GCallback.self),
                     CallbackBox(onClose as @GLibActor () -> Void))

        typealias WidgetSignal = @convention(c) (UnsafeMutablePointer<GtkWidget>?, UnsafeMutableRawPointer?) -> Void
        let keepAbove: WidgetSignal = { widget, _ in reveille_alert_keep_above_everywhere(widget) }
        Self.connect(UnsafeMutableRawPointer(window), "map", unsafeBitCast(keepAbove, to: GCallback.self), nil as CallbackBox<Void>?)
    }

    /// The keys' state: the gate, and what an admitted key answers.
    final class KeyState {
        var gate = AlertKeyGate()
        let answer: @GLibActor (Answer) -> Bool
        init(answer: @escaping @GLibActor (Answer) -> Bool) { self.answer = answer }

        nonisolated static var now: Double { Double(g_get_monotonic_time()) / 1_000_000 }

        /// Whether the press is taken here: refused by the gate (nothing else sees it), or an answer.
        @GLibActor func pressed(key: guint, code: guint) -> Bool {
            guard gate.pressed(code, at: Self.now) else { return true }
            let answer: Answer? = switch Int32(key) {
            case GDK_KEY_Return, GDK_KEY_KP_Enter, GDK_KEY_Escape: .stop
            case GDK_KEY_s, GDK_KEY_S: .secondary
            default: nil
            }
            return answer.map { self.answer($0) } ?? false
        }
    }

    /// Shows the window without taking the focus where the desktop allows (X11 window managers
    /// that honour `_NET_WM_USER_TIME`: mutter, KWin, xfwm4…): a person typing elsewhere as it
    /// opens keeps typing there. A click answers it at once; its keys answer it once the person
    /// moves to it. `gtk_window_present` would ask for the focus (`_NET_ACTIVE_WINDOW`, or
    /// `XSetInputFocus` without a window manager), which mutter grants to a request without a
    /// user's timestamp.
    func present() {
        gtk_widget_realize(window)
        reveille_alert_no_focus_on_map(window)
        gtk_widget_set_visible(window, 1)
    }

    /// A line under the buttons: why an answer did not reach the agent.
    func showStatus(_ text: String) {
        gtk_label_set_text(OpaquePointer(status), text)
        gtk_widget_set_visible(status, 1)
    }

    // MARK: Building blocks

    private static func label(_ text: String, style: String) -> UnsafeMutablePointer<GtkWidget> {
        let label = gtk_label_new(text)!
        gtk_widget_add_css_class(label, style)
        return label
    }

    private static func button(_ text: String, style: String, action: @escaping @GLibActor () -> Void) -> UnsafeMutablePointer<GtkWidget> {
        let button = gtk_button_new_with_label(text)!
        gtk_widget_add_css_class(button, style)
        gtk_widget_add_css_class(button, "alert-answer")
        typealias Clicked = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void
        let clicked: Clicked = { _, data in
            let action = CallbackBox<@GLibActor () -> Void>.from(data)
            GLibActor.assumeIsolated { action() }
        }
        connect(UnsafeMutableRawPointer(button), "clicked", unsafeBitCast(clicked, to: GCallback.self), CallbackBox(action))
        return button
    }

    /// `g_signal_connect` (a macro) as it expands; `box` is released with the connection.
    private static func connect<Value>(_ instance: UnsafeMutableRawPointer, _ signal: String, _ handler: GCallback, _ box: CallbackBox<Value>?) {
        g_signal_connect_data(instance, signal, handler, box?.retainedPointer,
                              box == nil ? nil : { data, _ in releaseCallbackBox(data) }, GConnectFlags(rawValue: 0))
    }

    private static func cast<T>(_ widget: UnsafeMutablePointer<GtkWidget>, _ type: T.Type) -> UnsafeMutablePointer<T> {
        UnsafeMutableRawPointer(widget).assumingMemoryBound(to: type)
    }

    /// Large text and buttons, readable across a room.
    private static func loadStyle() {
        let css = """
            .alert-title { font-size: 30pt; font-weight: bold; }
            .alert-detail { font-size: 16pt; }
            .alert-keys { font-size: 11pt; opacity: 0.7; }
            .alert-status { font-size: 11pt; color: #c01c28; }
            button.alert-answer { font-size: 20pt; font-weight: bold; padding: 14px 36px; min-width: 160px; }
            """
        let provider = gtk_css_provider_new()
        gtk_css_provider_load_from_data(provider, css, -1)
        gtk_style_context_add_provider_for_display(gdk_display_get_default(), OpaquePointer(provider),
                                                   guint(GTK_STYLE_PROVIDER_PRIORITY_APPLICATION))
    }
}
