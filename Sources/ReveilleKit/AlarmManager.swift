@_exported import FoundationEssentials
internal import ReveilleBus
public import ReveilleModel
internal import ReveilleRules
internal import ReveilleTimeZone
import Synchronization

/// The entry point of AlarmKit's API: schedule, list, observe and answer this app's alarms.
/// The alarms belong to reveille-agent and ring while the app is not running.
///
/// As in AlarmKit, `alarms`, `authorizationState` and the five operations are synchronous: each
/// waits for the client's asynchronous D-Bus call (a thin layer over it), safe on any thread (the
/// GLib loop's included), and starts the agent by D-Bus activation when none runs. Their `async`
/// forms, which wait without blocking a thread, are under `async` (`try await manager.async.stop(id:)`). The app's id and usage description (AlarmKit's
/// NSAlarmKitUsageDescription) are given to `configureShared` or the initializer, not an Info.plist.
public final class AlarmManager: Sendable {
    public typealias AuthorizationState = ReveilleModel.AuthorizationState
    public typealias AlarmError = ReveilleModel.AlarmError

    private static let sharedManager = Mutex<AlarmManager?>(nil)

    /// The manager for this process's app: as set by `configureShared`, else from the
    /// environment: `REVEILLE_APP_ID`, else the id of the desktop entry the app was launched
    /// from, else the executable's name (as AlarmKit names an app by its bundle); and
    /// `REVEILLE_USAGE_DESCRIPTION`. Without a usage description it cannot ask for alarms, as
    /// an iOS app without `NSAlarmKitUsageDescription` cannot: its first request says so.
    public static var shared: AlarmManager {
        sharedManager.withLock { manager in
            if let manager { return manager }
            let environment = ProcessInfo.processInfo.environment
            let created = AlarmManager(appID: defaultAppID(environment: environment, executable: ProcessInfo.processInfo.processName),
                                       usageDescription: environment["REVEILLE_USAGE_DESCRIPTION"])
            manager = created
            return created
        }
    }

    /// `REVEILLE_APP_ID`, else the desktop entry's id GLib's launchers pass in
    /// `GIO_LAUNCHED_DESKTOP_FILE` (`/usr/share/applications/org.example.Cook.desktop` is
    /// `org.example.Cook`), else `executable`.
    static func defaultAppID(environment: [String: String], executable: String) -> String {
        if let declared = environment["REVEILLE_APP_ID"], !declared.isEmpty { return declared }
        if let entry = environment["GIO_LAUNCHED_DESKTOP_FILE"], entry.hasSuffix(".desktop"),
           let name = entry.split(separator: "/").last?.dropLast(".desktop".count), !name.isEmpty {
            return String(name)
        }
        return executable
    }

    /// Sets who `shared` speaks for; call it before the first use of `shared`.
    public static func configureShared(appID: String, usageDescription: String) {
        sharedManager.withLock { $0 = AlarmManager(appID: appID, usageDescription: usageDescription) }
    }

    private let client: AgentClient

    /// A manager for `appID`; `usageDescription` is what the user is shown when asked.
    /// `busAddress` picks a bus other than the session bus.
    public init(appID: String, usageDescription: String?, busAddress: String? = nil) {
        client = AgentClient(appID: appID, usageDescription: usageDescription, busAddress: busAddress)
    }

    /// An app asks for alarms only with a reason to show the user (AlarmKit's
    /// `NSAlarmKitUsageDescription`): without one, the first request fails saying how to give it,
    /// instead of an undecided state no prompt will ever change.
    private func requireUsageDescription() throws(AlarmError) {
        guard client.usageDescription?.trimmed().isEmpty == false else {
            throw .notAuthorized("\(client.appID) has no usage description, so it cannot ask to schedule alarms (AlarmKit's "
                + "NSAlarmKitUsageDescription): call AlarmManager.configureShared(appID:usageDescription:) before using "
                + "AlarmManager.shared, pass usageDescription: to AlarmManager(appID:usageDescription:), or set REVEILLE_USAGE_DESCRIPTION")
        }
    }

