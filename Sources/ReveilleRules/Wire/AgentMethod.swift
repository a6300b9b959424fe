import FoundationEssentials
import ReveilleModel

/// One method of the agent's interface (`AgentInterface`), whole: its name and arguments with
/// their bounds, its reply, how it is read into an `AgentCall` and written back, and what the
/// agent's gate and service need to know of it. `table` holds every method; the name list, the
/// decoder, the client's encoder and the introspection XML are read from it, and the service
/// answers each `AgentCall` case in one switch. A new method is one entry here, its case in
/// `AgentCall` and its answer in the service.
package struct AgentMethod: Sendable {
    /// An argument the caller sends, with what it may be.
    package struct Parameter: Sendable, Equatable {
        package enum Kind: Sendable, Equatable {
            /// `s`, at most `bytes` of UTF-8.
            case string(bytes: Int)
            /// `u`, a count from 0 to `upTo` (0 or more: `upTo`).
            case count(upTo: Int)
            /// `d`.
            case number
            /// `a{sv}`, the reserved options: empty, or entries passed over.
            case options
        }

        package let name: String
        package let kind: Kind

        package init(_ name: String, _ kind: Kind) {
            self.name = name
            self.kind = kind
        }

        /// Its D-Bus type.
        package var type: String {
            switch kind {
            case .string: "s"
            case .count: "u"
            case .number: "d"
            case .options: "a{sv}"
            }
        }
    }

    package let name: String
    package let parameters: [Parameter]
    /// What the reply carries.
    package let results: [BusMethod.Argument]
    package let comment: String?
    /// Whether the call answers a ringing alarm: the gate never holds it behind what other
    /// clients used (`ExportGate.export(answering:)`).
    package let answersAlarm: Bool
    /// For the user's own tools only: what an app is told it may not do ("only the user's own
    /// tools may …"); `nil`: every caller, each with its own view.
    package let userOnly: String?
    /// Whether the call may wait for the user's answer (a prompt), so a client gives it no timeout.
    package let waitsForUser: Bool
    /// Reads the call from its arguments in order (`Reader`); throws `AlarmRuleError`.
    let decode: @Sendable (inout Reader) throws -> AgentCall
    /// The arguments of `call` when it is this method's; `nil` for another method's call.
    let encode: @Sendable (AgentCall) -> [AgentCall.Argument]?

    init(_ name: String, in parameters: [Parameter] = [], out results: [BusMethod.Argument] = [], comment: String? = nil,
         answersAlarm: Bool = false, userOnly: String? = nil, waitsForUser: Bool = false,
         decode: @escaping @Sendable (inout Reader) throws -> AgentCall,
         encode: @escaping @Sendable (AgentCall) -> [AgentCall.Argument]?) {
        self.name = name
        self.parameters = parameters
        self.results = results
        self.comment = comment
        self.answersAlarm = answersAlarm
        self.userOnly = userOnly
        self.waitsForUser = waitsForUser
        self.decode = decode
        self.encode = encode
    }

    /// The method as introspection declares it.
    package var busMethod: BusMethod {
        BusMethod(name, in: parameters.map { BusMethod.Argument($0.name, $0.type) }, out: results, comment: comment)
    }

    /// The method named `name`, if the agent has one.
    package static func named(_ name: String) -> AgentMethod? { table.first { $0.name == name } }

    /// The methods whose calls answer a ringing alarm, for the gate.
    package static let answeringAlarms = Set(table.filter(\.answersAlarm).map(\.name))

    /// Reads a call's arguments in the order its method declares them, each checked against
    /// its declared type and bound; the refusals name the argument and what is accepted.
    package struct Reader {
        let method: String
        let parameters: [Parameter]
        let arguments: [AgentCall.Argument]
        private(set) var position = 0

        init(method: AgentMethod, arguments: [AgentCall.Argument]) {
            self.method = method.name
            parameters = method.parameters
            self.arguments = arguments
        }

        var isAtEnd: Bool { position == arguments.count }

        private func refusal(_ reason: String) -> AlarmRuleError { .alarmKit(.invalidConfiguration(reason)) }

        /// The next declared parameter and what was sent for it.
        private mutating func next() throws(AlarmRuleError) -> (Parameter, AgentCall.Argument) {
            // Reading past the declaration is the table's slip, not the caller's (a test reads every entry).
            guard position < parameters.count else { throw refusal("\(method) declares \(parameters.count) arguments; its decoder reads more") }
            let parameter = parameters[position]
            guard position < arguments.count else { throw refusal("\(method) needs its argument \(parameter.name)") }
            defer { position += 1 }
            return (parameter, arguments[position])
        }

        private func undeclared(_ parameter: Parameter, _ read: String) -> AlarmRuleError {
            refusal("\(method)'s argument \(parameter.name) is declared \(parameter.type); its decoder reads \(read)")
        }

        mutating func string() throws(AlarmRuleError) -> String {
            let (parameter, argument) = try next()
            guard case .string(let bytes) = parameter.kind else { throw undeclared(parameter, "a string") }
            guard case .string(let text) = argument else {
                throw refusal("\(method)'s argument \(parameter.name) must be a string")
            }
            guard text.utf8.count <= bytes else {
                throw refusal("\(method)'s argument \(parameter.name) is \(text.utf8.count) bytes; at most \(bytes) are accepted")
            }
            return text
        }

        mutating func number() throws(AlarmRuleError) -> Double {
            let (parameter, argument) = try next()
            guard case .number = parameter.kind else { throw undeclared(parameter, "a number") }
            guard case .number(let value) = argument else { throw refusal("\(method)'s argument \(parameter.name) must be a number") }
            return value
        }

        mutating func count() throws(AlarmRuleError) -> Int {
            let (parameter, argument) = try next()
            guard case .count(let maximum) = parameter.kind else { throw undeclared(parameter, "a count") }
            guard case .count(let value) = argument else {
                throw refusal("\(method)'s argument \(parameter.name) must be a count (u): 0 for as many as fit, or at most \(maximum)")
            }
            return value == 0 || Int(value) > maximum ? maximum : Int(value)
        }

        mutating func options() throws(AlarmRuleError) {
            let (parameter, argument) = try next()
            guard case .options = parameter.kind else { throw undeclared(parameter, "the options") }
            guard case .dictionary = argument else {
                throw refusal("\(method)'s argument \(parameter.name) must be a dictionary (a{sv}); pass {}")
            }
        }

        /// How long a preview plays (`WireLimits.previewSeconds`).
        mutating func previewSeconds() throws(AlarmRuleError) -> Double {
            let seconds = try number()
            guard seconds.isFinite, WireLimits.previewSeconds.contains(seconds) else {
                throw refusal("seconds is \(seconds); accepted: \(WireLimits.previewSeconds.lowerBound) to \(Int(WireLimits.previewSeconds.upperBound))")
            }
            return seconds
        }

        /// An argument's text, refused as `reason` says when it is not one of what is accepted.
        func invalid(_ reason: String) -> AlarmRuleError { refusal(reason) }
    }
}

