import CAdwaita
import ReveilleBus

/// The one file where libadwaita's C API is used (1.2's, which Debian 12 has; Debian 13's 1.7
/// keeps it): the application object, whose start loads the platform's style and has its
/// style manager follow the desktop's dark and high-contrast settings (the settings portal, or
/// GSettings' org.gnome.desktop.interface where no portal runs).
@GLibActor
enum Adwaita {
    /// A new AdwApplication with `id`, as the GtkApplication it is.
    static func application(id: String) -> UnsafeMutablePointer<GtkApplication> {
        UnsafeMutableRawPointer(adw_application_new(id, GApplicationFlags(rawValue: 0))).assumingMemoryBound(to: GtkApplication.self)
    }
}