    // MARK: Authorization

    /// Asks the user once whether this app may schedule alarms; later calls return the decision.
    public func requestAuthorization() async throws -> AuthorizationState {
        try requireUsageDescription()
        return try await client.requestAuthorization()
    }

    /// This app's current decision; `.notDetermined` when the agent cannot be reached (asking
    /// then says why).
    public var authorizationState: AuthorizationState {
        (try? client.authorizationState()) ?? .notDetermined
    }

    /// This app's decision now, then at every change.
    public var authorizationUpdates: AlarmAuthorizationStateUpdates {
        AlarmAuthorizationStateUpdates(base: client.authorizationUpdates())
    }

    // MARK: Scheduling

    /// What to schedule: AlarmKit's `AlarmManager.AlarmConfiguration`, plus how it rings (`ring`).
    public struct AlarmConfiguration<Metadata: AlarmMetadata>: Sendable {
        public var countdownDuration: Alarm.CountdownDuration?
        public var schedule: Alarm.Schedule?
        public var attributes: AlarmAttributes<Metadata>
        public var sound: AlertConfiguration.AlertSound
        /// Runs when the alert's Stop button is pressed.
        public var stopIntent: AlarmIntent?
        /// Runs when the secondary button is pressed (with `.custom` behaviour, instead of a countdown).
        public var secondaryIntent: AlarmIntent?
        /// Reveille's addition: volume, fade-in and how long an unanswered alert rings.
        public var ring = RingOptions()
        /// The app's entity the alarm belongs to (iOS 27). Kept here and never sent: Linux has no
        /// App Intents to pass it to, so the agent neither stores nor shows it, and the request on
        /// the wire is the same with it as without.
        public var appEntityIdentifier: EntityIdentifier?

        /// A configuration; `appEntityIdentifier` is iOS 27's (see the property).
        public init(countdownDuration: Alarm.CountdownDuration? = nil, schedule: Alarm.Schedule? = nil,
                    attributes: AlarmAttributes<Metadata>, appEntityIdentifier: EntityIdentifier? = nil,
                    stopIntent: AlarmIntent? = nil, secondaryIntent: AlarmIntent? = nil,
                    sound: AlertConfiguration.AlertSound = .default) {
            self.countdownDuration = countdownDuration
            self.schedule = schedule
            self.attributes = attributes
            self.appEntityIdentifier = appEntityIdentifier
            self.stopIntent = stopIntent
            self.secondaryIntent = secondaryIntent
            self.sound = sound
        }

        /// An alarm that alerts on `schedule` (at once when `nil`).
        public static func alarm(schedule: Alarm.Schedule? = nil, attributes: AlarmAttributes<Metadata>,
                                 stopIntent: AlarmIntent? = nil, secondaryIntent: AlarmIntent? = nil,
                                 sound: AlertConfiguration.AlertSound = .default) -> Self {
            Self(schedule: schedule, attributes: attributes, stopIntent: stopIntent, secondaryIntent: secondaryIntent,
                 sound: sound)
        }

        /// A timer that alerts `duration` seconds from now; its Repeat (a secondary button with
        /// `.countdown` behaviour) runs it again for the same duration.
        public static func timer(duration: TimeInterval, attributes: AlarmAttributes<Metadata>,
                                 appEntityIdentifier: EntityIdentifier? = nil, stopIntent: AlarmIntent? = nil,
                                 secondaryIntent: AlarmIntent? = nil, sound: AlertConfiguration.AlertSound = .default) -> Self {
            Self(countdownDuration: .init(preAlert: duration, postAlert: duration), attributes: attributes,
                 appEntityIdentifier: appEntityIdentifier, stopIntent: stopIntent, secondaryIntent: secondaryIntent, sound: sound)
        }

