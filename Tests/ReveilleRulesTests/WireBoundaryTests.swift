import Foundation
import ReveilleAgentTesting
@testable import ReveilleCore
import ReveilleModel
@testable import ReveilleRules
import Testing

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

    /// A call of every method, as its arguments arrive and as it reads.
    static let samples: [(String, [AgentCall.Argument], AgentCall)] = {
        let id = UUID()
        return [
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
            ("Unskip", [.string("ab")], .unskip(id: "ab")), ("Restore", [.string("{}")], .restore(record: "{}")),
            ("Disable", [.string("ab")], .setEnabled(false, id: "ab")), ("Enable", [.string("ab")], .setEnabled(true, id: "ab")),
            ("RequestAuthorization", [], .requestAuthorization), ("AuthorizationState", [], .authorizationState),
            ("Authorizations", [], .authorizations),
            ("SetAuthorization", [.string("org.example.App"), .string("denied")], .setAuthorization(appID: "org.example.App", state: .denied)),
            ("ListSounds", [], .listSounds), ("ListOutputs", [], .listOutputs), ("PlaySound", [.string("bell"), .number(2)], .playSound(name: "bell", seconds: 2)),
            ("WakeStatus", [], .wakeStatus), ("History", [], .history),
            ("Snooze", [.string("ab"), .number(1200)], .snooze(id: "ab", seconds: 1200)),
            ("PressButton", [.string("ab"), .string("secondary")], .pressButton(id: "ab", button: .secondary)),
            ("SyncAdd", [.string("https://example.com/cal/"), .string("me"), .string("pw")],
             .syncAdd(url: "https://example.com/cal/", user: "me", password: "pw")),
            ("SyncStatus", [], .syncStatus), ("SyncRemove", [], .syncRemove),
            ("PreviewSound", [.string("bell"), .number(2), .number(0.5)], .previewSound(name: "bell", seconds: 2, volume: 0.5)),
            ("StopPreview", [], .stopPreview),
            ("Settings", [], .settings), ("SetSettings", [.string(#"{"wakeLead": 90}"#)], .setSettings(changes: #"{"wakeLead": 90}"#)),
        ]
    }()

    @Test func everyMethodDecodesFromItsArguments() throws {
        let cases = Self.samples
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

    /// The table's one entry per method is what the decoder reads, the encoder writes and the
    /// introspection XML declares: the arguments' count, order, names and types agree.
    @Test func everyEntryDeclaresWhatItsCodersReadAndWrite() throws {
        let xml = AgentInterface.introspectionXML
        for (method, arguments, expected) in Self.samples {
            let entry = expected.method
            #expect(entry.name == method && AgentMethod.named(method)?.name == method)
            let declared = entry.parameters.map(\.type)
            #expect(arguments.map(Self.type) == declared, "\(method)'s sample arguments are of its declared types")
            #expect(expected.wire.arguments.map(Self.type) == declared, "\(method) is written as it is declared")
            // The XML's `in` arguments, as introspection lists them.
            let start = try #require(xml.firstRange(of: "<method name=\"\(method)\""), "\(method) is in the XML")
            let rest = xml[start.upperBound...]
            let element = rest.hasPrefix("/>") ? rest.prefix(0) : rest[..<(try #require(rest.firstRange(of: "</method>"))).lowerBound]
            let inputs = element.matches(of: /<arg name="(\w+)" type="([^"]+)" direction="in"\/>/).map { "\($0.1):\($0.2)" }
            #expect(inputs == entry.parameters.map { "\($0.name):\($0.type)" }, "\(method)'s arguments in the XML")
        }
    }

    /// What the gate and the service know of each method is the table's, and says what the
    /// hand-written lists said before (`ExportGate`'s answering methods, the user's-tools-only
    /// methods, the calls a client gives no timeout).
    @Test func theGatesAndTheServicesFactsAreTheTables() {
        #expect(AgentMethod.answeringAlarms == ["Stop", "Countdown", "Snooze", "PressButton"])
        #expect(Set(AgentMethod.table.filter { $0.userOnly != nil }.map(\.name))
                == ["ListOutputs", "PlaySound", "Authorizations", "SetAuthorization", "PressButton", "WakeStatus", "SyncAdd", "SyncStatus", "SyncRemove",
                    "Settings", "SetSettings", "PreviewSound", "StopPreview"])
        #expect(Set(Self.samples.map(\.2).filter(\.waitsForUser).map(\.wire.method)) == ["Schedule", "RequestAuthorization"])
        #expect(Set(AgentMethod.table.map(\.name)).count == AgentMethod.table.count, "each method once")
    }

    private static func type(_ argument: AgentCall.Argument) -> String {
        switch argument {
        case .string: "s"
        case .count: "u"
        case .number: "d"
        case .dictionary: "a{sv}"
        case .other: "?"
        }
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
        for volume in [Double.nan, .infinity, -1, 0, 0.0005, 1.5] {
            #expect(refusal { _ = try AgentCall.decode(method: "PreviewSound", arguments: [.string(""), .number(2), .number(volume)]) }?
                .contains("accepted: 0.001 to 1") == true, "\(volume)")
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

    /// Read strictly, each refusal saying where: Foundation keeps a repeated key's first value,
    /// and says "not valid JSON" of a number a field cannot hold.
    @Test func aConfigurationIsReadStrictlyAndARefusalSaysWhere() throws {
        func decode(_ text: String) -> String? { refusal { _ = try AlarmRequest.decode(configuration: text) } }
        let alert = #""presentation": {"alert": {"title": "Up"}}"#
        #expect(decode("{\(alert), \(alert)}") == "configuration: 'presentation' is given twice in the top object; each key once")
        #expect(decode(#"{"presentation": {"alert": {"title": "A", "title": "B"}}}"#)
                == "configuration: 'title' is given twice in presentation.alert; each key once")
        #expect(decode(#"{"schedule": {"relative": {"time": {"hour": 7.5, "minute": 0}, "repeats": "never"}}, "ring": {"volume": 0.5}, "# + alert + "}")
                == "configuration's schedule.relative.time.hour is 7.5, which it cannot hold: a whole number is due there, or a smaller one")
        #expect(decode(#"{"countdownDuration": {"preAlert": 1e400}, "# + alert + "}")?.hasPrefix("configuration's countdownDuration.preAlert is 1e400") == true)
        // Two such numbers: one is named (the other is named once it is put right).
        #expect(decode(#"{"schedule": {"relative": {"time": {"hour": 7.5, "minute": 1.5}, "repeats": "never"}}, "# + alert + "}")
                == "configuration's schedule.relative.time.minute is 1.5, which it cannot hold: a whole number is due there, or a smaller one")
        // 16,000 numbers before the wrong one: a few are tried, not all (each try decodes the whole text).
        let padded = #"{"pad": ["# + Array(repeating: "1.5", count: 16_000).joined(separator: ",")
            + #"], "schedule": {"relative": {"time": {"hour": 7.5, "minute": 0}, "repeats": "never"}}, "# + alert + "}"
        #expect(decode(padded)?.hasPrefix("configuration is not a valid AlarmRequest JSON object") == true)
        #expect(decode("{\(alert),}") == "configuration: not JSON text: at byte 44, a key in quotes was due")
        #expect(decode(#"{"presentation": {"alert": {"title": "\ud800"}}}"#)?.contains("the low surrogate") == true)
        #expect(decode(String(repeating: "[", count: 100))?.contains("nested more than 64 deep") == true)
        // A slip of a known key is refused (it made a December alarm a five-minute timer);
        // another key, one a newer ReveilleKit may send, is passed over.
        let timer = #""countdownDuration": {"preAlert": 300}, "# + alert
        #expect(decode(#"{"Schedule": {"fixed": "2026-12-24T18:00:00Z"}, "# + timer + "}")
                == "configuration has 'Schedule', which is not a key; did you mean 'schedule'?")
        #expect(decode(#"{"sund": "bell", "# + timer + "}") == "configuration has 'sund', which is not a key; did you mean 'sound'?")
        #expect(decode(#"{"ring": {"volum": 0.5}, "# + timer + "}") == "configuration's ring has 'volum', which is not a key; did you mean 'volume'?")
        #expect(decode(#"{"ring": {"ringlimit": 60}, "# + timer + "}") == "configuration's ring has 'ringlimit', which is not a key; did you mean 'ringLimit'?")
        #expect(decode(#"{"appEntityIdentifier": "x", "ring": {"someNewOption": true}, "# + timer + "}") == nil)
        // A date without its zone is refused (read as UTC, an app's 18:00 rang at 19:00 in Berlin).
        #expect(decode(#"{"schedule": {"fixed": "2026-12-24T18:00:00"}, "# + alert + "}")?
                    .contains("'2026-12-24T18:00:00' has no time zone; give one, like 2026-12-24T17:00:00Z or 2026-12-24T18:00:00+01:00") == true)
        #expect(try AlarmRequest.decode(configuration: #"{"schedule": {"fixed": "2026-12-24T18:00:00+01:00"}, "# + alert + "}").schedule
                == .fixed(Date(timeIntervalSince1970: 1_798_131_600)))
        // A fixed instant stays in the year 9999 in every zone (9999-12-31T23:59:59Z is 10000 in Berlin).
        let late = try AlarmRequest.decode(configuration: #"{"schedule": {"fixed": "9999-12-31T23:59:59Z"}, "# + alert + "}")
        #expect(refusal { try late.validate(now: now, timeZone: utc) }?.contains("still the year 9999 in every time zone") == true)
        let latest = try AlarmRequest.decode(configuration: #"{"schedule": {"fixed": "9999-12-31T09:59:59Z"}, "# + alert + "}")
        #expect(refusal { try latest.validate(now: now, timeZone: utc) } == nil)
        // Escapes read as Foundation reads them.
        let escaped = try AlarmRequest.decode(configuration: #"{"countdownDuration": {"preAlert": 60}, "presentation": {"alert": {"title": "G\u00e9m \ud83d\ude00 \"\/\t"}}}"#)
        #expect(escaped.presentation.alert.title == "Gém 😀 \"/\t")
    }

    /// StrictJSON accepts what Foundation accepts, but for a repeated key, a trailing comma
    /// (RFC 8259 has none; Foundation takes `[1,]`), nesting past its bound, a lone surrogate,
    /// and what follows a NUL (Foundation stops reading there: `9\0x` is 9 to it); Foundation
    /// refuses `0e9` (RFC 8259 has it, and Foundation takes `0e+9`). What it reads, written
    /// again, reads back the same.
    @Test func strictJSONAgreesWithFoundation() throws {
        let texts = [#"{"a": [1, -0.5e+3, true, false, null, "x\n"], "b": {}}"#, "[]", "  7 ", #""\u0041""#, "-0", "1E5",
                     "{", "[1,]", "01", "1.", ".5", "+1", "tru", #""a"#, "\u{1}", #"{"a" 1}"#, #"{"a":1 "b":2}"#, "[1 2]", "", " ",
                     #""\x""#, #""\u12""#, "nul", "[\"\u{7}\"]", #"{"a":1,"a":2}"#, #"{"a":1,}"#, "9\u{0}x", "0e9", "0e+9"]
        for text in texts {
            let strict = Result { try StrictJSON.parse(text) }
            if case .success(let tree) = strict {
                #expect(JSONText.isValid(text) || text == "0e9", "StrictJSON accepted \(text.debugDescription), which Foundation refuses")
                #expect(try StrictJSON.parse(tree.text) == tree, "\(tree.text) does not read back as \(text.debugDescription)")
            } else if JSONText.isValid(text) {
                #expect(text.contains(#""a":1,"a""#) || text.contains(",]") || text.contains(",}") || text.contains("\u{0}"),
                        "StrictJSON refused \(text.debugDescription), which Foundation accepts")
            }
        }
    }

    @Test func aConfigurationDecodesOrSaysWhatIsWrong() throws {
        #expect(refusal { _ = try AlarmRequest.decode(configuration: "{") } == "configuration: not JSON text: at byte 1, a key in quotes was due")
        #expect(refusal { _ = try AlarmRequest.decode(configuration: "{}") } == "configuration is missing presentation")
        let text = String(decoding: try JSONCoding.compactEncoder.encode(request(schedule: nil, preAlert: 60)), as: UTF8.self)
        #expect(try AlarmRequest.decode(configuration: text) == request(schedule: nil, preAlert: 60))
    }
}
