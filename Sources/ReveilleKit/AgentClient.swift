import Foundation
import ReveilleBus
@_exported import ReveilleCore

/// A sound the agent can ring: its name, file, and where it was found (`user`, `bundled`, `theme`).
public struct SoundEntry: Codable, Sendable, Equatable {
    public var name: String
    public var path: String
    public var source: String
}

/// A connection to reveille-agent over the session bus, with the agent's full view of
/// each alarm (`AlarmRecord`). `AlarmManager` builds AlarmKit's API on it; the CLI uses it directly.
@GLibActor
public final class AgentClient {
    /// The app this client schedules for.
    public nonisolated let appID: String
    private var connection: BusConnection?

    public nonisolated init(appID: String) {
        self.appID = appID
    }

    /// All alarms the agent holds, in its display order.
    public func list() async throws(AlarmError) -> [AlarmRecord] {
        try Self.decode([AlarmRecord].self, from: try await call("List"))
    }

    /// The alarm whose id starts with `idPrefix`.
    public func alarm(_ idPrefix: String) async throws(AlarmError) -> AlarmRecord {
        try Self.decode(AlarmRecord.self, from: try await call("Get", [.string(idPrefix)]))
    }

    /// Schedules `request` under `id`; returns the alarm as the agent stored it.
    public func schedule(id: UUID, request: AlarmRequest) async throws(AlarmError) -> AlarmRecord {
        let json: String
        do {
            json = String(decoding: try JSONCoding.compactEncoder.encode(request), as: UTF8.self)
        } catch {
            throw .invalidConfiguration("the configuration cannot be encoded: \(error)")
        }
        let reply = try await call("Schedule", [.string(id.uuidString), .string(json), .vardict(["app-id": .string(appID)])])
        return try Self.decode(AlarmRecord.self, from: reply)
    }

    /// Applies `action` to the alarm whose id starts with `idPrefix`; returns it afterwards,
    /// or `nil` when it has ended.
    public func apply(_ action: AlarmAction, to idPrefix: String) async throws(AlarmError) -> AlarmRecord? {
        try Self.decode(AlarmRecord?.self, from: try await call(AgentInterface.actionMethods[action]!, [.string(idPrefix)]))
    }

    /// Every sound the agent can resolve by name.
    public func sounds() async throws(AlarmError) -> [SoundEntry] {
        try Self.decode([SoundEntry].self, from: try await call("ListSounds"))
    }

    /// Plays `sound` (a name, or a path for the user's CLI) for `seconds`; returns the file played.
    public func playSound(_ sound: String, seconds: Double) async throws(AlarmError) -> String {
        try await call("PlaySound", [.string(sound), .double(seconds)])
    }

    /// Whether any process owns the agent's bus name (`org.freedesktop.DBus.NameHasOwner`).
    public func agentIsRunning() async throws(AlarmError) -> Bool {
        do {
            let reply = try await bus().call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                             interface: "org.freedesktop.DBus", method: "NameHasOwner",
                                             arguments: [.string(AgentInterface.busName)])
            return reply.first == .bool(true)
        } catch let error as BusError {
            throw .agentUnavailable("the session bus did not answer: \(error.message)")
        } catch {
            throw error as! AlarmError
        }
    }

    /// The full list now, then again after every change, until the sequence is dropped.
    /// Ends at once when the session bus cannot be reached.
    public nonisolated func updates() -> AsyncStream<[AlarmRecord]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [AlarmRecord].self, bufferingPolicy: .bufferingNewest(16))
        Task { @GLibActor in
            guard let bus = try? self.bus() else { return continuation.finish() }
            let subscription = bus.subscribe(sender: AgentInterface.busName, interface: AgentInterface.interface,
                                             name: "AlarmsChanged", path: AgentInterface.objectPath) { signal in
                guard let json = signal.arguments.first?.string,
                      let alarms = try? Self.decode([AlarmRecord].self, from: json) else { return }
                continuation.yield(alarms)
            }
            continuation.onTermination = { _ in Task { @GLibActor in bus.unsubscribe(subscription) } }
            if let current = try? await self.list() { continuation.yield(current) }
        }
        return stream
    }

    private func bus() throws(AlarmError) -> BusConnection {
        if let connection { return connection }
        do {
            let connection = try BusConnection.session()
            self.connection = connection
            return connection
        } catch {
            throw .agentUnavailable("cannot connect to the session bus (\(error.message)); is DBUS_SESSION_BUS_ADDRESS set?")
        }
    }

    private func call(_ method: String, _ arguments: [Variant] = []) async throws(AlarmError) -> String {
        do {
            let reply = try await bus().call(destination: AgentInterface.busName, path: AgentInterface.objectPath,
                                             interface: AgentInterface.interface, method: method, arguments: arguments)
            return reply.first?.string ?? "null"
        } catch let error as BusError {
            if error.name.hasPrefix(AgentInterface.errorPrefix) {
                throw AlarmError(code: String(error.name.dropFirst(AgentInterface.errorPrefix.count)), reason: error.message)
            }
            if error.isServiceMissing {
                throw .agentUnavailable("no reveille-agent is running on the session bus")
            }
            throw .agentUnavailable("reveille-agent did not answer: \(error.message)")
        } catch {
            throw error as! AlarmError
        }
    }

    private static func decode<Value: Decodable>(_ type: Value.Type, from json: String) throws(AlarmError) -> Value {
        do {
            return try JSONCoding.decoder.decode(type, from: Data(json.utf8))
        } catch {
            throw .agentUnavailable("reveille-agent sent an answer this client cannot read: \(error)")
        }
    }
}
