import FoundationEssentials
import ReveilleModel

/// The person's settings for the agent: what `settings.json` in the config folder holds, and
/// what the agent's `Settings` and `SetSettings` methods carry. Every key is optional in the
/// file (a missing one is its default); each is read by one entry of `AgentSettings.keys`, so
/// the file, a change sent over the bus and the CLI's `key=value` are judged by one rule.
package struct AgentSettings: Equatable, Sendable {
    /// Unmute or raise a muted or nearly silent default sink while an alarm rings (and restore it after).
    package var unmuteMutedSink = true
    /// Wake the machine from suspend for alarms (through the wake helper, when installed).
    package var wakeFromSuspend = true
    /// Seconds before an alarm that the machine wakes (`wakeLeadRange`).
    package var wakeLead: Double = 60
    /// Show running alarms in the panel (a StatusNotifierItem) while they ring, count down or are paused.
    package var panelItem = true
    /// When the alert window opens.
    package var alertWindow = AlertWindowSetting.auto
    /// Where alarms ring.
    package var ringOn = RingOn.defaultOutput
    /// Pause the other media players that play while an alarm rings, and play them again after.
    package var pauseMediaPlayers = true
    /// The sound of the person's new alarms made without one: a sound's name (or a sound
    /// file's absolute path); `nil`, Reveille's own alarm sound.
    package var sound: String?
    /// How long Snooze waits on the person's new alarms made without a length of their own, in seconds.
    package var snooze: Double = 540
    /// How long the person's new alarms made without a limit of their own ring unanswered, in seconds.
    package var ringLimit: Double = RingOptions.defaultRingLimit
    /// How alarms without their own choice ring again when nobody answers (`RingOptions.repeatUnanswered`).
    package var repeatUnanswered = UnansweredRepeat.once
    /// Which alarms show a quiet notice ahead of their time, with Skip.
    package var upcomingNotice = UpcomingNotice.wakeUp
    /// How long ahead the upcoming-alarm notice shows, in seconds (`upcomingLeadRange`).
    package var upcomingLead: Double = 1800

    package init() {}

    package static let wakeLeadRange: ClosedRange<Double> = 0...3600
    package static let snoozeRange: ClosedRange<Double> = WireLimits.minimumSnooze...WireLimits.maximumSnooze
    package static let ringLimitRange: ClosedRange<Double> = WireLimits.shortestRingLimit...WireLimits.longestRingLimit

    /// What these settings give the person's new alarms that do not say.
    package var newAlarmDefaults: NewAlarmDefaults {
        NewAlarmDefaults(sound: sound, snooze: snooze, ringLimit: ringLimit)
    }

    /// `text` as the `sound` setting: `default` (Reveille's own, `nil`), a sound's name, or an
    /// absolute path; `.none` for what cannot be one (empty, too long, control or format
    /// characters, a relative path).
    package static func soundSetting(_ text: String) -> String?? {
        if text == "default" { return .some(nil) }
        guard !text.isEmpty, text.utf8.count <= WireLimits.soundNameBytes, !text.hasSuffix("/"),
              !text.contains("/") || text.hasPrefix("/"),
              !text.unicodeScalars.contains(where: { [.control, .format, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory) })
        else { return .none }
        return .some(text)
    }
    package static let upcomingLeadRange: ClosedRange<Double> = 60...43_200

    /// Which alarms show a notice ahead of their time (Android's "upcoming alarm"), so a person
    /// already up can skip the ring: none, wake-up alarms (those that wake the computer, the
    /// default for every alarm), or every alarm. Never timers.
    package enum UpcomingNotice: String, CaseIterable, Sendable {
        case off, wakeUp, all
    }

    /// The longest settings text read (a file, or a change sent over the bus): the whole set
    /// written out is a few hundred bytes.
    package static let maximumTextBytes = 16 * 1024
}

/// When the alert window opens (`alertWindow`).
package enum AlertWindowSetting: String, Codable, Sendable, CaseIterable {
    /// While an alarm rings and its notification cannot be both seen and answered.
    case auto
    /// While any alarm rings.
    case always
    /// Never.
    case never
}

/// Where alarms ring (`ringOn`): the default output as the desktop sets it, every output the
/// sound server has (one stream each, started and stopped together), or one output by its sink
/// name, falling back to the default while it is not there.
package enum RingOn: Equatable, Sendable {
    case defaultOutput
    case all
    case output(String)

    /// The longest sink name accepted (PulseAudio's names are far shorter).
    package static let maximumNameBytes = 255

    /// `text` as a setting: `default`, `all` or an output's name; `nil` for what cannot be a
    /// sink's name (empty, too long, spaces, control or format characters such as bidi overrides).
    package init?(text: String) {
        switch text {
        case "default": self = .defaultOutput
        case "all": self = .all
        default:
            guard !text.isEmpty, text.utf8.count <= Self.maximumNameBytes,
                  !text.unicodeScalars.contains(where: { [.control, .format, .spaceSeparator, .lineSeparator, .paragraphSeparator].contains($0.properties.generalCategory) })
            else { return nil }
            self = .output(text)
        }
    }

    package var text: String {
        switch self {
        case .defaultOutput: "default"
        case .all: "all"
        case .output(let name): name
        }
    }

    /// The sinks an alarm rings on, given the sinks the server has now (`nil`: the default
    /// sink), and the named output when it is not there (the alarm then rings on the default).
    package func sinks(among available: [String]) -> (sinks: [String?], missing: String?) {
        switch self {
        case .defaultOutput: return ([nil], nil)
        // Before the server has listed its sinks, the default still rings.
        case .all: return (available.isEmpty ? [nil] : available, nil)
        case .output(let name): return available.contains(name) ? ([name], nil) : ([nil], name)
        }
    }
}

