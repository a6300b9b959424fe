import Foundation
import ReveilleCore
import Testing

/// Where a binary finds its data: beside its prefix when installed, in the build tree when run from it.
@Suite("Installation paths")
struct InstallationTests {
    @Test func sharedDataIsUnderThePrefixsShare() {
        #expect(Installation.shared("reveille/sounds", executable: "/usr/local/bin/reveille-agent") == "/usr/local/share/reveille/sounds")
        #expect(Installation.shared("locale", executable: "/home/me/.local/bin/reveille") == "/home/me/.local/share/locale")
    }

    @Test func theCatalogsAreTheInstalledOnesElseTheBuildTrees() throws {
        let tree = FileManager.default.temporaryDirectory.appendingPathComponent("installation-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: tree) }
        let binary = tree + "/.build/x86_64-unknown-linux-gnu/debug/reveille"
        #expect(Installation.localeDirectory(executable: binary) == tree + "/.build/x86_64-unknown-linux-gnu/share/locale",
                "neither exists: the installed place")
        try FileManager.default.createDirectory(atPath: tree + "/.build/locale", withIntermediateDirectories: true)
        #expect(Installation.localeDirectory(executable: binary) == tree + "/.build/locale", "make locale's, run from the build tree")
        try FileManager.default.createDirectory(atPath: tree + "/.build/x86_64-unknown-linux-gnu/share/locale", withIntermediateDirectories: true)
        #expect(Installation.localeDirectory(executable: binary) == tree + "/.build/x86_64-unknown-linux-gnu/share/locale",
                "installed ones come first")
    }
}
