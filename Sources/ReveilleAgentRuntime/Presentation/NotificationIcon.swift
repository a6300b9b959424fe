import FoundationEssentials

/// Which icon names the notifications: the app's own where an icon theme has it.
package enum NotificationIcon {
    package static let appIcon = "io.github.reveille.Reveille"
    /// Adwaita's alarm clock, installed wherever GNOME is.
    package static let fallback = "alarm-symbolic"

    package static func name(appIconInstalled: Bool) -> String { appIconInstalled ? appIcon : fallback }

    /// Whether `name` is in the hicolor theme (where `make install` puts the app's icon) of a
    /// data folder (`XDG_DATA_HOME`, `XDG_DATA_DIRS`, or their defaults).
    package static func isInstalled(_ name: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        let home = environment["XDG_DATA_HOME"] ?? ((environment["HOME"] ?? "") + "/.local/share")
        let system = (environment["XDG_DATA_DIRS"] ?? "/usr/local/share:/usr/share").split(separator: ":").map(String.init)
        let files = ["scalable/apps/\(name).svg"] + [16, 22, 24, 32, 48, 64, 128, 256].map { "\($0)x\($0)/apps/\(name).png" }
        return ([home] + system).contains { folder in
            files.contains { FileManager.default.fileExists(atPath: "\(folder)/icons/hicolor/\($0)") }
        }
    }
}