extension RingOn: Codable {
    package init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let ringOn = RingOn(text: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "ringOn is \"\(text.prefix(80))\"; accepted: " + AgentSettings.key("ringOn")!.accepted)
        }
        self = ringOn
    }

    package func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

extension AgentSettings {
    /// One setting: its name (the file's key), what it accepts in words, and how it is read from
    /// and written to JSON.
    package struct Key: Sendable {
        package let name: String
        /// What is accepted, as refusals and `reveille settings` say it.
        package let accepted: String
        /// Sets the key from a JSON value, or says why not (in `accepted`'s terms).
        fileprivate let read: @Sendable (JSONValue, inout AgentSettings) -> Bool
        /// The key's value in `settings`.
        package let value: @Sendable (AgentSettings) -> JSONValue
        /// The value typed at a command line (`wakeLead=90`, `panelItem=off`), as JSON.
        fileprivate let typed: @Sendable (String) -> JSONValue
    }

    /// Every setting, in the order they are listed and written.
    package static let keys: [Key] = [
        boolean("unmuteMutedSink", \.unmuteMutedSink),
        boolean("wakeFromSuspend", \.wakeFromSuspend),
        seconds("wakeLead", wakeLeadRange, \.wakeLead),
        boolean("panelItem", \.panelItem),
        word("alertWindow", accepted: AlertWindowSetting.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "), \.alertWindow,
             read: AlertWindowSetting.init(rawValue:), text: \.rawValue),
        word("ringOn", accepted: "\"default\", \"all\", or an output's name as `reveille sounds --outputs` lists it", \.ringOn,
             read: RingOn.init(text:), text: \.text),
        boolean("pauseMediaPlayers", \.pauseMediaPlayers),
        Key(name: "sound", accepted: "\"default\" (Reveille's alarm), a sound's name as `reveille sounds` lists it, or a sound file's absolute path",
            read: { value, settings in
                guard case .string(let text) = value, let sound = soundSetting(text) else { return false }
                settings.sound = sound
                return true
            },
            value: { .string($0.sound ?? "default") },
            typed: { .string($0) }),
        seconds("snooze", snoozeRange, \.snooze),
        seconds("ringLimit", ringLimitRange, \.ringLimit),
        word("repeatUnanswered", accepted: InputParser.unansweredRepeatForms, \.repeatUnanswered,
             read: InputParser.unansweredRepeat, text: \.text),
        word("upcomingNotice", accepted: UpcomingNotice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "), \.upcomingNotice,
             read: UpcomingNotice.init(rawValue:), text: \.rawValue),
        seconds("upcomingLead", upcomingLeadRange, \.upcomingLead),
    ]

    /// The setting named `name`.
    package static func key(_ name: String) -> Key? { keys.first { $0.name == name } }

    /// A length in seconds within `range`; typed as seconds or as the CLI reads a length (2m, 90s).
    private static func seconds(_ name: String, _ range: ClosedRange<Double>, _ path: WritableKeyPath<AgentSettings, Double> & Sendable) -> Key {
        Key(name: name, accepted: "seconds, \(number(range.lowerBound)) to \(number(range.upperBound))",
            read: { value, settings in
                guard case .number(let text) = value, let seconds = Double(text), seconds.isFinite, range.contains(seconds) else { return false }
                settings[keyPath: path] = seconds
                return true
            },
            value: { .number(number($0[keyPath: path])) },
            typed: { text in
                // Written as a number reads (nan, 0x10 and +5 are no JSON): out of range, it is refused as one.
                if let seconds = Double(text) { return seconds.isFinite ? .number(number(seconds)) : .string(text) }
                return (try? InputParser.duration(text)).map { .number(number($0)) } ?? .string(text)
            })
    }

    private static func boolean(_ name: String, _ path: WritableKeyPath<AgentSettings, Bool> & Sendable) -> Key {
        Key(name: name, accepted: "true or false",
            read: { value, settings in
                guard case .bool(let on) = value else { return false }
                settings[keyPath: path] = on
                return true
            },
            value: { .bool($0[keyPath: path]) },
            typed: { text in
                switch text.lowercased() {
                case "true", "on", "yes": .bool(true)
                case "false", "off", "no": .bool(false)
                default: .string(text)
                }
            })
    }