        /// The same configuration ringing at `volume` (0 to 1), rising over `fadeIn` seconds, for
        /// at most `ringLimit` seconds unanswered (Reveille's addition).
        public func ringing(volume: Double? = nil, fadeIn: TimeInterval? = nil, ringLimit: TimeInterval? = nil) -> Self {
            var copy = self
            copy.ring = RingOptions(volume: volume, fadeIn: fadeIn, ringLimit: ringLimit, repeatUnanswered: ring.repeatUnanswered)
            return copy
        }

        /// The same configuration, which when nobody answers it rests `rest` seconds and rings
        /// again, `rings` times in all (1: once, whatever the person's setting), then is missed
        /// (Reveille's addition; the person's `repeatUnanswered` setting when not set).
        public func repeatingUnanswered(rings: Int, rest: TimeInterval = UnansweredRepeat.defaultRest) -> Self {
            var copy = self
            copy.ring.repeatUnanswered = UnansweredRepeat(rings: rings, rest: rest)
            return copy
        }

        func request() throws -> AlarmRequest {
            let metadata = try attributes.metadata.map { String(decoding: try JSONCoding.compactEncoder.encode($0), as: UTF8.self) }
            return AlarmRequest(schedule: schedule, countdownDuration: countdownDuration, presentation: attributes.presentation,
                                metadata: metadata, tintColor: attributes.tintColor, sound: sound, ring: ring,
                                stopIntent: stopIntent, secondaryIntent: secondaryIntent)
        }
    }

    /// Schedules an alarm; throws `AlarmError` with the agent's reason when it is refused. An
    /// app the user has not decided on is asked first, and the call waits for the answer.
    @discardableResult
    public func schedule<Metadata>(id: Alarm.ID, configuration: AlarmConfiguration<Metadata>) async throws -> Alarm {
        try requireUsageDescription()
        let request = try configuration.request()
        return try await client.schedule(id: id, request: request).alarm
    }

    // MARK: The alarms (synchronous, as in AlarmKit)

    /// This app's alarms (the agent shows an app nothing else).
    public var alarms: [Alarm] {
        get throws { try client.list().map(\.alarm) }
    }

    /// Removes the alarm whatever its state.
    public func cancel(id: Alarm.ID) throws { try client.apply(.cancel, to: id.uuidString) }
    /// Stops an alerting alarm: a one-time alarm ends, a repeating one moves to its next occurrence.
    public func stop(id: Alarm.ID) throws { try client.apply(.stop, to: id.uuidString) }
    /// Starts the post-alert countdown of an alerting alarm (snooze / repeat).
    public func countdown(id: Alarm.ID) throws { try client.apply(.countdown, to: id.uuidString) }
    /// Pauses a running countdown.
    public func pause(id: Alarm.ID) throws { try client.apply(.pause, to: id.uuidString) }
    /// Resumes a paused countdown.
    public func resume(id: Alarm.ID) throws { try client.apply(.resume, to: id.uuidString) }

    /// This app's alarms now, then after every change; an alarm missing from a list is no longer scheduled.
    public var alarmUpdates: AlarmUpdates { AlarmUpdates(base: client.updates()) }

    // MARK: Reveille's additions

    /// Snoozes an alerting alarm for `duration` (1 s to 24 hours) instead of its
    /// `postAlert` length: a Reveille extension, not AlarmKit API (AlarmKit's `countdown(id:)`
    /// always uses the configured length).
    public func snooze(id: Alarm.ID, for duration: TimeInterval) throws { try client.snooze(id.uuidString, for: duration) }

    /// What each of this app's alarms presents now (nothing for merely scheduled ones).
    public var presentationStates: [AlarmPresentationState] {
        get throws { try client.list().compactMap { $0.presentationState(in: GLibTimeZone.local) } }
    }

    /// How the alarm `id` presents itself, as it was scheduled.
    public func presentation(of id: Alarm.ID) throws -> AlarmPresentation {
        try client.alarm(id.uuidString).presentation
    }

