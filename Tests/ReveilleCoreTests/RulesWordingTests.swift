import Foundation
import ReveilleAgentTesting
@testable import ReveilleCore
import ReveilleModel
@testable import ReveilleRules
import ReveilleWords
import Testing

/// The rules refuse in data; Core words each refusal. The words are exactly what the rules
/// said themselves before, so the po files' msgids and what clients match on stay valid.
@Suite("Rules' refusals in words")
struct RulesWordingTests {
    let now = instant("2027-06-01T12:00:00Z")
    let id = UUID(uuidString: "3F2A9C1E-0000-4000-8000-000000000000")!

    var alarm: AlarmRecord {
        AlarmRecord(id: id, request: request(schedule: relative(7, 30, everyDay)), appID: "test", phase: .scheduled(fireDate: now + 600))
    }

    var timer: AlarmRecord {
        AlarmRecord(id: id, request: request(schedule: nil, preAlert: 60), appID: "test", phase: phase(.countdown, at: now))
    }

    @Test func everyRefusalOfTheStateMachineAndTheEngineReadsAsBefore() {
        let cases: [(AlarmRuleError, AlarmError)] = [
            (.alarmKit(.maximumLimitReached), .maximumLimitReached),
            (.noInstantAfterNow, .invalidConfiguration("the schedule has no instant after now")),
            (.lengthOnlyForSnooze(.stop), .invalidConfiguration("a length is given only to a snooze, not to stop")),
            (.snoozeLength(90_000), .invalidConfiguration("the snooze length is 25 hours; accepted: 1 second to 24 hours (86400 seconds)")),
            (.notAllowed(.pause, alarm: alarm),
             .invalidState(#"alarm 3f2a9c1e "Wake up" is waiting for its time: pause works only while it is counting down"#)),
            (.notAllowed(.stop, alarm: alarm),
             .invalidState(#"alarm 3f2a9c1e "Wake up" is waiting for its time: stop works only while it is counting down or paused or ringing"#)),
            (.disabled(alarm), .invalidState(#"alarm 3f2a9c1e "Wake up" is disabled: enable it first (reveille enable)"#)),
            (.noSnoozeLength(id), .invalidState(
                "alarm 3f2a9c1e-0000-4000-8000-000000000000 has no snooze or repeat length (countdownDuration.postAlert): it cannot snooze or repeat")),
            (.cannotDisable(timer), .invalidState(
                #"timer 3f2a9c1e "Wake up" is counting down; only an alarm waiting for its time can be disabled (stop or cancel this one)"#)),
            (.notDisabled(alarm), .invalidState(#"alarm 3f2a9c1e "Wake up" is not disabled"#)),
            (.dueWhileDisabled(alarm, due: "2027-06-01T07:30:00"), .invalidState(
                #"alarm 3f2a9c1e "Wake up" was due 2027-06-01T07:30:00 while it was disabled; give it a new time (reveille edit) or cancel it"#)),
            (.cannotSkip(timer), .invalidState(
                #"timer 3f2a9c1e "Wake up" is not waiting for its time; only an alarm waiting for its time can skip it (a timer, a ringing or a snoozed alarm cannot: stop it instead)"#)),
            (.nothingSkipped(alarm), .invalidState(#"alarm 3f2a9c1e "Wake up" has no skipped occurrence ahead; `reveille skip` skips one"#)),
            (.noIDGiven, .notFound("no alarm id given; `reveille list` shows them")),
            (.noIDMatches(prefix: "zz"), .notFound("no alarm has an id starting with 'zz'; `reveille list` shows them")),
            (.ambiguousID(prefix: "3f", starts: ["3f2a9c1e", "3f99aaaa"]),
             .ambiguousID("'3f' starts 2 alarm ids (3f2a9c1e, 3f99aaaa); give more characters")),
            (.idInUse(id), .invalidConfiguration(
                "id 3f2a9c1e-0000-4000-8000-000000000000 cannot be scheduled: an id is used once; cancel your alarm with it first, or use a new id")),
        ]
        for (refusal, words) in cases {
            #expect(AlarmError(refusal) == words)
        }
    }

    @Test func theEngineRefusesInDataAndTheAgentGetsTheWords() throws {
        var engine = AlarmEngine()
        _ = engine.load([alarm], now: now, timeZone: UTCTimeZone())
        let loaded = try #require(engine.alarms[id])
        #expect(throws: AlarmRuleError.notAllowed(.pause, alarm: loaded)) {
            try engine.propose(.apply(.pause, id: .prefix("3f2a")), owner: nil, now: now, timeZone: UTCTimeZone())
        }
        #expect(throws: AlarmError.invalidState(#"alarm 3f2a9c1e "Wake up" is waiting for its time: pause works only while it is counting down"#)) {
            try AlarmError.worded { () throws(AlarmRuleError) in
                try engine.propose(.apply(.pause, id: .prefix("3f2a")), owner: nil, now: now, timeZone: UTCTimeZone())
            }
        }
    }

    @Test func everyParserRefusalReadsAsBefore() {
        let utc = UTCTimeZone()
        func words(_ parse: () throws -> Void) -> String {
            do { try parse() } catch let error as InputError { return error.description } catch { return "not an InputError: \(error)" }
            return "accepted"
        }
        let durations = "90s, 10m, 1h30m, 1h30, 1.5h, 2d, 1:30:00 (h:mm:ss), 5:00 (m:ss)"
        let cases: [(String, () throws -> Void)] = [
            ("could not read '25:00' as a time of day; accepted: 07:30, 7:30, 7.30, 18h30, 0730, 7:30pm, 7pm, 19:30, noon, midnight",
             { _ = try InputParser.timeOfDay("25:00") }),
            ("'0s': durations are positive: 5m, 90s", { _ = try InputParser.duration("0s") }),
            ("'-5m': durations are positive: 5m, 90s", { _ = try InputParser.duration("-5m") }),
            ("could not read '101y' as a duration; accepted: \(durations)", { _ = try InputParser.duration("101y") }),
            ("could not read '40000d' as a duration of at most 36600 days (100 years); accepted: \(durations)",
             { _ = try InputParser.duration("40000d") }),
            ("could not read 'soon' as a duration; accepted: \(durations), 90 (seconds)", { _ = try InputParser.timerLength("soon") }),
            ("could not read '7' as a time or a date (a bare number could be either); accepted: 7:00, 7am, or 'in 7m'",
             { _ = try InputParser.schedule("7", now: now, timeZone: utc) }),
            ("could not read '10m' as a time or a date (10m is how long, not when); accepted: 'in 10m' for an alarm 10m from now, or `reveille timer 10m` for a timer",
             { _ = try InputParser.schedule("10m", now: now, timeZone: utc) }),
            ("could not read '2026-12-24 18:00' as a time of day, since --days mon repeats a time of day; accepted: 07:30, 7:30, 7.30, 18h30, 0730, 7:30pm, 7pm, 19:30, noon, midnight",
             { _ = try InputParser.schedule("2026-12-24 18:00", days: "mon", now: now, timeZone: utc) }),
            ("could not read '--monthly 1 --every 2' as one way to repeat; accepted: one of --days, --monthly, --yearly or --every",
             { _ = try InputParser.schedule("7:00", repeats: .init(monthly: "1", every: "2"), now: now, timeZone: utc) }),
            ("could not read 'moon' as a list of weekdays; accepted: mon,wed,fri or mon-fri (mon tue wed thu fri sat sun, full names, or the short names `reveille list` shows), weekdays, weekends, daily",
             { _ = try InputParser.weekdays("moon") }),
            (#"could not read ''a' as a command line (a ' is not closed); accepted: words separated by spaces; 'single' or "double" quotes; \ before a character to keep it"#,
             { _ = try InputParser.arguments("'a") }),
            ("could not read '--alarm' as an option followed by its value; accepted: --alarm UUID --title TEXT --detail TEXT --stop LABEL [--secondary LABEL]",
             { _ = try AlertWindowArguments(parsing: ["--alarm"]) }),
        ]
        for (expected, parse) in cases {
            #expect(words(parse) == expected)
        }
    }
}

/// The rules stay pure by construction: their module imports only the model and the
/// toolchain's value types, never the C library, gettext, logging or the file system.
@Suite("ReveilleRules' imports")
struct RulesImportTests {
    static let allowed: Set<String> = ["ReveilleModel", "FoundationEssentials", "Synchronization"]

    @Test func theRulesImportOnlyTheModelAndFoundationEssentials() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let folder = root.appendingPathComponent("Sources/ReveilleRules")
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count >= 20, "the rules' sources are found")
        var imported: Set<String> = []
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") {
                guard let match = line.wholeMatch(of: /\s*(?:@\w+\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?([\w]+).*/) else { continue }
                imported.insert(String(match.1))
                #expect(Self.allowed.contains(String(match.1)), "\(file) imports \(match.1); the rules may import only \(Self.allowed.sorted())")
            }
        }
        #expect(imported.contains("ReveilleModel") && imported.contains("FoundationEssentials"))
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#".target(name: "ReveilleRules", dependencies: ["ReveilleModel"])"#), "the target depends on the model alone")
    }
}
