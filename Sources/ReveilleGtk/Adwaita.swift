import CAdwaita
import Glibc
// GTK's and GLib's names, some of which clang gives to CGtk (see Widgets.swift).
import CGtk
import ReveilleBus
import ReveilleLoop
import ReveilleSystem

/// The one file where libadwaita's C API is used (1.2's, which Debian 12 has; Debian 13's 1.7
/// keeps it): the application object, whose start loads the platform's style and has its
/// style manager follow the desktop's dark and high-contrast settings: the settings portal
/// (org.freedesktop.appearance); libadwaita 1.2 also reads GSettings' org.gnome.desktop.interface
/// where no portal runs, later releases (1.7 on Debian 13) only with ADW_DISABLE_PORTAL set.
@GLibActor
package enum Adwaita {
    /// Loads libadwaita's style and has its style manager follow the desktop's dark and
    /// high-contrast settings, for a window that is no AdwApplication's (the alert window);
    /// call once GTK is open.
    package static func styleFollowsDesktop() { adw_init() }

    /// Has libadwaita read no settings portal of its own (`ADW_DISABLE_PORTAL`; GSettings
    /// still): it asks the portal with no time limit, and a portal that hangs, or a backend it
    /// waits 25 s for, would hold the alert window back; the alert asks itself, with one.
    /// Call before any thread starts (`setenv` is not safe beside a reader).
    package nonisolated static func readsNoPortal() { EnvironmentVariable.set("ADW_DISABLE_PORTAL", to: "1") }

    /// Draws dark or light as the desktop's settings portal said (`colorScheme`: 1 prefer
    /// dark, 2 prefer light, as org.freedesktop.appearance has it); with no answer or no
    /// preference, as libadwaita read the desktop itself.
    package static func followColorScheme(_ colorScheme: UInt32?) {
        let scheme = switch colorScheme {
        case 1: ADW_COLOR_SCHEME_FORCE_DARK
        case 2: ADW_COLOR_SCHEME_FORCE_LIGHT
        default: ADW_COLOR_SCHEME_DEFAULT
        }
        adw_style_manager_set_color_scheme(adw_style_manager_get_default(), scheme)
    }

    /// A new AdwApplication with `id`, as the GtkApplication it is.
    package static func application(id: String) -> UnsafeMutablePointer<GtkApplication> {
        UnsafeMutableRawPointer(adw_application_new(id, GApplicationFlags(rawValue: 0))).assumingMemoryBound(to: GtkApplication.self)
    }

    /// Shows Reveille's About window over `parent`.
    package static func showAbout(over parent: Widget, version: String) {
        let window = adw_about_window_new()!
        let about = OpaquePointer(window)
        adw_about_window_set_application_name(about, "Reveille")
        adw_about_window_set_application_icon(about, "io.github.reveille.Reveille")
        adw_about_window_set_version(about, version)
        adw_about_window_set_developer_name(about, "The Reveille authors")
        adw_about_window_set_website(about, "https://github.com/reveille/reveille")
        adw_about_window_set_license_type(about, GTK_LICENSE_MIT_X11)
        let asWindow = UnsafeMutableRawPointer(window).assumingMemoryBound(to: GtkWindow.self)
        gtk_window_set_transient_for(asWindow, parent.pointer.assumingMemoryBound(to: GtkWindow.self))
        gtk_window_present(asWindow)
    }

    /// Shows `text` in `overlay` (an AdwToastOverlay) for `seconds`, at once (a newer toast goes
    /// before an older one), with a button `button` (`_Undo`) that runs `action` when given;
    /// `dismiss`: what a screen reader calls its close button.
    package static func toast(_ text: String, in overlay: Widget, seconds: UInt32, button: String?, dismiss: String,
                      action: (@GLibActor () -> Void)?) {
        let toast = adw_toast_new(text)!
        adw_toast_set_timeout(toast, guint(seconds))
        adw_toast_set_priority(toast, ADW_TOAST_PRIORITY_HIGH)
        if let button, let action {
            adw_toast_set_button_label(toast, button)
            typealias Clicked = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void
            let clicked: Clicked = { _, data in
                let action = CallbackBox<@GLibActor () -> Void>.from(data)
                GLibActor.assumeIsolated { action() }
            }
            g_signal_connect_data(UnsafeMutableRawPointer(toast), "button-clicked", unsafeBitCast(clicked, to: GCallback.self),
                                  CallbackBox<@GLibActor () -> Void>(action).retainedPointer, { data, _ in releaseCallbackBox(data) },
                                  GConnectFlags(rawValue: 0))
        }
        // The overlay takes the toast's reference, and shows it at once (its priority).
        adw_toast_overlay_add_toast(OpaquePointer(overlay.pointer), toast)
        overlay.nameToastButtons(dismiss: dismiss)
    }
}
