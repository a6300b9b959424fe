import Foundation
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

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

    /// A bare Debian: a `dpkg-query` that knows no package (and exits 1, as the real one does for
    /// a name it never heard of), an `apt-get` and `sudo` that record what they are asked. Each
    /// deps target must then ask apt for exactly its list.
    func standIns(refusing refused: String? = nil) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bare-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let dpkgQuery = "#!/bin/sh\nfor name; do case \"$name\" in -*) ;; *) echo \"dpkg-query: no packages found matching $name\" >&2 ;; esac; done\nexit 1\n"
        // apt-get: `-s` (the plan) names what it cannot find, as apt does, and fails.
        let refusal = refused.map { "case \" $* \" in *\" \($0) \"*) echo \"E: Unable to locate package \($0)\" >&2; exit 100 ;; esac\n" } ?? ""
        let aptGet = "#!/bin/sh\necho \"$*\" >> \"\(folder)/apt.log\"\n\(refusal)case \" $* \" in *\" -s \"*) echo \"0 upgraded, 3 newly installed, 0 to remove and 0 not upgraded.\" ;; esac\nexit 0\n"
        for (name, text) in [("dpkg-query", dpkgQuery), ("apt-get", aptGet), ("sudo", "#!/bin/sh\nexec \"$@\"\n")] {
            try text.write(toFile: folder + "/" + name, atomically: true, encoding: .utf8)
            chmod(folder + "/" + name, 0o755)
        }
        return folder
    }

    func runMake(_ target: String, standIns folder: String) throws -> Subprocess.Result {
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = folder + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        let make = try Subprocess.find("make", package: "make")
        return try Subprocess.run(make, ["-C", repository, "-s", "--no-print-directory", target], environment: environment, timeout: 60)
    }

    @Test(arguments: [("deps", ["BUILD_PACKAGES"]), ("deps-deb", ["BUILD_PACKAGES", "DEB_PACKAGES"]),
                      ("deps-test", ["BUILD_PACKAGES", "TEST_PACKAGES"])])
    func eachInstallTargetAsksAptForExactlyItsListOnABareMachine(target: String, lists: [String]) throws {
        let folder = try standIns()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try runMake(target, standIns: folder)
        #expect(result.status == 0, "make \(target) on a bare machine: \(result.stdout) \(result.stderr)")
        let expected = Set(try lists.flatMap(makeList))
        #expect(result.stdout.contains("Installing the Debian packages missing here (\(expected.count) of"), "says what it installs: \(result.stdout)")
        let calls = (try? String(contentsOfFile: folder + "/apt.log", encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
        #expect(calls.first?.hasPrefix("update") == true, "apt-get update first: \(calls)")
        let installs = calls.filter { $0.hasPrefix("install -y ") }
        #expect(installs.count == 1, "one install: \(calls)")
        let asked = Set(installs.first.map { $0.split(separator: " ").map(String.init).filter { !$0.hasPrefix("-") && $0 != "install" } } ?? [])
        #expect(asked == expected, "make \(target) asked for \(asked.subtracting(expected).sorted()) beyond and left out \(expected.subtracting(asked).sorted())")
    }

    @Test func aPackageAptRefusesIsNamedAndNothingIsInstalled() throws {
        let folder = try standIns(refusing: "dunst")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try runMake("deps", standIns: folder)
        #expect(result.status != 0, "make deps fails when apt refuses a package")
        #expect(result.stderr.contains("apt-get refused to install dunst"), "names the refused package: \(result.stderr)")
        let calls = (try? String(contentsOfFile: folder + "/apt.log", encoding: .utf8)) ?? ""
        #expect(!calls.contains("install -y"), "nothing installed after the refusal: \(calls)")
    }
}
