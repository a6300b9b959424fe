import Foundation
import ReveilleAgentTesting
import ReveilleCore
import ReveilleTimeZone
import Testing

/// The product reads zones with GLib (`GLibTimeZone`); these tests hold it to ICU's
/// answers (Foundation's `TimeZone`, which the tests may link) and to known transitions.
@Suite struct TimeZoneTests {
    static let zones = ["Europe/Berlin", "America/New_York", "America/Sao_Paulo", "Australia/Lord_Howe",
                        "Asia/Kolkata", "Pacific/Chatham", "Africa/Casablanca", "America/St_Johns", "UTC"]

    /// Up to 2026 only: later, the system's tz database (which GLib reads, and Debian updates)
    /// may know of rule changes that the ICU data built into the toolchain does not. Morocco's
    /// move to +00 from 2026-09-20 is one (tzdata 2026f).
    @Test(arguments: zones) func offsetsAgreeWithICUFrom1990To2026(identifier: String) throws {
        let glib = try #require(GLibTimeZone(identifier: identifier))
        let icu = try #require(TimeZone(identifier: identifier))
        // Every 7 hours 13 minutes for 36 years: about 44,000 instants, hitting every transition's day.
        var date = Date(timeIntervalSince1970: 631_152_000)
        var disagreements: [String] = []
        while date.timeIntervalSince1970 < 1_767_225_600, disagreements.count < 5 {
            if glib.secondsFromGMT(for: date) != icu.secondsFromGMT(for: date) {
                disagreements.append("\(date): GLib \(glib.secondsFromGMT(for: date)), ICU \(icu.secondsFromGMT(for: date))")
            }
            date += 7 * 3600 + 13 * 60
        }
        #expect(disagreements.isEmpty, "\(identifier): \(disagreements.joined(separator: "; "))")
    }

    @Test func transitionsLandOnTheSecond() throws {
        let berlin = try #require(GLibTimeZone(identifier: "Europe/Berlin"))
        // 2027-03-28 01:00 UTC: CET ends, CEST begins; the rules come from the file's TZ footer this far out.
        let change = instant("2027-03-28T01:00:00Z")
        #expect(berlin.secondsFromGMT(for: change - 1) == 3600)
        #expect(berlin.secondsFromGMT(for: change) == 7200)
        #expect(berlin.secondsFromGMT(for: instant("2090-07-01T00:00:00Z")) == 7200)
        #expect(berlin.identifier == "Europe/Berlin")
    }

    @Test func unknownZonesAreRefusedAndRulesAccepted() throws {
        #expect(GLibTimeZone(identifier: "Mars/Olympus_Mons") == nil)
        #expect(GLibTimeZone(identifier: "") == nil)
        let rule = try #require(GLibTimeZone(identifier: "CET-1CEST,M3.5.0,M10.5.0/3"))
        #expect(rule.secondsFromGMT(for: instant("2027-07-01T00:00:00Z")) == 7200)
        #expect(rule.secondsFromGMT(for: instant("2027-01-01T00:00:00Z")) == 3600)
    }

    @Test func localFollowsTZ() throws {
        // GLib reads TZ when asked for the local zone, as the CLI does.
        #expect(GLibTimeZone.local.secondsFromGMT(for: Date()) == TimeZone.current.secondsFromGMT(for: Date()))
    }

    /// A folder of its own for localtime files.
    func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-localtime-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func copy(_ zone: String, to path: String) throws {
        try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/" + zone)).write(to: URL(fileURLWithPath: path))
    }

    @Test func aRegularFileLocaltimeIsTheZoneWithTheSameBytes() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try copy("Europe/Berlin", to: folder + "/localtime")
        let berlin = try #require(LocaltimeFile.zone(at: folder + "/localtime"))
        #expect(berlin.identifier == "Europe/Berlin")
        #expect(berlin.secondsFromGMT(for: instant("2027-07-01T00:00:00Z")) == 7200)
        #expect(berlin.secondsFromGMT(for: instant("2027-01-01T00:00:00Z")) == 3600)
        // A wrong hint (a stale /etc/timezone) does not win over the bytes.
        try copy("Asia/Kolkata", to: folder + "/kolkata")
        #expect(LocaltimeFile.zone(at: folder + "/kolkata", hint: "Europe/Berlin")?.identifier == "Asia/Kolkata")
        // A link still names its target.
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: "/usr/share/zoneinfo/America/New_York")
        #expect(LocaltimeFile.zone(at: folder + "/link")?.identifier == "America/New_York")
    }

    /// What the CLI, ReveilleKit and the agent take for the local zone.
    @Test func theLocalZoneIsTZElseTheLocaltimeFileLinkOrRegular() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try copy("Europe/Berlin", to: folder + "/localtime")
        let summer = instant("2027-07-01T00:00:00Z")
        let regular = GLibTimeZone.local(environment: [:], localtime: folder + "/localtime")
        #expect(regular.identifier == "Europe/Berlin" && regular.secondsFromGMT(for: summer) == 7200)
        #expect(GLibTimeZone.local(environment: ["TZ": ":Asia/Tokyo"], localtime: folder + "/localtime").identifier == "Asia/Tokyo")
        #expect(GLibTimeZone.local(environment: ["TZ": "Mars/Olympus_Mons"], localtime: folder + "/localtime").secondsFromGMT(for: summer) == 0)
        #expect(GLibTimeZone.local(environment: ["TZ": ":" + folder + "/localtime"]).secondsFromGMT(for: summer) == 7200)
    }

    @Test func aZoneFoundNowhereFollowsItsFootersRules() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/Europe/Berlin")))
        bytes[60] ^= 0x01  // one transition moved: no file of the database holds these bytes
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/localtime"))
        let zone = try #require(LocaltimeFile.zone(at: folder + "/localtime"))
        #expect(zone.identifier == "CET-1CEST,M3.5.0,M10.5.0/3")
        #expect(zone.secondsFromGMT(for: instant("2027-07-01T00:00:00Z")) == 7200)
    }

    @Test func aFileHoldingNoZoneGivesNone() throws {
        let folder = try folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data().write(to: URL(fileURLWithPath: folder + "/empty"))
        try Data("Europe/Berlin\n".utf8).write(to: URL(fileURLWithPath: folder + "/text"))
        try Data("TZif2".utf8 + [UInt8](repeating: 0, count: 300_000)).write(to: URL(fileURLWithPath: folder + "/huge"))
        for name in ["empty", "text", "huge", "missing"] {
            #expect(LocaltimeFile.zone(at: folder + "/" + name) == nil, "\(name)")
        }
        #expect(LocaltimeFile.zone(at: folder) == nil, "a folder")
    }
}