    /// A setting that is one of some words (a JSON string), typed as the word.
    private static func word<Value: Sendable>(_ name: String, accepted: String, _ path: WritableKeyPath<AgentSettings, Value> & Sendable,
                                              read: @escaping @Sendable (String) -> Value?, text: @escaping @Sendable (Value) -> String) -> Key {
        Key(name: name, accepted: accepted,
            read: { value, settings in
                guard case .string(let word) = value, let read = read(word) else { return false }
                settings[keyPath: path] = read
                return true
            },
            value: { .string(text($0[keyPath: path])) },
            typed: { .string($0) })
    }

    /// A whole number without a fraction (`60`, not `60.0`), as a person writes it.
    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    // MARK: Reading

    /// The settings a file's text holds: every key it names replaces the default. A key that
    /// is no setting is passed over (a newer Reveille's), unless it is a slip of one
    /// (`wakelead`). Throws `invalidConfiguration` naming the first key that is wrong and what
    /// it accepts.
    package init(fileText text: String) throws(AlarmError) {
        self = try AgentSettings().changed(by: text, place: "settings.json", unknownKeys: .passOver)
    }

    /// What a key that is no setting does: refused (a change someone asks for now), or passed
    /// over unless it is a slip of a setting (a file a newer Reveille may have written).
    package enum UnknownKeys: Sendable { case refuse, passOver }

    /// These settings with the keys of `text` (a JSON object, some keys or all) changed;
    /// the others as they are. Throws `invalidConfiguration` naming what was wrong and what is
    /// accepted: a key that is not a setting, a value of the wrong kind or range, a key given
    /// twice, text that is not an object. Nothing is changed unless all of it is right.
    package func changed(by text: String, place: String = "settings", unknownKeys: UnknownKeys = .refuse) throws(AlarmError) -> AgentSettings {
        guard text.utf8.count <= Self.maximumTextBytes else {
            throw .invalidConfiguration("\(place) is \(text.utf8.count) bytes; at most \(Self.maximumTextBytes) are accepted")
        }
        let value: JSONValue
        do { value = try StrictJSON.parse(text) } catch { throw .invalidConfiguration("\(place): \(error)") }
        return try changed(by: value, place: place, unknownKeys: unknownKeys)
    }

    /// These settings with the keys of `value` (a JSON object, read already) changed, as
    /// `changed(by:)` with text.
    package func changed(by value: JSONValue, place: String = "settings", unknownKeys: UnknownKeys = .refuse) throws(AlarmError) -> AgentSettings {
        guard case .object(let members) = value else {
            throw .invalidConfiguration("\(place) must be a JSON object of settings, such as {\"wakeLead\": 90}")
        }
        var settings = self
        for member in members {
            guard let key = Self.key(member.key) else {
                let names = Self.keys.map(\.name)
                let slip = StrictJSON.slip(member.key, of: names)
                if unknownKeys == .passOver && slip == nil { continue }
                let meant = slip.map { "did you mean '\($0)'? " } ?? ""
                throw .invalidConfiguration("\(place): '\(member.key.prefix(40))' is not a setting; \(meant)the settings are \(names.joined(separator: ", "))")
            }
            guard key.read(member.value, &settings) else {
                throw .invalidConfiguration("\(place): \(key.name) is \(member.value.text.prefix(80)); accepted: \(key.accepted)")
            }
        }
        return settings
    }

    /// Changes typed as `key=value` words (`wakeLead=90`, `ringOn=all`, `panelItem=off`), as the
    /// JSON object `changed(by:)` reads. Throws naming a word that is not `key=value`.
    package static func changes(typed words: [String]) throws(AlarmError) -> String {
        var members: [JSONValue.Member] = []
        for word in words {
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                throw .invalidConfiguration("'\(word.prefix(80))' is not key=value; for example wakeLead=90 (the settings are \(keys.map(\.name).joined(separator: ", ")))")
            }
            let name = String(word[..<equals]), text = String(word[word.index(after: equals)...])
            members.append(.init(key: name, value: key(name)?.typed(text) ?? .string(text)))
        }
        return JSONValue.object(members).text
    }

    // MARK: Writing

    /// Every setting as one JSON object, in `keys`' order: what `Settings` answers.
    package var json: String {
        JSONValue.object(Self.keys.map { .init(key: $0.name, value: $0.value(self)) }).text
    }

    /// Every setting as the file holds it: one key a line, for a person who opens it, and after
    /// them `others` (keys a newer Reveille wrote), as they were.
    package func fileText(keeping others: [JSONValue.Member] = []) -> String {
        let members = Self.keys.map { JSONValue.Member(key: $0.name, value: $0.value(self)) } + others
        return "{\n" + members.map { "  " + JSONValue.string($0.key).text + ": " + $0.value.text }.joined(separator: ",\n") + "\n}\n"
    }
}
