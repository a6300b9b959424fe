import Foundation
@testable import ReveilleAgentRuntime
import ReveilleBus
import ReveilleModel
@testable import ReveilleSound
import Testing

/// The Sound Theme spec's rules, one test each, on theme folders made for the test.
@Suite("Sound theme lookup")
struct SoundThemeTests {
    func themes(_ indexes: [String: String]) throws -> String {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-theme-\(UUID().uuidString.prefix(8))").path
        for (theme, index) in indexes {
            try FileManager.default.createDirectory(atPath: "\(base)/\(theme)", withIntermediateDirectories: true)
            try index.write(toFile: "\(base)/\(theme)/index.theme", atomically: true, encoding: .utf8)
        }
        return base
    }

    @Test func aNameFallsBackByItsDashParts() {
        #expect(SoundTheme.fallbacks("alarm-clock-elapsed") == ["alarm-clock-elapsed", "alarm-clock", "alarm"])
        #expect(SoundTheme.fallbacks("bell") == ["bell"])
    }

    @Test func theChainIsTheThemeItsParentsInOrderThenFreedesktopEachOnce() throws {
        let base = try themes(["A": "[Sound Theme]\nInherits=B, C\n", "B": "[Sound Theme]\nInherits=A\n", "C": "[Sound Theme]\n"])
        defer { try? FileManager.default.removeItem(atPath: base) }
        #expect(SoundTheme(name: "A", bases: [base]).chain == ["A", "B", "C", "freedesktop"], "a cycle is followed once")
        #expect(SoundTheme(name: "../etc", bases: [base]).chain == ["freedesktop"], "a name cannot leave the sounds folders")
    }

    @Test func onlyStereoDirectoriesAreSearchedAndAThemeWithoutIndexHasStereo() throws {
        let base = try themes(["S": "[Sound Theme]\nDirectories=stereo,5.1,plain\n\n[stereo]\nOutputProfile=stereo\n\n[5.1]\nOutputProfile=5.1\n"])
        defer { try? FileManager.default.removeItem(atPath: base) }
        let theme = SoundTheme(name: "S", bases: [base])
        #expect(theme.folders.prefix(2) == ["\(base)/S/stereo", "\(base)/S/plain"])
        #expect(theme.folders.last == "\(base)/freedesktop/stereo")
    }

    @Test func keyFilesAreReadAsGLibReadsThem() throws {
        // The shape of a Flatpak sandbox's /.flatpak-info: the app id is [Application] name.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-keyfile-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "# a comment\n[Application]\nname=org.example.Cook\nruntime=runtime/org.gnome.Platform/x86_64/45\n\n[Instance]\nname=not-this\nmessage=two\\nlines\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        let file = try #require(KeyFile(path: path))
        #expect(file.string("Application", "name") == "org.example.Cook")
        #expect(file.string("Instance", "message") == "two\nlines", "escapes processed")
        #expect(file.contains(group: "Instance") && !file.contains(group: "Nope"))
        try "not a key file".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(KeyFile(path: path) == nil, "malformed")
        #expect(KeyFile(path: "/proc/self") == nil, "not a regular file")
    }

    @Test func aFolderOfManySoundsIsListedUpToTheLimit() throws {
        let base = try themes([:])
        defer { try? FileManager.default.removeItem(atPath: base) }
        let folder = base + "/sounds/reveille"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for index in 0..<(SoundLibrary.maximumNamesPerFolder + 500) {
            FileManager.default.createFile(atPath: folder + "/s\(index).oga", contents: Data())
        }
        let library = SoundLibrary(environment: ["HOME": base, "XDG_DATA_HOME": base, "XDG_DATA_DIRS": base + "/none"])
        let entries = library.entries()
        #expect(entries.count == SoundLibrary.maximumEntries)
        #expect(Set(entries.map(\.name)).count == entries.count)
        // An unknown name is still refused with the closest names, not a list of thousands.
        do {
            _ = try library.resolve(.named("nope"), allowPaths: false)
            Issue.record("an unknown sound was accepted")
        } catch {
            #expect(error.reason.hasPrefix("no sound named 'nope'; the closest:") && error.reason.count < 300, "\(error.reason)")
        }
    }
}
