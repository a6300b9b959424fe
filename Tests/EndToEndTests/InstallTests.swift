import Foundation
import ReveilleCore
import ReveilleRules
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

@Suite("Install and D-Bus activation", .waitsOnItsOwnThread)
struct InstallTests {
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Every path below `folder`, relative to it.
    func listing(_ folder: String) -> [String] {
        (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).sorted()
    }

    @Test func installedAgentStartsByDBusActivationAndUninstallLeavesThePrefixAsItWas() throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-prefix-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: prefix + "/bin", withIntermediateDirectories: true)
        // The bus watches the folder the install writes its activation file into.
        try FileManager.default.createDirectory(atPath: prefix + "/share/dbus-1/services", withIntermediateDirectories: true)
        try Data("someone else's\n".utf8).write(to: URL(fileURLWithPath: prefix + "/bin/other-tool"))
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let before = listing(prefix)

        let session = try TestSession(audio: .none, serviceDirectories: [prefix + "/share/dbus-1/services"])
        let installer = repository + "/scripts/install"
        let install = try Subprocess.run(installer, ["--prefix", prefix, "--bin-dir", session.binaries],
                                         environment: session.environment)
        #expect(install.status == 0, "\(install.stderr)")
        #expect(install.stdout.contains("A per-user install leaves out the wake helper"), "\(install.stdout)")
        // Issue 40: it had said the agent starts "at login from PREFIX/etc/xdg/autostart", which no session
        // reads, and that alarms "will not wake the computer" where the kernel's alarm timer wakes it.
        let environment = session.environment
        let dataDirectories = (environment["XDG_DATA_DIRS"] ?? "/usr/local/share:/usr/share").split(separator: ":")
        if !dataDirectories.contains(Substring(prefix + "/share")) {
            #expect(!install.stdout.contains("starts by D-Bus activation") && !install.stdout.contains("at login from"), "\(install.stdout)")
            #expect(install.stdout.contains("The agent does not start by itself from \(prefix)") && install.stdout.contains("XDG_DATA_DIRS")
                    && install.stdout.contains("XDG_CONFIG_DIRS"), "\(install.stdout)")
        }
        let withPrefixRead = try Subprocess.run(installer, ["--prefix", prefix, "--bin-dir", session.binaries, "--no-manifest"],
                                                environment: environment.merging(["XDG_DATA_DIRS": prefix + "/share:/usr/share",
                                                                                  "XDG_CONFIG_DIRS": "/etc/xdg"]) { $1 })
        #expect(withPrefixRead.stdout.contains("The agent starts by D-Bus activation on first use. At login it starts only with \(prefix)/etc/xdg in XDG_CONFIG_DIRS"),
                "\(withPrefixRead.stdout)")
        // What it says of waking is what this process's capabilities say (CAP_WAKE_ALARM is bit 35).
        let capabilities = try String(contentsOfFile: "/proc/self/status", encoding: .utf8).split(separator: "\n")
            .first { $0.hasPrefix("CapEff:") }.flatMap { UInt64($0.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16) } ?? 0
        #expect(!install.stdout.contains("will not wake"), "\(install.stdout)")
        #expect(install.stdout.contains(capabilities >> 35 & 1 == 1 ? "This session may arm the kernel's alarm timer (CAP_WAKE_ALARM)"
                                                                    : "only where the session may arm the kernel's alarm timer"), "\(install.stdout)")
        for entry in ["share/applications/io.github.reveille.Reveille.desktop",
                      "share/applications/io.github.reveille.Reveille.Alert.desktop",
                      "etc/xdg/autostart/io.github.reveille.Reveille.Agent.desktop"] {
            let validate = try Subprocess.run(try Subprocess.find("desktop-file-validate", package: "desktop-file-utils"),
                                              [prefix + "/" + entry], environment: session.environment)
            #expect(validate.status == 0, "\(entry): \(validate.stdout)\(validate.stderr)")
        }
        let metainfo = try Subprocess.run(try Subprocess.find("appstreamcli", package: "appstream"),
                                          ["validate", "--no-net", prefix + "/share/metainfo/io.github.reveille.Reveille.metainfo.xml"],
                                          environment: session.environment)
        #expect(metainfo.status == 0, "\(metainfo.stdout)\(metainfo.stderr)")
        let launcher = try String(contentsOfFile: prefix + "/share/applications/io.github.reveille.Reveille.desktop", encoding: .utf8)
        #expect(launcher.contains("Exec=\(prefix)/bin/reveille-app"), "an absolute Exec, the app")
        // A systemd session starts the agent from its enabled user unit, and hides the autostart entry: one way only.
        let wants = prefix + "/share/systemd/user/graphical-session.target.wants/reveille-agent.service"
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: wants) == "../reveille-agent.service")
        let autostart = try String(contentsOfFile: prefix + "/etc/xdg/autostart/io.github.reveille.Reveille.Agent.desktop", encoding: .utf8)
        #expect(autostart.contains("X-GNOME-HiddenUnderSystemd=true") && autostart.contains("X-systemd-skip=true"))
        #expect(autostart.contains("Exec=\(prefix)/bin/reveille-agent --exit-if-running"), "an absolute Exec")
        let service = try String(contentsOfFile: prefix + "/share/dbus-1/services/io.github.reveille.Reveille.service", encoding: .utf8)
        #expect(service.contains("Exec=\(prefix)/bin/reveille-agent"))

        // Called by name through PATH from another folder, the installed CLI finds its own
        // share/locale (not the current folder's), without REVEILLE_LOCALEDIR.
        let german = try installedEnvironment(session, prefix: prefix, locale: "de_DE.UTF-8")
        let help = try Subprocess.run("/bin/sh", ["-c", "cd / && exec reveille --help"], environment: german)
        #expect(help.stdout.contains("Wecker und Timer, die klingeln, auch wenn keine App offen ist."), "\(help.stdout)\(help.stderr)")

        // No agent runs; the installed CLI's first call makes the bus start one.
        let list = try Subprocess.run(prefix + "/bin/reveille", ["timer", "1h", "--title", "Activated"], environment: session.environment)
        #expect(list.status == 0, "\(list.stderr)")
        #expect(!list.stderr.contains("started reveille-agent"), "D-Bus activation, not the CLI's fallback, started it")
        let owner = try session.gdbusCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                          method: "org.freedesktop.DBus.GetConnectionUnixProcessID", [AgentInterface.busName])
        let pid = try #require(owner.stdout.firstMatch(of: /uint32 (\d+)/).flatMap { Int32($0.1) })
        defer { kill(pid, SIGTERM) }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe") == prefix + "/bin/reveille-agent")
        kill(pid, SIGTERM)
        try session.waitForName(AgentInterface.busName, owned: false)

        // The agent started by name from another folder rings its installed bundled sounds.
        let agent = try Subprocess.start("/bin/sh", ["-c", "cd / && exec reveille-agent"], environment: german,
                                         stderr: session.directory + "/installed-agent.log")
        defer { agent.terminate() }
        try session.waitForName(AgentInterface.busName, owned: true)
        let sounds = try Subprocess.run("/bin/sh", ["-c", "cd / && exec reveille sounds --json"], environment: german)
        let entries = try JSONDecoder().decode([SoundEntry].self, from: Data(sounds.stdout.utf8))
        #expect(entries.first { $0.name == "alarm" }?.path == prefix + "/share/reveille/sounds/alarm.wav", "\(sounds.stdout)")
        agent.terminate()
        try session.waitForName(AgentInterface.busName, owned: false)

        let uninstall = try Subprocess.run(installer, ["--uninstall", "--prefix", prefix], environment: session.environment)
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        #expect(listing(prefix) == before, "uninstall removes exactly what install added")
        #expect(FileManager.default.fileExists(atPath: session.stateDirectory + "/alarms.journal"), "the alarms are kept")
    }

    /// Issue 27: `make uninstall` stops the user's agent that runs the program it removes (by its
    /// bus name's owner and that process's program, never by name), and leaves another alone.
    @Test func makeUninstallStopsTheAgentRunningFromThePrefixAndNoOther() throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-prefix-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: prefix + "/share/dbus-1/services", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: prefix) }
        let session = try TestSession(audio: .none, serviceDirectories: [prefix + "/share/dbus-1/services"])
        let install = try Subprocess.run(repository + "/scripts/install", ["--prefix", prefix, "--bin-dir", session.binaries],
                                         environment: session.environment)
        #expect(install.status == 0, "\(install.stderr)")
        let installed = prefix + "/bin/reveille-agent"

        // An agent of another program (the build's) is not the one being removed: it stays.
        try session.startAgent()
        let other = try #require(try session.ownerPID(of: AgentInterface.busName))
        let untouched = try Subprocess.run(repository + "/scripts/stop-agent", [installed], environment: session.environment)
        #expect(untouched.status == 0 && untouched.stdout.isEmpty, "\(untouched.stdout)\(untouched.stderr)")
        #expect(try session.ownerPID(of: AgentInterface.busName) == other && kill(other, 0) == 0, "another install's agent runs on")
        try session.killAgent(signal: SIGTERM)

        // The installed agent, started by D-Bus activation, is stopped before its files go.
        let activated = try Subprocess.run(prefix + "/bin/reveille", ["timer", "1h", "--title", "Kept"], environment: session.environment)
        #expect(activated.status == 0, "\(activated.stderr)")
        let pid = try #require(try session.ownerPID(of: AgentInterface.busName))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe") == installed)
        let make = try Subprocess.find("make", package: "make")
        let uninstall = try Subprocess.run(make, ["-s", "-C", repository, "uninstall", "PREFIX=\(prefix)"], environment: session.environment)
        #expect(uninstall.status == 0, "\(uninstall.stdout)\(uninstall.stderr)")
        #expect(uninstall.stdout.contains("Stopped reveille-agent (process \(pid)).") && uninstall.stdout.contains("Removed Reveille from \(prefix)"),
                "\(uninstall.stdout)")
        #expect(kill(pid, 0) != 0, "no agent left running a deleted program")
        #expect(try session.ownerPID(of: AgentInterface.busName) == nil)
        #expect(!FileManager.default.fileExists(atPath: installed))
        #expect(FileManager.default.fileExists(atPath: session.stateDirectory + "/alarms.journal"), "the alarms are kept")
    }

    /// The Debian package stops every user's agent on removal through each user's systemd
    /// instance (deb-systemd-invoke --user), never by signalling processes by name.
    @Test func thePackagesPrermStopsTheUsersAgentsThroughSystemd() throws {
        let prerm = try String(contentsOfFile: repository + "/debian/reveille.prerm", encoding: .utf8)
        #expect(prerm.contains("deb-systemd-invoke --user stop reveille-agent.service") && prerm.contains("#DEBHELPER#"))
        #expect(!prerm.contains("pkill") && !prerm.contains("killall"))
        let syntax = try Subprocess.run("/bin/sh", ["-n", repository + "/debian/reveille.prerm"], environment: [:])
        #expect(syntax.status == 0, "\(syntax.stderr)")
    }

    /// The session's environment for the binaries installed in `prefix`, called by name: PATH
    /// leads to them, `locale` is selected (built by localedef) and no REVEILLE_LOCALEDIR points
    /// anywhere, so they find their catalogs on their own.
    func installedEnvironment(_ session: TestSession, prefix: String, locale: String) throws -> [String: String] {
        let language = String(locale.prefix(2))
        #expect(FileManager.default.fileExists(atPath: "\(prefix)/share/locale/\(language)/LC_MESSAGES/reveille.mo"),
                "the install put no \(language) catalog: `make locale` builds .build/locale first")
        let locales = try TestLocales.folder(with: locale)
        var environment = session.environment
        environment["PATH"] = prefix + "/bin:/usr/bin:/bin"
        environment["LOCPATH"] = locales
        environment["LC_ALL"] = locale
        environment["REVEILLE_LOCALEDIR"] = nil
        return environment
    }

    @Test func aSystemWideInstallPutsTheWakeHelperWhereTheSystemReadsIt() throws {
        let destdir = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-destdir-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: destdir) }
        let binaries = try TestSession.findBinaries()
        let installer = repository + "/scripts/install"
        let install = try Subprocess.run(installer, ["--prefix", "/usr", "--destdir", destdir, "--bin-dir", binaries],
                                         environment: ProcessInfo.processInfo.environment)
        #expect(install.status == 0, "\(install.stderr)")
        #expect(install.stdout.contains("The wake helper is installed"), "\(install.stdout)")
        let service = try String(contentsOfFile: destdir + "/usr/share/dbus-1/system-services/io.github.reveille.WakeHelper.service", encoding: .utf8)
        #expect(service.contains("Exec=/usr/libexec/reveille-wake-helper") && service.contains("User=root"))
        #expect(FileManager.default.isExecutableFile(atPath: destdir + "/usr/libexec/reveille-wake-helper"))
        let unit = try String(contentsOfFile: destdir + "/usr/lib/systemd/system/reveille-wake-helper.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/libexec/reveille-wake-helper") && unit.contains("BusName=io.github.reveille.WakeHelper"))
        let policy = try String(contentsOfFile: destdir + "/usr/share/dbus-1/system.d/io.github.reveille.WakeHelper.conf", encoding: .utf8)
        #expect(policy.contains(#"<allow own="io.github.reveille.WakeHelper"/>"#))
        let action = try String(contentsOfFile: destdir + "/usr/share/polkit-1/actions/io.github.reveille.policy", encoding: .utf8)
        #expect(action.contains(#"<action id="\#(WakeHelperInterface.polkitAction)">"#) && action.contains("<allow_active>yes</allow_active>"))
        let uninstall = try Subprocess.run(installer, ["--uninstall", "--prefix", "/usr", "--destdir", destdir],
                                           environment: ProcessInfo.processInfo.environment)
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        #expect(listing(destdir).isEmpty, "uninstall removes all of it: \(listing(destdir))")
    }

    @Test func manPagesGetTheirOwnSectionsAndLoseTheGeneratorsInventedSubcommand() throws {
        // The shape swift-argument-parser's generate-manual gives a tool without subcommands.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-man-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let generated = """
            .Sh NAME
            .Nm reveille-agent
            .Sh SYNOPSIS
            .Nm
            .Ar subcommand
            .Op Fl -replace
            .Sh DESCRIPTION
            .Bl -tag -width 6n
            .It Fl -replace
            Take over from a running agent.
            .It Em help
            Show subcommand help information.
            .Bl -tag -width 6n
            .It Ar subcommands...
            .El
            .El
            .Sh "EXIT STATUS"
            .Ex -std

            """
        try generated.write(toFile: folder + "/reveille-agent.1", atomically: true, encoding: .utf8)
        let finish = try Subprocess.run(repository + "/scripts/finish-man", [folder], environment: ProcessInfo.processInfo.environment)
        #expect(finish.status == 0, "\(finish.stderr)")
        let page = try String(contentsOfFile: folder + "/reveille-agent.1", encoding: .utf8)
        #expect(!page.contains("subcommand") && !page.contains(".It Em help") && !page.contains(".Ex -std"), "\(page)")
        for section in [#".Sh "EXIT STATUS""#, ".Sh ENVIRONMENT", ".Sh FILES", ".Sh EXAMPLES"] {
            #expect(page.contains(section), "\(section) is missing")
        }
        #expect(page.contains(".It Fl -replace\nTake over from a running agent.\n.El"), "the options stay")
        // The CLI's page lists the exit statuses the CLI uses.
        let sections = try String(contentsOfFile: repository + "/docs/man/reveille.sections", encoding: .utf8)
        for status in ["64", "65", "66", "69", "74", "77"] { #expect(sections.contains(".It \(status)\n")) }
    }
}
