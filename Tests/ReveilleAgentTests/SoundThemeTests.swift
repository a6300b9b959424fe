import Foundation
import Testing
@testable import ReveilleAgent
import ReveilleBus

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
}
