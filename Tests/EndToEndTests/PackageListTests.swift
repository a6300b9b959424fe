import Foundation
import Testing
import ReveilleTestTraits
import ReveilleTestSupport

/// The Makefile's package lists: `make run`, `make install` and `make deb` install what building
/// and running need, never a test peer (a person ringing a demo timer on their own desktop must
/// not get GNOME Shell, KDE Plasma, sway, other notification servers or Radicale).
@Suite("Package lists", .waitsOnItsOwnThread)
struct PackageListTests {
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The peers the tests start: desktop shells, notification servers other than the demo's dunst,
    /// the sound server the demo does not use, dbusmock, the sync server and the keyring.
    static let testPeers = ["gnome-shell", "plasma-workspace", "plasma-desktop-data", "kwin-x11", "kded5", "sway",
                            "mako-notifier", "sway-notification-center", "xfce4-notifyd", "mate-notification-daemon",
                            "lxqt-notificationd", "notification-daemon", "pipewire-pulse", "wireplumber",
                            "python3-dbusmock", "radicale", "gnome-keyring"]

    /// A list of the Makefile's, as make expands it.
    func makeList(_ name: String) throws -> [String] {
        let printer = FileManager.default.temporaryDirectory.appendingPathComponent("print-\(UUID().uuidString).mk").path
        try "print-%:\n\t@echo $($*)\n".write(toFile: printer, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: printer) }
        let make = try Subprocess.find("make", package: "make")
        let result = try Subprocess.run(make, ["-C", repository, "-s", "--no-print-directory", "-f", "Makefile", "-f", printer,
                                               "print-\(name)"], environment: ProcessInfo.processInfo.environment)
        guard result.status == 0 else { throw Subprocess.Failure("make could not print \(name): \(result.stderr)") }
        return result.stdout.split(whereSeparator: \.isWhitespace).map(String.init)
    }

    @Test func everyTestPeerIsInTheTestListAndNoneInWhatRunningInstalls() throws {
        let build = try makeList("BUILD_PACKAGES"), deb = try makeList("DEB_PACKAGES"), test = try makeList("TEST_PACKAGES")
        #expect(build.contains("dunst") && build.contains("xvfb") && build.contains("pulseaudio"), "the demo's peers: \(build)")
        for peer in Self.testPeers { #expect(test.contains(peer), "\(peer) is in TEST_PACKAGES") }
        // Everything apt could bring with the run and package lists, every alternative counted.
        let aptCache = try Subprocess.find("apt-cache", package: "apt")
        let depends = try Subprocess.run(aptCache, ["depends", "--recurse", "--no-recommends", "--no-suggests", "--no-conflicts",
                                                    "--no-breaks", "--no-replaces", "--no-enhances"] + build + deb,
                                         environment: ProcessInfo.processInfo.environment, timeout: 120)
        guard depends.status == 0 else {
            throw Subprocess.Failure("apt-cache depends failed (apt's package lists are read: `apt-get update` first): \(depends.stderr)")
        }
        let closure = Set(depends.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") }.map { String($0.split(separator: ":")[0]) })
        #expect(closure.count > build.count, "apt-cache named what the lists depend on: \(closure.count) packages")
        let brought = Self.testPeers.filter(closure.contains)
        #expect(brought.isEmpty, "make run, install and deb would install \(brought.joined(separator: ", "))")
    }
}
