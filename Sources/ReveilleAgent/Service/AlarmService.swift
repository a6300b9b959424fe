import Foundation
import Logging
import ReveilleBus
import ReveilleCore

/// The agent's D-Bus interface (`AgentInterface`): decodes calls, hands them to the
/// scheduler, and answers with JSON or a named error. A bad call never harms the agent.
@GLibActor
final class AlarmService {
    private let bus: BusConnection
    private let scheduler: AlarmScheduler
    private let sounder: AlarmSounder
    private let logger: Logger
    /// The CLI is the user's own app: it may name sound files by path.
    static let userAppID = "reveille"

    init(bus: BusConnection, scheduler: AlarmScheduler, sounder: AlarmSounder, logger: Logger) throws(BusError) {
        self.bus = bus
        self.scheduler = scheduler
        self.sounder = sounder
        self.logger = logger
        try bus.register(path: AgentInterface.objectPath, introspectionXML: AgentInterface.introspectionXML) {
            [unowned self] call in self.handle(call)
        }
    }

    /// Emits `AlarmsChanged` with the full list.
    func publish(_ alarms: [AlarmRecord]) {
        do {
            try bus.emitSignal(path: AgentInterface.objectPath, interface: AgentInterface.interface,
                               name: "AlarmsChanged", arguments: [.string(try Self.json(alarms))])
        } catch {
            logger.error("could not emit AlarmsChanged: \(error)")
        }
    }

    private func handle(_ call: MethodCall) {
        do {
            call.reply([.string(try answer(call))])
        } catch let error as AlarmError {
            logger.notice("\(call.method) from \(call.sender) refused: \(error.reason)")
            call.fail(name: AgentInterface.errorPrefix + error.code, message: error.reason)
        } catch {
            call.fail(name: AgentInterface.errorPrefix + "Failed", message: "\(error)")
        }
    }

    private func answer(_ call: MethodCall) throws -> String {
        // GDBus has already checked the argument types against the introspection XML.
        let strings = call.arguments.map { $0.string ?? "" }
        switch call.method {
        case "List":
            return try Self.json(scheduler.list)
        case "Get":
            return try Self.json(scheduler.alarm(try scheduler.resolve(strings[0])))
        case "Schedule":
            let id = try Self.uuid(strings[0])
            let request = try Self.request(strings[1])
            let options = call.arguments[2].dictionary ?? [:]
            let appID = options["app-id"]?.string.flatMap { $0.isEmpty ? nil : $0 } ?? "default"
            _ = try sounder.library.resolve(request.sound, allowPaths: appID == Self.userAppID)
            return try Self.json(try scheduler.schedule(id: id, request: request, appID: appID))
        case "ListSounds":
            return try Self.json(sounder.library.entries())
        case "PlaySound":
            let seconds = call.arguments[1].double ?? 3
            let sound: AlertConfiguration.AlertSound = strings[0].isEmpty || strings[0] == "default" ? .default : .named(strings[0])
            return try sounder.preview(sound, seconds: seconds)
        default:
            guard let action = AgentInterface.actionMethods.first(where: { $0.value == call.method })?.key else {
                throw AlarmError.invalidConfiguration("no method \(call.method)")
            }
            return try Self.json(try scheduler.apply(action, to: strings[0]))
        }
    }

    private static func uuid(_ text: String) throws(AlarmError) -> UUID {
        if text.isEmpty { return UUID() }
        guard let id = UUID(uuidString: text) else {
            throw .invalidConfiguration("id '\(text)' is not a UUID; give one like 123e4567-e89b-12d3-a456-426614174000, or \"\" for a new one")
        }
        return id
    }

    private static func request(_ text: String) throws(AlarmError) -> AlarmRequest {
        do {
            return try JSONCoding.decoder.decode(AlarmRequest.self, from: Data(text.utf8))
        } catch let DecodingError.keyNotFound(key, context) {
            throw .invalidConfiguration("configuration is missing \((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw .invalidConfiguration("configuration has a wrong value at \(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)")
        } catch let DecodingError.dataCorrupted(context) {
            throw .invalidConfiguration("configuration is not a valid AlarmRequest JSON object: \(context.debugDescription) at '\(context.codingPath.map(\.stringValue).joined(separator: "."))'")
        } catch {
            throw .invalidConfiguration("configuration is not a valid AlarmRequest JSON object: \(error)")
        }
    }

    private static func json<Value: Encodable>(_ value: Value) throws -> String {
        String(decoding: try JSONCoding.compactEncoder.encode(value), as: UTF8.self)
    }
}
