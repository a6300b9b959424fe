import FoundationEssentials
import SystemPackage

/// Where Reveille keeps its files, following the XDG Base Directory specification.
///
/// Kept rather than GLib's `g_get_user_state_dir()` and friends, which read the environment
/// once per process and cache it: the paths here come from the environment given (the
/// agent's options, the tests' sessions), and relative values are ignored as the spec says.
package struct ReveillePaths: Sendable {
    /// `$XDG_STATE_HOME/reveille`, by default `~/.local/state/reveille`: the alarms.
    package var stateDirectory: FilePath
    /// `$XDG_CONFIG_HOME/reveille`, by default `~/.config/reveille`: settings and decisions.
    package var configDirectory: FilePath
    /// `$XDG_RUNTIME_DIR`, when set (absolute): the session's private files, such as locks.
    package var runtimeDirectory: FilePath?

    package init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileManager.default.homeDirectoryForCurrentUser.path
        func base(_ variable: String, _ fallback: String) -> FilePath {
            // The spec says relative values are invalid and must be ignored.
            if let value = environment[variable], value.hasPrefix("/") { return FilePath(value) }
            return FilePath(home).appending(fallback)
        }
        stateDirectory = base("XDG_STATE_HOME", ".local/state").appending("reveille")
        configDirectory = base("XDG_CONFIG_HOME", ".config").appending("reveille")
        runtimeDirectory = environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? FilePath($0) : nil }
    }
}
