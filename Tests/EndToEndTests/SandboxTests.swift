import Foundation
import ReveilleCore
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// What a sandboxed (Flatpak) app may reach outside its sandbox: a real sandbox made by
/// bubblewrap, as Flatpak makes it, with the `/.flatpak-info` that names the app.
@Suite("Sandboxed apps end to end", .waitsOnItsOwnThread)
struct SandboxTests {
    /// Runs `reveille-test-app APP_ID USAGE ARGUMENTS...` inside a sandbox whose `/.flatpak-info` names `appID`.
    func runSandboxed(_ session: TestSession, _ appID: String, declaring declaredID: String? = nil, _ arguments: [String]) throws -> Subprocess.Result {
        try session.runSandboxed(appID, [session.binaries + "/reveille-test-app", declaredID ?? appID, "Opens itself"] + arguments)
    }

    /// Writes a desktop entry running `exec` to `folder/ID.desktop`.
    func writeEntry(_ folder: String, _ desktopID: String, exec: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "[Desktop Entry]\nType=Application\nName=Boxed\nExec=\(exec)\n"
            .write(toFile: "\(folder)/\(desktopID).desktop", atomically: true, encoding: .utf8)
    }

    @Test func aSandboxedAppOpensItselfOnlyThroughWhatFlatpakExportedNeverAnEntryItDroppedInTheApplicationsFolder() throws {
        let session = try TestSession(audio: .none)
        let data = session.directory + "/home/.local/share"
        // The app, with access to the home folder, drops an entry of its own id that runs a host command.
        let escaped = session.directory + "/escaped"
        try writeEntry(data + "/applications", "org.test.Boxed", exec: "/usr/bin/touch \(escaped)")
        // What Flatpak exported for it: its own launcher, here a stand-in recording how it was called.
        let launcher = session.directory + "/bin/flatpak"
        try FileManager.default.createDirectory(atPath: session.directory + "/bin", withIntermediateDirectories: true)
        try "#!/bin/sh\nprintf '%s\\n' \"$@\" > \(session.directory)/flatpak-ran.tmp && mv \(session.directory)/flatpak-ran.tmp \(session.directory)/flatpak-ran\n"
            .write(toFile: launcher, atomically: true, encoding: .utf8)
        #expect(chmod(launcher, 0o755) == 0)
        try writeEntry(data + "/flatpak/exports/share/applications", "org.test.Boxed",
                       exec: "\(launcher) run --branch=stable --arch=x86_64 --command=boxed org.test.Boxed @@u %U @@")
        try session.startAgent()
        #expect(try session.cli("auth", "allow", "org.test.Boxed").status == 0)

        let scheduled = try runSandboxed(session, "org.test.Boxed", ["timer-open", "1", "org.test.Boxed"])
        #expect(scheduled.status == 0, "\(scheduled.stderr)")
        let alarmID = try #require(try JSONDecoder().decode([String: String].self, from: Data(scheduled.stdout.utf8))["id"])
        let listed = try session.cli("list", "--json").stdout
        #expect(listed.contains(#""app":"org.test.Boxed""#) || listed.contains(#""app" : "org.test.Boxed""#), "filed under its sandbox's id: \(listed)")
        let alert = try eventually(timeout: 20, "the alert") { try session.alerts(titled: "Opener").first }
        try session.press(label: "Stop", on: alert.id)

        let ran = try eventually(timeout: 20, "Flatpak's launcher to run") {
            try? String(contentsOfFile: session.directory + "/flatpak-ran", encoding: .utf8)
        }
        #expect(ran.split(separator: "\n") == ["run", "--env=REVEILLE_ACTION=stop", "--env=REVEILLE_ALARM_ID=\(alarmID.lowercased())",
                                               "--branch=stable", "--arch=x86_64", "--command=boxed", "org.test.Boxed"], "\(ran)")
        #expect(!FileManager.default.fileExists(atPath: escaped), "the dropped entry's host command did not run")
    }

    @Test func aSandboxNamedAsTheUsersOwnToolsIsRefusedAndSeesNothingOfTheUsers() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let mine = try session.cliJSON(AlarmJSON.self, "add", "7:00", "--title", "Mine")
        // Its /.flatpak-info says name=reveille: as that app it would own every alarm the user made.
        let listed = try runSandboxed(session, "reveille", declaring: "org.test.Impostor", ["list"])
        #expect(listed.status == 3 && listed.stderr.contains("is the user's own tools"), "\(listed.stdout)\(listed.stderr)")
        #expect(!listed.stdout.lowercased().contains(mine.id.lowercased()), "the user's alarm was shown to the sandbox: \(listed.stdout)")
        let cancelled = try runSandboxed(session, "reveille", declaring: "org.test.Impostor", ["cancel", mine.id])
        #expect(cancelled.status == 3, "\(cancelled.stderr)")
        #expect(try session.cliJSON([AlarmJSON].self, "list").map(\.id) == [mine.id], "the user's alarm is still there")
    }

    @Test func aSandboxedAppWithoutAnExportedEntryCannotAskToOpenItself() throws {
        let session = try TestSession(audio: .none)
        try writeEntry(session.directory + "/home/.local/share/applications", "org.test.Unexported", exec: "/usr/bin/true")
        try session.startAgent()
        #expect(try session.cli("auth", "allow", "org.test.Unexported").status == 0)
        let refused = try runSandboxed(session, "org.test.Unexported", ["timer-open", "60", "org.test.Unexported"])
        #expect(refused.status == 3 && refused.stderr.contains("org.test.Unexported is sandboxed and Flatpak exports no desktop entry for it"),
                "\(refused.stderr)")
        // Nor anyone else, as before.
        let other = try runSandboxed(session, "org.test.Unexported", ["timer-open", "60", "org.gnome.Calculator"])
        #expect(other.status == 3 && other.stderr.contains("it may open only itself, not org.gnome.Calculator"), "\(other.stderr)")
        #expect(try session.cliJSON([AlarmJSON].self, "list").isEmpty)
    }
}