    /// This app's alarms with their metadata decoded as `Metadata` (`nil` where an alarm has
    /// none or it does not decode as that type).
    public func alarmMetadata<Metadata: AlarmMetadata>(_ type: Metadata.Type) throws -> [(alarm: Alarm, metadata: Metadata?)] {
        try Self.metadata(of: client.list(), as: type)
    }

    fileprivate static func metadata<Metadata: AlarmMetadata>(of records: [AlarmRecord], as type: Metadata.Type) -> [(alarm: Alarm, metadata: Metadata?)] {
        records.map { record in
            (record.alarm, record.metadata.flatMap { try? JSONCoding.decoder.decode(type, from: Data($0.utf8)) })
        }
    }

    /// Presses of this app's alarms' buttons, while the app runs: the alarm's id and which
    /// button it was. The intents run without the app.
    public var alarmActions: AsyncStream<(alarmID: Alarm.ID, button: AlarmButtonRole)> { client.actions() }

    /// This app's alarms beginning to alert, and occurrences missed, while the app runs.
    public var alarmEvents: AsyncStream<AlarmEvent> { client.events() }

    /// The same calls without blocking: `try await manager.async.stop(id:)`.
    public var async: Asynchronous { Asynchronous(client: client) }

    /// `AlarmManager`'s synchronous calls as `async` ones, for callers that would rather not block.
    public struct Asynchronous: Sendable {
        fileprivate let client: AgentClient

        public var alarms: [Alarm] {
            get async throws { try await client.list().map(\.alarm) }
        }

        public var authorizationState: AuthorizationState {
            get async throws { try await client.authorizationState() }
        }

        public var presentationStates: [AlarmPresentationState] {
            get async throws { try await client.list().compactMap { $0.presentationState(in: GLibTimeZone.local) } }
        }

        public func alarmMetadata<Metadata: AlarmMetadata>(_ type: Metadata.Type) async throws -> [(alarm: Alarm, metadata: Metadata?)] {
            AlarmManager.metadata(of: try await client.list(), as: type)
        }

        public func cancel(id: Alarm.ID) async throws { try await apply(.cancel, id) }
        public func stop(id: Alarm.ID) async throws { try await apply(.stop, id) }
        public func countdown(id: Alarm.ID) async throws { try await apply(.countdown, id) }
        public func pause(id: Alarm.ID) async throws { try await apply(.pause, id) }
        public func resume(id: Alarm.ID) async throws { try await apply(.resume, id) }
        /// `AlarmManager.snooze(id:for:)`, a Reveille extension.
        public func snooze(id: Alarm.ID, for duration: TimeInterval) async throws {
            _ = try await client.snooze(id.uuidString, for: duration)
        }

        private func apply(_ action: AlarmAction, _ id: Alarm.ID) async throws {
            _ = try await client.apply(action, to: id.uuidString)
        }
    }

    /// `alarmUpdates`: this app's alarms now, then after every change.
    public struct AlarmUpdates: AsyncSequence, Sendable {
        public typealias Element = [Alarm]
        fileprivate let base: AsyncThrowingStream<[AlarmRecord], any Error>

        public struct AsyncIterator: AsyncIteratorProtocol {
            fileprivate var base: AsyncThrowingStream<[AlarmRecord], any Error>.Iterator

            /// `nil` once the updates end: the agent refused the subscription (every slot of the
            /// app taken) or the bus went away. AlarmKit's sequence does not throw.
            public mutating func next() async -> [Alarm]? {
                (try? await base.next())??.map(\.alarm)
            }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator()) }
    }

    /// `authorizationUpdates`: this app's decision now, then at every change.
    public struct AlarmAuthorizationStateUpdates: AsyncSequence, Sendable {
        public typealias Element = AuthorizationState
        fileprivate let base: AsyncStream<AuthorizationState>

        public struct AsyncIterator: AsyncIteratorProtocol {
            fileprivate var base: AsyncStream<AuthorizationState>.Iterator

            public mutating func next() async -> AuthorizationState? { await base.next() }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator()) }
    }
}
