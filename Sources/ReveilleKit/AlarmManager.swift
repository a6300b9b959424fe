import FoundationEssentials
import ReveilleBus
import ReveilleTimeZone
import Synchronization

/// The entry point of AlarmKit's API: schedule, list, observe and answer this app's alarms.
/// The alarms belong to reveille-agent and ring while the app is not running.
///
/// Differences from AlarmKit: `alarms`, `authorizationState` and the operations are `async`,
/// since each is a D-Bus round trip to the agent; the app's id and usage description (AlarmKit's
/// NSAlarmKitUsageDescription) are given to `configureShared` or the initializer, not an Info.plist.
public final class AlarmManager: Sendable {
    public typealias AuthorizationState = ReveilleCore.AuthorizationState

    private static let sharedManager = Mutex<AlarmManager?>(nil)

    /// The manager for this process's app: as set by `configureShared`, else from the
    /// environment (`REVEILLE_APP_ID`, default the executable's name; `REVEILLE_USAGE_DESCRIPTION`).
    public static var shared: AlarmManager {
        sharedManager.withLock { manager in
            if let manager { return manager }
            let environment = ProcessInfo.processInfo.environment
            let created = AlarmManager(appID: environment["REVEILLE_APP_ID"] ?? ProcessInfo.processInfo.processName,
                                       usageDescription: environment["REVEILLE_USAGE_DESCRIPTION"])
            manager = created
            return created
        }
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

    /// Asks the user once whether this app may schedule alarms; later calls return the decision.
    public func requestAuthorization() async throws -> AuthorizationState {
        try await client.requestAuthorization()
    }

    /// This app's current decision.
    public var authorizationState: AuthorizationState {
        get async throws { try await client.authorizationState() }
    }

    /// This app's decision now, then at every change.
    public var authorizationUpdates: AsyncStream<AuthorizationState> { client.authorizationUpdates() }

    /// What to schedule: AlarmKit's `AlarmManager.AlarmConfiguration`.
    public struct AlarmConfiguration<Metadata: AlarmMetadata>: Sendable {
        public var countdownDuration: Alarm.CountdownDuration?
        public var schedule: Alarm.Schedule?
        public var attributes: AlarmAttributes<Metadata>
        public var sound: AlertConfiguration.AlertSound
        /// Runs when the alert's Stop button is pressed.
        public var stopIntent: AlarmIntent?
        /// Runs when the secondary button is pressed (with `.custom` behaviour, instead of a countdown).
        public var secondaryIntent: AlarmIntent?

        public init(countdownDuration: Alarm.CountdownDuration? = nil, schedule: Alarm.Schedule? = nil,
                    attributes: AlarmAttributes<Metadata>, stopIntent: AlarmIntent? = nil,
                    secondaryIntent: AlarmIntent? = nil, sound: AlertConfiguration.AlertSound = .default) {
            self.countdownDuration = countdownDuration
            self.schedule = schedule
            self.attributes = attributes
            self.stopIntent = stopIntent
            self.secondaryIntent = secondaryIntent
            self.sound = sound
        }

        /// An alarm that alerts on `schedule`.
        public static func alarm(schedule: Alarm.Schedule, attributes: AlarmAttributes<Metadata>,
                                 sound: AlertConfiguration.AlertSound = .default) -> Self {
            Self(schedule: schedule, attributes: attributes, sound: sound)
        }

        /// A timer that alerts `duration` seconds from now; its Repeat (the secondary
        /// countdown button) runs it again for the same duration.
        public static func timer(duration: TimeInterval, attributes: AlarmAttributes<Metadata>,
                                 sound: AlertConfiguration.AlertSound = .default) -> Self {
            Self(countdownDuration: .init(preAlert: duration, postAlert: duration), attributes: attributes, sound: sound)
        }
    }

    /// Schedules an alarm; throws `AlarmError` with the agent's reason when it is refused.
    @discardableResult
    public func schedule<Metadata>(id: Alarm.ID, configuration: AlarmConfiguration<Metadata>) async throws -> Alarm {
        var metadata: String?
        if let value = configuration.attributes.metadata {
            metadata = String(decoding: try JSONCoding.compactEncoder.encode(value), as: UTF8.self)
        }
        let request = AlarmRequest(schedule: configuration.schedule, countdownDuration: configuration.countdownDuration,
                                   presentation: configuration.attributes.presentation, metadata: metadata,
                                   tintColor: configuration.attributes.tintColor, sound: configuration.sound,
                                   stopIntent: configuration.stopIntent, secondaryIntent: configuration.secondaryIntent)
        return try await client.schedule(id: id, request: request).alarm
    }

    /// This app's alarms (the agent shows an app nothing else).
    public var alarms: [Alarm] {
        get async throws { try await client.list().map(\.alarm) }
    }

    /// This app's alarms now, then after every change; an alarm missing from a list is no longer scheduled.
    public var alarmUpdates: AsyncMapSequence<AsyncStream<[AlarmRecord]>, [Alarm]> {
        client.updates().map { $0.map(\.alarm) }
    }

    /// What each of this app's alarms presents now (nothing for merely scheduled ones).
    public var presentationStates: [AlarmPresentationState] {
        get async throws { try await client.list().compactMap { $0.presentationState(in: GLibTimeZone.local) } }
    }

    /// This app's alarms with their metadata decoded as `Metadata` (`nil` where an alarm has
    /// none or it does not decode as that type).
    public func alarmMetadata<Metadata: AlarmMetadata>(_ type: Metadata.Type) async throws -> [(alarm: Alarm, metadata: Metadata?)] {
        try await client.list().map { record in
            (record.alarm, record.metadata.flatMap { try? JSONCoding.decoder.decode(type, from: Data($0.utf8)) })
        }
    }

    /// Presses of this app's alarms' buttons, while the app runs: the alarm's id and the
    /// button (`stop`, `secondary`, `pause`, `resume`, `cancel`). The intents run without the app.
    public var alarmActions: AsyncStream<(alarmID: Alarm.ID, button: String)> { client.actions() }

    /// Removes the alarm whatever its state.
    public func cancel(id: Alarm.ID) async throws { try await apply(.cancel, id) }
    /// Stops an alerting alarm: a one-time alarm ends, a repeating one moves to its next occurrence.
    public func stop(id: Alarm.ID) async throws { try await apply(.stop, id) }
    /// Starts the post-alert countdown of an alerting alarm (snooze / repeat).
    public func countdown(id: Alarm.ID) async throws { try await apply(.countdown, id) }
    /// Pauses a running countdown.
    public func pause(id: Alarm.ID) async throws { try await apply(.pause, id) }
    /// Resumes a paused countdown.
    public func resume(id: Alarm.ID) async throws { try await apply(.resume, id) }

    private func apply(_ action: AlarmAction, _ id: Alarm.ID) async throws {
        _ = try await client.apply(action, to: id.uuidString)
    }
}
