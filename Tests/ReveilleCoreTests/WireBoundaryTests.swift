import Foundation
import Testing
@testable import ReveilleCore
@testable import ReveilleRules

/// The agent's boundary in process: every method's arguments decode within `WireLimits`,
/// and no value, however large, traps while it is refused.
@Suite("Wire boundary")
struct WireBoundaryTests {
    let utc = zone("UTC")
    let now = instant("2027-06-01T12:00:00Z")

    func refusal(_ body: () throws -> Void) -> String? {
        do { try body() } catch let error as AlarmError { return error.reason } catch { return "\(error)" }
        return nil
    }

    @Test func everyMethodDecodesFromItsArguments() throws {
        let id = UUID()
        let cases: [(String, [AgentCall.Argument], AgentCall)] = [
            ("Hello", [.string("org.example.App"), .string("Why")], .hello(appID: "org.example.App", usageDescription: "Why")),
            ("Subscribe", [], .subscribe), ("SubscribeUpdates", [], .subscribeUpdates), ("List", [], .list),
            ("ListPage", [.string(""), .count(0)], .listPage(after: "", limit: WireLimits.pageAlarms)),
            ("ListPage", [.string("ab"), .count(5)], .listPage(after: "ab", limit: 5)),
            ("ListPageAndWake", [.string(""), .count(0)], .listPageAndWake(after: "", limit: WireLimits.pageAlarms)),
            ("ListPageAndWake", [.string("ab"), .count(UInt32(WireLimits.pageAlarms) + 1)],
             .listPageAndWake(after: "ab", limit: WireLimits.pageAlarms)),
            ("Get", [.string("ab")], .get(id: "ab")),
            ("Schedule", [.string(id.uuidString), .string("{}"), .dictionary(count: 0)], .schedule(id: id, configuration: "{}")),
            ("Update", [.string("ab"), .string("{}"), .dictionary(count: 0)], .update(id: "ab", configuration: "{}")),
            ("Cancel", [.string("ab")], .apply(.cancel, id: "ab")), ("Stop", [.string("ab")], .apply(.stop, id: "ab")),
            ("Countdown", [.string("ab")], .apply(.countdown, id: "ab")), ("Pause", [.string("ab")], .apply(.pause, id: "ab")),
            ("Resume", [.string("ab")], .apply(.resume, id: "ab")), ("Skip", [.string("ab")], .skip(id: "ab")),
            ("Unskip", [.string("ab")], .unskip(id: "ab")),
            ("Disable", [.string("ab")], .setEnabled(false, id: "ab")), ("Enable", [.string("ab")], .setEnabled(true, id: "ab")),
            ("RequestAuthorization", [], .requestAuthorization), ("AuthorizationState", [], .authorizationState),
            ("Authorizations", [], .authorizations),
            ("SetAuthorization", [.string("org.example.App"), .string("denied")], .setAuthorization(appID: "org.example.App", state: .denied)),
            ("ListSounds", [], .listSounds), ("PlaySound", [.string("bell"), .number(2)], .playSound(name: "bell", seconds: 2)),
            ("WakeStatus", [], .wakeStatus), ("History", [], .history),
            ("Snooze", [.string("ab"), .number(1200)], .snooze(id: "ab", seconds: 1200)),
            ("PressButton", [.string("ab"), .string("secondary")], .pressButton(id: "ab", button: .secondary)),
            ("SyncAdd", [.string("https://example.com/cal/"), .string("me"), .string("pw")],
             .syncAdd(url: "https://example.com/cal/", user: "me", password: "pw")),
            ("SyncStatus", [], .syncStatus), ("SyncRemove", [], .syncRemove),
        ]
        for (method, arguments, expected) in cases {
            #expect(try AgentCall.decode(method: method, arguments: arguments) == expected, "\(method)")
            // The client's encoding is what the agent decodes.
            let wire = expected.wire
            #expect(wire.method == method)
            #expect(try AgentCall.decode(method: wire.method, arguments: wire.arguments) == expected, "\(method) round trip")
        }
        #expect(Set(cases.map(\.0)) == Set(AgentCall.methods))
    }

    @Test func everyMethodOfTheInterfaceIsInTheTable() {
        let declared = AgentInterface.introspectionXML.matches(of: /<method name="(\w+)"/).map { String($0.1) }
        #expect(Set(declared) == Set(AgentCall.methods))
    }

