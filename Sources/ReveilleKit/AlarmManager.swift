import Foundation
import ReveilleBus

/// The entry point of AlarmKit's API: schedule, list, observe and answer this app's alarms.
/// The alarms belong to reveille-agent and ring while the app is not running.
///
/// Differences from AlarmKit: `alarms` and the operations are `async`, since each is a
/// D-Bus round trip to the agent.
public final class AlarmManager: Sendable {
    /// The manager for this process's app, named after the executable (set
    /// `REVEILLE_APP_ID` to choose another id).
    public static let shared = AlarmManager(
        appID: ProcessInfo.processInfo.environment["REVEILLE_APP_ID"] ?? ProcessInfo.processInfo.processName)

    private let client: AgentClient

    public init(appID: String) {
        client = AgentClient(appID: appID)
    }

    /// What to schedule: AlarmKit's `AlarmManager.AlarmConfiguration`.
    public struct AlarmConfiguration<Metadata: AlarmMetadata>: Sendable {
        public var countdownDuration: Alarm.CountdownDuration?
        public var schedule: Alarm.Schedule?
        public var attributes: AlarmAttributes<Metadata>
        public var sound: AlertConfiguration.AlertSound

        public init(countdownDuration: Alarm.CountdownDuration? = nil, schedule: Alarm.Schedule? = nil,
                    attributes: AlarmAttributes<Metadata>, sound: AlertConfiguration.AlertSound = .default) {
            self.countdownDuration = countdownDuration
            self.schedule = schedule
            self.attributes = attributes
            self.sound = sound
        }

        /// An alarm that alerts on `schedule`.
        public static func alarm(schedule: Alarm.Schedule, attributes: AlarmAttributes<Metadata>,
                                 sound: AlertConfiguration.AlertSound = .default) -> Self {
            Self(schedule: schedule, attributes: attributes, sound: sound)
        }

        /// A timer that alerts `duration` seconds from now.
        public static func timer(duration: TimeInterval, attributes: AlarmAttributes<Metadata>,
                                 sound: AlertConfiguration.AlertSound = .default) -> Self {
            Self(countdownDuration: .init(preAlert: duration, postAlert: nil), attributes: attributes, sound: sound)
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
                                   tintColor: configuration.attributes.tintColor, sound: configuration.sound)
        return try await client.schedule(id: id, request: request).alarm
    }

    /// This app's alarms.
    public var alarms: [Alarm] {
        get async throws { try await client.list().filter { $0.appID == client.appID }.map(\.alarm) }
    }

    /// This app's alarms now, then after every change; an alarm missing from a list is no longer scheduled.
    public var alarmUpdates: AsyncMapSequence<AsyncStream<[AlarmRecord]>, [Alarm]> {
        let appID = client.appID
        return client.updates().map { $0.filter { $0.appID == appID }.map(\.alarm) }
    }

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
