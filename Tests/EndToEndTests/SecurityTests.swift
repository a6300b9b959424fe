import Foundation
import Testing
import ReveilleCore
import ReveilleTestSupport

/// What a hostile or careless client or file must not achieve.
@Suite("Security end to end", .serialized)
struct SecurityTests {
    @Test func controlCharactersAndMarkupInTitlesAreShownSafely() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let title = "<b>Tea</b> & \u{07}bell\u{1B}[31mred\ttab"
        #expect(try session.cli("timer", "1s", "--title", title).status == 0)
        let alert = try eventually(timeout: 5, "the alert") {
            try session.events.first { $0.event == "notify" && $0.hints?["urgency"] == .number(2) }
        }
        let summary = try #require(alert.summary)
        #expect(summary == "<b>Tea</b> & bell [31mred tab", "control characters become spaces: \(summary.debugDescription)")
        #expect(!summary.unicodeScalars.contains { CharacterSet.controlCharacters.contains($0) })
        // The body is markup on this server: nothing in it may be unescaped.
        #expect(alert.body?.contains("<") == false)
        let long = try session.cli("timer", "1s", "--title", String(repeating: "x", count: 501))
        #expect(long.status != 0 && long.stderr.contains("at most 500"))
    }

    @Test func stateAndConfigFilesArePrivate() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        #expect(try session.cli("timer", "1h").status == 0)
        #expect(try session.cli("auth", "allow", "org.test.Private").status == 0)
        func mode(_ path: String) throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as! NSNumber).intValue
        }
        #expect(try mode(session.stateDirectory) == 0o700)
        #expect(try mode(session.stateDirectory + "/alarms.journal") == 0o600)
        // Every file the agent keeps there, whatever its name.
        for file in try FileManager.default.contentsOfDirectory(atPath: session.stateDirectory) {
            #expect(try mode(session.stateDirectory + "/" + file) == 0o600, "\(file)")
        }
        #expect(try mode(session.directory + "/config/reveille") == 0o700)
        #expect(try mode(session.directory + "/config/reveille/authorizations.json") == 0o600)
    }
}