    @Test func aButtonIsOneOfTheRolesNamed() {
        #expect(refusal { _ = try AgentCall.decode(method: "PressButton", arguments: [.string("ab"), .string("snooze")]) }
            == "button 'snooze' is not one of stop, secondary, pause, resume, cancel")
    }

    @Test func argumentsPastTheirBoundsAreRefusedNamingTheBound() {
        let long = String(repeating: "a", count: WireLimits.shortStringBytes + 1)
        #expect(refusal { _ = try AgentCall.decode(method: "Get", arguments: [.string(long)]) }?
            .contains("at most \(WireLimits.shortStringBytes) are accepted") == true)
        let huge = String(repeating: " ", count: WireLimits.configurationBytes + 1)
        #expect(refusal { _ = try AgentCall.decode(method: "Schedule", arguments: [.string(""), .string(huge), .dictionary(count: 0)]) }?
            .contains("configuration is \(WireLimits.configurationBytes + 1) bytes") == true)
        #expect(refusal { _ = try AgentCall.decode(method: "ListPageAndWake", arguments: [.string(long), .count(0)]) }?
            .contains("at most \(WireLimits.shortStringBytes) are accepted") == true)
        #expect(refusal { _ = try AgentCall.decode(method: "ListPageAndWake", arguments: [.string(""), .number(1)]) }?
            .contains("limit must be a count") == true)
        #expect(refusal { _ = try AgentCall.decode(method: "Get", arguments: []) } == "Get needs its argument id")
        #expect(refusal { _ = try AgentCall.decode(method: "Get", arguments: [.string("a"), .string("b")]) }?.contains("takes 1 arguments") == true)
        #expect(refusal { _ = try AgentCall.decode(method: "Get", arguments: [.number(1)]) } == "Get's argument id must be a string")
        for seconds in [Double.nan, .infinity, -1, 1000] {
            #expect(refusal { _ = try AgentCall.decode(method: "PlaySound", arguments: [.string(""), .number(seconds)]) }?
                .contains("accepted: 0.1 to 60") == true, "\(seconds)")
        }
        #expect(refusal { _ = try AgentCall.decode(method: "ListPage", arguments: [.string(""), .number(.nan)]) }?
            .contains("must be a count (u)") == true)
        #expect(refusal { _ = try AgentCall.decode(method: "Nope", arguments: []) }?.hasPrefix("no method Nope") == true)
    }

    /// Before: 8e23 seconds trapped (SIGILL) in `String(Int(value))` while the refusal was worded.
    @Test func anyCountdownLengthIsRefusedWithoutTrapping() {
        for value in [8e23, -8e23, 1e308, -Double.greatestFiniteMagnitude, .nan, .infinity, 366 * 86_400 + 1, 0] {
            for (pre, post) in [(value, 60.0), (60, value)] {
                let text = refusal { try request(schedule: nil, preAlert: pre, postAlert: post).validate(now: now, timeZone: utc) }
                #expect(text?.contains("accepted: more than 0 seconds and at most 366 days") == true, "\(value): \(text ?? "accepted")")
            }
        }
        #expect(AlarmRequest.spoken(8e23) == "9.259259259259259e+18 days")
    }

    /// Before: millions of weekdays were stored as given (26 MB a call), and the journal passed 256 MiB.
    @Test func aWeeklyRecurrenceNamesEachWeekdayAtMostOnce() throws {
        for days: [Locale.Weekday] in [[.monday, .monday], everyDay + [.monday], Array(repeating: .friday, count: 100_000)] {
            let text = refusal { try request(schedule: relative(7, 0, days)).validate(now: now, timeZone: utc) }
            #expect(text?.contains("each weekday at most once") == true, "\(days.count) days")
        }
        try request(schedule: relative(7, 0, everyDay)).validate(now: now, timeZone: utc)
    }

    @Test func runIntentsAndSoundNamesAreBounded() {
        var tooMany = request(schedule: nil, preAlert: 60)
        tooMany.stopIntent = .run(arguments: ["/bin/true"] + Array(repeating: "x", count: WireLimits.runArguments))
        #expect(refusal { try tooMany.validate(now: now, timeZone: utc) }?.contains("stopIntent runs 65 arguments") == true)
        var longSound = request(schedule: nil, preAlert: 60)
        longSound.sound = .named(String(repeating: "s", count: WireLimits.soundNameBytes + 1))
        #expect(refusal { try longSound.validate(now: now, timeZone: utc) }?.contains("the sound name is") == true)
    }

    @Test func aConfigurationDecodesOrSaysWhatIsWrong() throws {
        #expect(refusal { _ = try AlarmRequest.decode(configuration: "{") }?.contains("not a valid AlarmRequest") == true)
        #expect(refusal { _ = try AlarmRequest.decode(configuration: "{}") } == "configuration is missing presentation")
        let text = String(decoding: try JSONCoding.compactEncoder.encode(request(schedule: nil, preAlert: 60)), as: UTF8.self)
        #expect(try AlarmRequest.decode(configuration: text) == request(schedule: nil, preAlert: 60))
    }
}