extension AgentMethod.Parameter {
    fileprivate static let id = Self("id", .string(bytes: WireLimits.shortStringBytes))
    fileprivate static let configuration = Self("configuration", .string(bytes: WireLimits.configurationBytes))
    fileprivate static let options = Self("options", .options)
    fileprivate static let after = Self("after", .string(bytes: WireLimits.shortStringBytes))
    fileprivate static let limit = Self("limit", .count(upTo: WireLimits.pageAlarms))
    fileprivate static let seconds = Self("seconds", .number)
    fileprivate static func short(_ name: String) -> Self { Self(name, .string(bytes: WireLimits.shortStringBytes)) }
}

extension BusMethod.Argument {
    fileprivate static let alarm = Self("alarm", "s")
    fileprivate static let alarms = Self("alarms", "s")
}

extension AgentMethod {
    /// An action on one alarm by its id (`AlarmAction`): the five of AlarmKit's manager.
    private static func action(_ name: String, _ action: AlarmAction, comment: String? = nil, answersAlarm: Bool = false) -> AgentMethod {
        AgentMethod(name, in: [.id], out: [.alarm], comment: comment, answersAlarm: answersAlarm,
                    decode: { .apply(action, id: try $0.string()) },
                    encode: { if case .apply(action, let id) = $0 { [.string(id)] } else { nil } })
    }

