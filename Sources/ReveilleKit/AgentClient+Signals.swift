import FoundationEssentials
internal import ReveilleBus
import ReveilleLoop
package import ReveilleRules

/// The agent's signals as streams: the list kept up to date, the buttons pressed, this app's
/// events and its decision. Each subscribes on the GLib loop, then makes its first calls
/// asynchronously (their replies arrive on `ClientCallActor`'s thread, not the loop).
extension AgentClient {
    /// The full list now, then again after every change, until the sequence is dropped.
    /// The agent sends only what changed (`AlarmsUpdated`); the list is kept here. When the
    /// agent restarts, the stream subscribes again and goes on with the new agent's list.
    /// Ends at once when the session bus cannot be reached.
    package func updates() -> AsyncThrowingStream<[AlarmRecord], any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [AlarmRecord].self, bufferingPolicy: .bufferingNewest(16))
        Task { @GLibActor in
            let bus: BusConnection
            do { bus = try self.bus() } catch { return continuation.finish(throwing: error) }
            let mirror = MirrorBox()
            let synchronize = { @GLibActor [weak self] in
                mirror.value.awaitList()
                guard let self else { return continuation.finish() }
                // Signals first, then the list a page at a time: what changes meanwhile
                // arrives as updates, which the mirror applies on the pages. A refusal (every
                // subscriber slot taken) ends the stream with it: a reader never waits on nothing.
                do {
                    let list = try await self.subscribedList()
                    continuation.yield(mirror.value.received(list: list))
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            let subscription = bus.subscribe(sender: AgentInterface.busName, interface: AgentInterface.interface,
                                             name: AgentSignal.alarmsUpdated.name, path: AgentInterface.objectPath) { signal in
                guard let changed = signal.arguments.first?.string.flatMap({ try? Self.decodeList(AlarmRecord.self, from: $0) }),
                      case .array(_, let removed)? = signal.arguments.dropFirst().first else { return }
                if let alarms = mirror.value.received(changed: changed, removed: removed.compactMap { $0.string.flatMap(UUID.init(uuidString:)) }) {
                    continuation.yield(alarms)
                }
            }
            // A new agent knows nothing of this subscriber: subscribe again when one appears
            // after the one that sent the list went away.
            var agentLeft = false
            let watch = bus.watchName(AgentInterface.busName) { owner in
                if owner == nil, mirror.value.isSynchronized { agentLeft = true }
                if owner != nil, agentLeft {
                    agentLeft = false
                    Task { @GLibActor in await synchronize() }
                }
            }
            continuation.onTermination = { _ in
                Task { @GLibActor in
                    bus.unsubscribe(subscription)
                    bus.unwatchName(watch)
                }
            }
            await synchronize()
        }
        return stream
    }

    /// Whether the agent is on the bus: now, then at each change (it left; it started again).
    /// Ends at once when the session bus cannot be reached.
    package func agentPresence() -> AsyncStream<Bool> {
        let (stream, continuation) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingNewest(1))
        Task { @GLibActor in
            guard let bus = try? self.bus() else { return continuation.finish() }
            let watch = bus.watchName(AgentInterface.busName) { owner in continuation.yield(owner != nil) }
            continuation.onTermination = { _ in Task { @GLibActor in bus.unwatchName(watch) } }
        }
        return stream
    }

    /// Subscribes to the agent's signals, then reads the whole list.
    @ClientCallActor
    private func subscribedList() async throws(AlarmError) -> [AlarmRecord] {
        _ = try await call(.subscribeUpdates)
        return try await list()
    }

    /// The list an `updates()` stream keeps, shared by its callbacks on the loop.
    private final class MirrorBox {
        var value = AlarmListMirror()
    }

    /// Presses of this app's alarms' buttons (the alarm's id and `stop`, `secondary`, `pause`,
    /// `resume` or `cancel`), so a running app can react.
    package func actions() -> AsyncStream<(alarmID: UUID, button: AlarmButtonRole)> {
        signals(AgentSignal.actionInvoked.name, first: { client async throws(AlarmError) in
            _ = try await client.call(.subscribeUpdates)
            return nil
        }) { signal in
            guard let id = signal.arguments.first?.string.flatMap(UUID.init(uuidString:)),
                  let button = signal.arguments.dropFirst().first?.string.flatMap(AlarmButtonRole.init(rawValue:)) else { return nil }
            return (id, button)
        }
    }

    /// This app's alarms beginning to alert, and occurrences missed, while the app runs.
    package func events() -> AsyncStream<AlarmEvent> {
        signals(nil, first: { client async throws(AlarmError) in
            _ = try await client.call(.subscribeUpdates)
            return nil
        }) { signal in
            let arguments = signal.arguments.map { $0.string ?? "" }
            guard let id = arguments.first.flatMap(UUID.init(uuidString:)) else { return nil }
            switch AgentSignal(rawValue: signal.name) {
            case .alarmAlerting:
                return .alerting(id)
            case .alarmMissed where arguments.count == 3:
                guard let due = ISO8601Local.parse(arguments[1], defaultTimeZone: UTCTimeZone()),
                      let reason = MissReason(rawValue: arguments[2]) else { return nil }
                return .missed(id, dueDate: due, reason: reason)
            default:
                return nil
            }
        }
    }

    /// This app's decision now, then at every change.
    package func authorizationUpdates() -> AsyncStream<AuthorizationState> {
        let appID = self.appID
        return signals(AgentSignal.authorizationChanged.name, first: { client async throws(AlarmError) in
            _ = try await client.call(.subscribeUpdates)
            return try await client.authorizationState()
        }) { signal in
            guard signal.arguments.first?.string == appID else { return nil }
            return signal.arguments.dropFirst().first?.string.flatMap(AuthorizationState.init(rawValue:))
        }
    }

    /// The settings after each change anyone makes (`SettingsChanged`; the user's client only).
    package func settingsChanges() -> AsyncStream<AgentSettings> {
        signals(AgentSignal.settingsChanged.name, first: { client async throws(AlarmError) in
            _ = try await client.call(.subscribeUpdates)
            return nil
        }) { signal in
            signal.arguments.first?.string.flatMap { try? AgentSettings().changed(by: $0, unknownKeys: .passOver) }
        }
    }

    /// A stream of one signal's values (any of the agent's signals when `name` is `nil`):
    /// subscribe first (so nothing is missed), then the current value from `first` (if it has
    /// one), then each signal that `parse` accepts.
    private func signals<Value: Sendable>(_ name: String?, first: @escaping @Sendable @ClientCallActor (AgentClient) async throws(AlarmError) -> Value?,
                                                      parse: @escaping @Sendable (BusConnection.Signal) -> Value?) -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(16))
        Task { @GLibActor in
            guard let bus = try? self.bus() else { return continuation.finish() }
            let subscription = bus.subscribe(sender: AgentInterface.busName, interface: AgentInterface.interface,
                                             name: name, path: AgentInterface.objectPath) { signal in
                if let value = parse(signal) { continuation.yield(value) }
            }
            continuation.onTermination = { _ in Task { @GLibActor in bus.unsubscribe(subscription) } }
            do {
                if let current = try await first(self) { continuation.yield(current) }
            } catch {
                // The agent is gone or refused: the stream simply has no first value.
            }
        }
        return stream
    }

}
