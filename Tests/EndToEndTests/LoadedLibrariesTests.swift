import Foundation
import ReveilleTestSupport
import ReveilleTestTraits
import Testing

/// Libraries only some commands need are opened when first needed, so the common paths
/// (`reveille list`, the idle agent) neither load them at start nor keep their pages.
@Suite("Libraries loaded on demand", .waitsOnItsOwnThread)
struct LoadedLibrariesTests {
    /// libical, and ICU which it brings: what reading a calendar needs, and nothing else.
    private static let calendarLibraries = ["libical", "libicu"]
    /// libsoup and libsecret, and what only they bring (HTTP/2, public suffixes, cookies' sqlite3,
    /// brotli, Kerberos): what sync needs, opened once it is set up.
    private static let syncLibraries = ["libsoup", "libsecret", "libnghttp2", "libpsl", "libsqlite3", "libbrotli", "libgssapi"]

    /// The files the dynamic linker loaded for a run, as `LD_DEBUG=files` reports them.
    private func loadedFiles(_ result: Subprocess.Result) -> [String] {
        result.stderr.split(separator: "\n").compactMap { line in
            line.firstMatch(of: /file=(\S+) \[\d+\];/).map { String($0.1) }
        }
    }

    private func calendarFiles(_ files: [String]) -> [String] {
        files.filter { file in Self.calendarLibraries.contains { file.contains($0) } }
    }

    private func syncFiles(_ files: [String]) -> [String] {
        files.filter { file in Self.syncLibraries.contains { file.contains($0) } }
    }

    @Test func listingLoadsNoCalendarLibraryAndImportOpensLibical() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let list = try session.cli("list", environment: ["LD_DEBUG": "files"])
        #expect(list.status == 0, "\(list.stderr)")
        let listed = loadedFiles(list)
        #expect(!listed.isEmpty, "LD_DEBUG=files reported no file; the check would pass for nothing")
        #expect(calendarFiles(listed).isEmpty, "reveille list loaded \(calendarFiles(listed))")

        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/ical/rfc5545-alarms.ics").path
        let preview = try session.cli("import", fixture, "--dry-run", environment: ["LD_DEBUG": "files"])
        #expect(preview.status == 0, "\(preview.stderr.split(separator: "\n").filter { !$0.contains("file=") && !$0.contains(":\t") })")
        #expect(loadedFiles(preview).contains { $0.contains("libical.so") }, "import read the calendar without libical?")
    }

    @Test func theIdleAgentMapsNoCalendarOrSyncLibrary() throws {
        let session = try TestSession(audio: .none)
        try session.startAgent()
        let agent = try #require(session.agent)
        #expect(try session.cli("timer", "1h", "--title", "Tea").status == 0)
        // Read to its end: /proc files report no size, so a read sized by it would stop early.
        let file = try #require(FileHandle(forReadingAtPath: "/proc/\(agent.pid)/maps"))
        let maps = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        let mapped = Set(maps.split(separator: "\n").compactMap { $0.split(separator: " ", omittingEmptySubsequences: true).last }
            .map(String.init).filter { $0.hasPrefix("/") })
        #expect(mapped.contains { $0.contains("libglib-2.0") }, "the agent's maps list no library at all: \(mapped)")
        #expect(calendarFiles(Array(mapped)).isEmpty, "the agent without sync maps \(calendarFiles(Array(mapped)))")
        #expect(syncFiles(Array(mapped)).isEmpty, "the agent without sync maps \(syncFiles(Array(mapped)))")
    }
}