    /// Every method of `AgentInterface.interface`, in the order the introspection XML lists them.
    package static let table: [AgentMethod] = [
        AgentMethod("Hello", in: [.short("app_id"), Parameter("usage_description", .string(bytes: WireLimits.usageDescriptionBytes))],
                    out: [.init("identity", "s")], comment: """
                        An app introduces itself: its id and why it wants alarms (AlarmKit's
                        NSAlarmKitUsageDescription). Returns the identity the agent established:
                        {appID, sandboxed, source}.
                        """,
                    decode: { .hello(appID: try $0.string(), usageDescription: try $0.string()) },
                    encode: { if case .hello(let appID, let why) = $0 { [.string(appID), .string(why)] } else { nil } }),
        AgentMethod("Subscribe", out: [.alarms], comment: """
                        Start receiving AlarmsUpdated, AlarmAlerting, AlarmMissed, ActionInvoked,
                        AuthorizationChanged (own view only) and, for the user's tools, SettingsChanged. Returns the alarms now; AlarmsUpdated then carries each
                        change to that list.
                        """,
                    decode: { _ in .subscribe }, encode: { $0 == .subscribe ? [] : nil }),
        AgentMethod("SubscribeUpdates", comment: """
                        Starts the signals, as Subscribe does, without returning the alarms: for a
                        client that reads them with ListPage.
                        """,
                    decode: { _ in .subscribeUpdates }, encode: { $0 == .subscribeUpdates ? [] : nil }),
        AgentMethod("Schedule", in: [.id, .configuration, .options], out: [.alarm], comment: """
                        Schedules an alarm. id: a UUID, or "" for a new one. configuration: an
                        AlarmRequest. options: reserved, pass {}. Returns the AlarmRecord. An app
                        not yet decided on is asked about first; the call waits for the answer.
                        A sound name that cannot be found is refused with the names that exist.
                        A relative schedule's repeats: "never", a list of weekdays (AlarmKit's), or
                        Reveille's extensions {"monthly": 1-31} (a shorter month: its last day),
                        {"yearly": {"month": 1-12, "day": D}} (February 29: the 28th in other years),
                        {"everyDays": 1-366, "from": "YYYY-MM-DD"}.
                        """,
                    waitsForUser: true,
                    decode: { reader in
                        let text = try reader.string()
                        let id: UUID
                        if text.isEmpty { id = UUID() } else {
                            guard let parsed = UUID(uuidString: text) else {
                                throw reader.invalid("id '\(text)' is not a UUID; give one like 123e4567-e89b-12d3-a456-426614174000, or \"\" for a new one")
                            }
                            id = parsed
                        }
                        let call = AgentCall.schedule(id: id, configuration: try reader.string())
                        try reader.options()
                        return call
                    },
                    encode: { if case .schedule(let id, let text) = $0 { [.string(id.uuidString), .string(text), .dictionary(count: 0)] } else { nil } }),
        action("Cancel", .cancel, comment: """
            Each returns the alarm after the change, or "null" when it has ended.
            """),
        action("Stop", .stop, answersAlarm: true),
        action("Countdown", .countdown, answersAlarm: true),
        action("Pause", .pause),
        action("Resume", .resume),
        AgentMethod("Get", in: [.id], out: [.alarm], comment: """
                        One alarm, as an AlarmRecord.
                        """,
                    decode: { .get(id: try $0.string()) },
                    encode: { if case .get(let id) = $0 { [.string(id)] } else { nil } }),
        AgentMethod("List", out: [.alarms], comment: """
                        All alarms, as a JSON array of AlarmRecord; refused (InvalidState) when they
                        would not fit one reply: read them with ListPage.
                        """,
                    decode: { _ in .list }, encode: { $0 == .list ? [] : nil }),
        AgentMethod("ListPage", in: [.after, .limit], out: [.alarms, .init("next", "s")], comment: """
                        A page of the caller's alarms: those whose id sorts after `after` ("" from the
                        start), at most `limit` (0: as many as fit) and at most 4 MiB of JSON, as a JSON
                        array of AlarmRecord sorted by id; `next` is the `after` of the next page, ""
                        after the last. Stable while alarms come and go: no alarm is skipped.
                        """,
                    decode: { .listPage(after: try $0.string(), limit: try $0.count()) },
                    encode: { if case .listPage(let after, let limit) = $0 { [.string(after), .count(UInt32(clamping: limit))] } else { nil } }),
        AgentMethod("ListPageAndWake", in: [.after, .limit], out: [.alarms, .init("next", "s"), .init("wake", "a{sv}")], comment: """
                        ListPage, with WakeStatus's answer in the same reply, typed: wakes (b), lead (d),
                        and where they apply reason (s), wakeAt (d, seconds since 1970), alarmID (s),
                        blocked (b), mechanism (s); {} for an app. What a list shows, in one round trip.
                        """,
                    decode: { .listPageAndWake(after: try $0.string(), limit: try $0.count()) },
                    encode: { if case .listPageAndWake(let after, let limit) = $0 { [.string(after), .count(UInt32(clamping: limit))] } else { nil } }),
        AgentMethod("ListSounds", out: [.init("sounds", "s")], comment: """
                        Every sound name the agent can resolve: a JSON array of {name, path, source}.
                        """,
                    decode: { _ in .listSounds }, encode: { $0 == .listSounds ? [] : nil }),
        AgentMethod("ListOutputs", out: [.init("outputs", "s")], comment: """
                        The sound outputs alarms can ring on (the ringOn setting): a JSON array of {name, description}; the user's tools only.
                        """,
                    userOnly: "list the sound outputs",
                    decode: { _ in .listOutputs }, encode: { $0 == .listOutputs ? [] : nil }),
        AgentMethod("PlaySound", in: [Parameter("sound", .string(bytes: WireLimits.soundNameBytes)), .seconds], out: [.init("path", "s")],
                    comment: """
                        Plays a sound (a name, or a path for the user's own CLI) for some seconds; returns its file.
                        """,
                    userOnly: "play sounds",
                    decode: { reader in
                        let name = try reader.string(), seconds = try reader.previewSeconds()
                        return .playSound(name: name, seconds: seconds)
                    },
                    encode: { if case .playSound(let name, let seconds) = $0 { [.string(name), .number(seconds)] } else { nil } }),
        AgentMethod("PreviewSound", in: [Parameter("sound", .string(bytes: WireLimits.soundNameBytes)), .seconds, Parameter("volume", .number)],
                    out: [.init("path", "s")], comment: """
                        PlaySound at a volume (the stream's linear volume, 0.001 to 1, as an alarm's ring volume), one
                        preview at a time: the one playing stops first. For a person choosing a sound.
                        """,
                    userOnly: "play sounds",
                    decode: { reader in
                        let name = try reader.string(), seconds = try reader.previewSeconds(), volume = try reader.number()
                        do throws(AlarmError) { try RingOptions(volume: volume).validate() } catch { throw AlarmRuleError.alarmKit(error) }
                        return .previewSound(name: name, seconds: seconds, volume: volume)
                    },
                    encode: { if case .previewSound(let name, let seconds, let volume) = $0 { [.string(name), .number(seconds), .number(volume)] } else { nil } }),
        AgentMethod("StopPreview", comment: """
                        Stops the sound PlaySound or PreviewSound plays (the dialog that chose it closed).
                        """,
                    userOnly: "stop a sound's preview",
                    decode: { _ in .stopPreview }, encode: { $0 == .stopPreview ? [] : nil }),
        AgentMethod("RequestAuthorization", out: [.init("state", "s")], comment: """
                        The caller's authorization: notDetermined, authorized or denied; asks the user
                        (and waits for the answer) when not yet decided.
                        """,
                    waitsForUser: true,
                    decode: { _ in .requestAuthorization }, encode: { $0 == .requestAuthorization ? [] : nil }),
        AgentMethod("AuthorizationState", out: [.init("state", "s")],
                    decode: { _ in .authorizationState }, encode: { $0 == .authorizationState ? [] : nil }),
        AgentMethod("Authorizations", out: [.init("apps", "s")], comment: """
                        The user's tools only: every app's decision, and changing one.
                        """,
                    userOnly: "list the apps' authorizations",
                    decode: { _ in .authorizations }, encode: { $0 == .authorizations ? [] : nil }),
        AgentMethod("SetAuthorization", in: [.short("app_id"), .short("state")], out: [.init("result", "s")],
                    userOnly: "change an app's authorization",
                    decode: { reader in
                        let appID = try reader.string(), name = try reader.string()
                        guard let state = AuthorizationState(rawValue: name) else {
                            throw reader.invalid("state '\(name)' is not one of authorized, denied, notDetermined")
                        }
                        return .setAuthorization(appID: appID, state: state)
                    },
                    encode: { if case .setAuthorization(let appID, let state) = $0 { [.string(appID), .string(state.rawValue)] } else { nil } }),
        AgentMethod("Update", in: [.id, .configuration, .options], out: [.alarm], comment: """
                        Gives an alarm (a unique id prefix) a new configuration (an AlarmRequest),
                        keeping its id: validated as Schedule validates. Returns the AlarmRecord.
                        """,
                    decode: { reader in
                        let call = AgentCall.update(id: try reader.string(), configuration: try reader.string())
                        try reader.options()
                        return call
                    },
                    encode: { if case .update(let id, let text) = $0 { [.string(id), .string(text), .dictionary(count: 0)] } else { nil } }),
        AgentMethod("Skip", in: [.id], out: [.alarm], comment: """
                        Skips the next occurrence of an alarm: a repeating one rings the time after, a
                        one-time one ends. Returns the AlarmRecord, or null when it ended.
                        """,
                    decode: { .skip(id: try $0.string()) },
                    encode: { if case .skip(let id) = $0 { [.string(id)] } else { nil } }),
        AgentMethod("Unskip", in: [.id], out: [.alarm], comment: """
                        Undoes Skip: the occurrence it passed over rings after all. Returns the AlarmRecord.
                        """,
                    decode: { .unskip(id: try $0.string()) },
                    encode: { if case .unskip(let id) = $0 { [.string(id)] } else { nil } }),
        AgentMethod("Disable", in: [.id], out: [.alarm], comment: """
                        Keeps an alarm waiting for its time but silences it until Enable ("disabled":
                        true in the record). Returns the AlarmRecord.
                        """,
                    decode: { .setEnabled(false, id: try $0.string()) },
                    encode: { if case .setEnabled(false, let id) = $0 { [.string(id)] } else { nil } }),
        AgentMethod("Enable", in: [.id], out: [.alarm], comment: """
                        Turns a disabled alarm on again at its next occurrence. Returns the AlarmRecord.
                        """,
                    decode: { .setEnabled(true, id: try $0.string()) },
                    encode: { if case .setEnabled(true, let id) = $0 { [.string(id)] } else { nil } }),
        AgentMethod("Restore", in: [Parameter("record", .string(bytes: WireLimits.recordBytes))], out: [.alarm], comment: """
                        Schedules an alarm again as it stood when it was cancelled (an Undo): record is
                        its AlarmRecord as Get or List gave it. It keeps its id (refused while one has
                        it) and its configuration (validated as Schedule validates), a snooze or a
                        paused countdown still ahead, a skip, and being disabled; what no longer holds
                        starts from its next occurrence. The alarm is the caller's. Returns the AlarmRecord.
                        """,
                    decode: { .restore(record: try $0.string()) },
                    encode: { if case .restore(let record) = $0 { [.string(record)] } else { nil } }),
        AgentMethod("Snooze", in: [.id, .seconds], out: [.alarm], comment: """
                        Reveille's extension of Countdown: snoozes a ringing alarm for `seconds` (more
                        than 0, at most 86400) instead of its own snooze length. Returns the AlarmRecord.
                        """,
                    answersAlarm: true,
                    decode: { reader in
                        let id = try reader.string(), seconds = try reader.number()
                        try AlarmRecord.checkSnoozeLength(seconds)
                        return .snooze(id: id, seconds: seconds)
                    },
                    encode: { if case .snooze(let id, let seconds) = $0 { [.string(id), .number(seconds)] } else { nil } }),
        AgentMethod("PressButton", in: [.id, .short("button")], out: [.alarm], comment: """
                        The person pressed one of an alarm's buttons (stop, secondary, pause, resume,
                        cancel) in the user's own alert UI: as on its notification, the button does
                        what it does, the app's intent runs and its subscribers hear ActionInvoked.
                        The user's tools only. Returns the AlarmRecord after ("null" once it ended).
                        """,
                    // The person's own press, in the user's alert UI: an app pressing buttons would run intents as the person.
                    answersAlarm: true, userOnly: "press an alarm's buttons",
                    decode: { reader in
                        let id = try reader.string(), name = try reader.string()
                        guard let button = AlarmButtonRole(rawValue: name) else {
                            throw reader.invalid("button '\(name.prefix(WireLimits.shortStringBytes))' is not one of \(AlarmButtonRole.allCases.map(\.rawValue).joined(separator: ", "))")
                        }
                        return .pressButton(id: id, button: button)
                    },
                    encode: { if case .pressButton(let id, let button) = $0 { [.string(id), .string(button.rawValue)] } else { nil } }),
        AgentMethod("WakeStatus", out: [.init("status", "s")], comment: """
                        Whether the next alarm will wake the machine from suspend, and why not: a
                        WakeStatus (wakes, reason, wakeAt, alarmID, lead). The user's tools only.
                        """,
                    // The next alarm's time is the user's, whichever app set it.
                    userOnly: "ask whether alarms wake the machine",
                    decode: { _ in .wakeStatus }, encode: { $0 == .wakeStatus ? [] : nil }),
        AgentMethod("History", out: [.init("entries", "s")], comment: """
                        The occurrences that ended, newest first, as a JSON array of {alarm, title, app,
                        due, rang, seconds, ended, outcome, by}: outcome is stopped, snoozed,
                        cancelled, changed, missedLate, missedUnanswered, unansweredRingsAgain
                        (rang unanswered, rings again after a rest) or skipped (before it rang). An app sees its own
                        alarms' entries; the reply holds the newest that fit in 4 MiB.
                        """,
                    decode: { _ in .history }, encode: { $0 == .history ? [] : nil }),
        AgentMethod("SyncAdd", in: [Parameter("url", .string(bytes: WireLimits.syncURLBytes)), .short("user"),
                                    Parameter("password", .string(bytes: WireLimits.passwordBytes))],
                    out: [.init("status", "s")], comment: """
                        Sync through a CalDAV calendar collection (the user's tools only): the
                        collection's URL (made when it is not there), the user and the password (kept in
                        the Secret Service, never in a file). Returns the SyncStatus.
                        """,
                    userOnly: "set up sync",
                    decode: { .syncAdd(url: try $0.string(), user: try $0.string(), password: try $0.string()) },
                    encode: { if case .syncAdd(let url, let user, let password) = $0 { [.string(url), .string(user), .string(password)] } else { nil } }),
        AgentMethod("SyncStatus", out: [.init("status", "s")], comment: """
                        Where sync stands: a SyncStatus (configured, url, user, rounds, lastRound,
                        problem, alarms, interval).
                        """,
                    userOnly: "ask about sync",
                    decode: { _ in .syncStatus }, encode: { $0 == .syncStatus ? [] : nil }),
        AgentMethod("SyncRemove", comment: """
                        Stops sync and forgets the account and its password; the alarms here and the
                        server's collection stay.
                        """,
                    userOnly: "stop sync",
                    decode: { _ in .syncRemove }, encode: { $0 == .syncRemove ? [] : nil }),
        AgentMethod("Settings", out: [.init("settings", "s")], comment: """
                        The agent's settings, every one (settings.json's keys), as a JSON object. The
                        user's tools only.
                        """,
                    userOnly: "read the agent's settings",
                    decode: { _ in .settings }, encode: { $0 == .settings ? [] : nil }),
        AgentMethod("SetSettings", in: [Parameter("changes", .string(bytes: AgentSettings.maximumTextBytes))], out: [.init("settings", "s")],
                    comment: """
                        Changes some settings: changes is a JSON object of the keys to change, such as
                        {"wakeLead": 90}. Nothing is changed unless every key and value is right (the
                        refusal names what was wrong and what is accepted). The agent writes
                        settings.json and applies them at once; returns every setting after. The
                        user's tools only.
                        """,
                    userOnly: "change the agent's settings",
                    decode: { .setSettings(changes: try $0.string()) },
                    encode: { if case .setSettings(let changes) = $0 { [.string(changes)] } else { nil } }),
    ]
}
