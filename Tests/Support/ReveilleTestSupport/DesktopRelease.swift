import Foundation

/// What differs between the Debian releases the tests meet real desktops on, named once and
/// found by what is installed: Debian 12 (KDE Plasma 5.27 on KDE Frameworks 5, xfce4-notifyd
/// 0.7, MATE's daemon under /usr/lib) and Debian 13 (Plasma 6.3 on Frameworks 6, xfce4-notifyd
/// 0.9, MATE's daemon under /usr/libexec). A test asks here, never spells a release's path.
public enum DesktopRelease {
    /// KDE's module daemon, which holds Plasma's StatusNotifierWatcher.
    public struct ModuleDaemon: Sendable {
        /// `kded5` or `kded6`, also the bus name's last part.
        public let executable: String
        /// The Debian package that ships it.
        public let package: String
        /// The statusnotifierwatcher module's plugin file.
        public let statusNotifierModule: String
        public var busName: String { "org.kde." + executable }
        public var interface: String { "org.kde." + executable }
    }

    /// Plasma 6's kded6 where its statusnotifierwatcher module is installed, else Plasma 5's kded5.
    public static var moduleDaemon: ModuleDaemon {
        let six = ModuleDaemon(executable: "kded6", package: "kded6",
                               statusNotifierModule: "/usr/lib/\(multiarch)/qt6/plugins/kf6/kded/statusnotifierwatcher.so")
        let five = ModuleDaemon(executable: "kded5", package: "kded5",
                                statusNotifierModule: "/usr/lib/\(multiarch)/qt5/plugins/kf5/kded/statusnotifierwatcher.so")
        return FileManager.default.fileExists(atPath: six.statusNotifierModule) ? six : five
    }

    /// MATE's notification daemon: /usr/libexec from MATE 1.28 (Debian 13), /usr/lib before.
    public static var mateNotificationDaemon: String {
        firstInstalled(["/usr/libexec/mate-notification-daemon/mate-notification-daemon",
                        "/usr/lib/mate-notification-daemon/mate-notification-daemon"])
    }

    // KDE's lock-screen greeter: `TestSession.lockScreenGreeterCandidates` (LockScreen.swift).

    /// The installed version of a Debian package, as dpkg has it (`nil`: not installed).
    public static func version(of package: String) -> String? {
        guard let result = try? Subprocess.run("/usr/bin/dpkg-query", ["-W", "-f=${Version}", package],
                                               environment: ProcessInfo.processInfo.environment),
              result.status == 0, !result.stdout.isEmpty else { return nil }
        return result.stdout
    }

    /// Whether `package`'s installed version is at least `major.minor` (upstream version, epoch and revision aside).
    public static func version(of package: String, isAtLeast wanted: [Int]) -> Bool {
        guard let full = version(of: package) else { return false }
        let upstream = full.split(separator: ":").last.map(String.init) ?? full
        let numbers = upstream.split(whereSeparator: { !$0.isNumber }).prefix(wanted.count).compactMap { Int($0) }
        return !numbers.lexicographicallyPrecedes(wanted)
    }

    /// The first of `paths` that is installed, else the first (whose absence a test then names).
    private static func firstInstalled(_ paths: [String]) -> String {
        paths.first { FileManager.default.isExecutableFile(atPath: $0) } ?? paths[0]
    }

    /// The folder name of this machine's libraries under /usr/lib (Debian's multiarch tuple).
    static var multiarch: String {
        #if arch(arm64)
        "aarch64-linux-gnu"
        #else
        "x86_64-linux-gnu"
        #endif
    }
}
