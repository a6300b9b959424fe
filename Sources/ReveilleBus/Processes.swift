import CGLib
import FoundationEssentials

/// Starting programs and desktop apps through GLib (`g_spawn_async`, `GDesktopAppInfo`).
package enum Processes {
    /// Runs `arguments` (an absolute program path first) with `environment` added to this
    /// process's: no shell, no PATH search, stdio on /dev/null, reaped by GLib (`g_spawn_async`).
    package static func spawn(_ arguments: [String], environment: [String: String]) throws(BusError) {
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        var argv = arguments.map { strdup($0) } + [nil]
        var envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var error: UnsafeMutablePointer<GError>?
        let flags = GSpawnFlags(rawValue: G_SPAWN_STDOUT_TO_DEV_NULL.rawValue | G_SPAWN_STDERR_TO_DEV_NULL.rawValue
                                | G_SPAWN_STDIN_FROM_DEV_NULL.rawValue)
        guard g_spawn_async(nil, &argv, &envp, flags, nil, nil, nil, &error) != 0 else { throw BusError(consuming: error) }
    }

    /// Whether the desktop entry `desktopID` (without `.desktop`) exists and says
    /// `DBusActivatable=true`; `nil` when there is no such entry (`g_desktop_app_info_new`).
    package static func isDBusActivatable(_ desktopID: String) -> Bool? {
        guard let info = g_desktop_app_info_new(desktopID + ".desktop") else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(info)) }
        return g_desktop_app_info_get_boolean(info, "DBusActivatable") != 0
    }

    /// Launches the desktop entry `desktopID` with `environment` added (`g_app_info_launch`).
    package static func launch(_ desktopID: String, environment: [String: String]) throws(BusError) {
        guard let info = g_desktop_app_info_new(desktopID + ".desktop") else {
            throw BusError(name: "org.freedesktop.DBus.Error.ServiceUnknown", message: "no desktop entry \(desktopID).desktop")
        }
        defer { g_object_unref(UnsafeMutableRawPointer(info)) }
        let context = g_app_launch_context_new()
        defer { g_object_unref(UnsafeMutableRawPointer(context)) }
        for (key, value) in environment { g_app_launch_context_setenv(context, key, value) }
        var error: UnsafeMutablePointer<GError>?
        let appInfo = OpaquePointer(UnsafeMutableRawPointer(info))
        guard g_app_info_launch(appInfo, nil, context, &error) != 0 else { throw BusError(consuming: error) }
    }
}
