import Foundation
@testable import ReveilleAgent
@testable import ReveilleAgentRuntime
import ReveilleModel
import Testing

/// Which exported `Exec` lines the agent runs for a Flatpak app opening itself.
@Suite("Flatpak exports")
struct FlatpakExportsTests {
    let alarm = ["REVEILLE_ALARM_ID": "abc", "REVEILLE_ACTION": "stop"]

    @Test func flatpaksOwnLauncherRunsTheAppWithTheAlarmPassedIn() {
        let exec = "/usr/bin/flatpak run --branch=stable --arch=x86_64 --command=gnome-clocks --file-forwarding org.gnome.clocks @@u %U @@"
        #expect(FlatpakExports.flatpakRun(exec, appID: "org.gnome.clocks", environment: alarm)
                == ["/usr/bin/flatpak", "run", "--env=REVEILLE_ACTION=stop", "--env=REVEILLE_ALARM_ID=abc", "--branch=stable",
                    "--arch=x86_64", "--command=gnome-clocks", "--file-forwarding", "org.gnome.clocks"])
    }

    @Test func anythingElseIsRefused() {
        for exec in ["/bin/sh -c 'touch /tmp/x' org.test.App",          // another program
                     "flatpak run org.test.App",                      // not an absolute path
                     "/usr/bin/flatpak run org.test.Other",           // another app
                     "/usr/bin/flatpak run --command=x org.test.App; touch /tmp/x",
                     "/usr/bin/flatpak run --command=\"a b\" org.test.App",
                     "/usr/bin/flatpak info org.test.App",
                     "/usr/bin/flatpak run"] {
            #expect(FlatpakExports.flatpakRun(exec, appID: "org.test.App", environment: alarm) == nil, "\(exec)")
        }
    }

    @Test func anAppIsAFlatpakWhenExportedInstalledOrItsDataFolderRemains() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-flatpak-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let exports = FlatpakExports(environment: ["HOME": home, "FLATPAK_SYSTEM_DIR": home + "/system"])
        #expect(exports.folders == [home + "/.local/share/flatpak/exports/share/applications", home + "/system/exports/share/applications"])
        #expect(!exports.isFlatpakApp("org.test.App") && exports.exportedEntry(of: "org.test.App") == nil)
        try FileManager.default.createDirectory(atPath: home + "/.var/app/org.test.App", withIntermediateDirectories: true)
        #expect(exports.isFlatpakApp("org.test.App"), "uninstalled, its data kept: still a Flatpak app, never opened another way")
        #expect(exports.launchCommand(of: "org.test.App", environment: alarm) == .failure(.notFound(
            "Flatpak exports no desktop entry for it (looked in \(exports.folders.joined(separator: ", ")))")))
        try FileManager.default.createDirectory(atPath: home + "/system/exports/share/applications", withIntermediateDirectories: true)
        try "[Desktop Entry]\nExec=/usr/bin/flatpak run org.test.App\n"
            .write(toFile: home + "/system/exports/share/applications/org.test.App.desktop", atomically: true, encoding: .utf8)
        #expect(exports.launchCommand(of: "org.test.App", environment: [:]) == .success(["/usr/bin/flatpak", "run", "org.test.App"]))
    }
}
