import FoundationEssentials
import Logging
import ReveilleBus
import ReveilleCore

/// Carries out a button's intent without the app: opens an app, or runs a command.
@GLibActor
final class IntentRunner {
    private let bus: BusConnection
    private let logger: Logger

    init(bus: BusConnection, logger: Logger) {
        self.bus = bus
        self.logger = logger
    }

    /// Refuses intents the caller may not set: a sandboxed app may only open itself and may
    /// not run host commands (either would let it out of its sandbox).
    static func check(_ request: AlarmRequest, for identity: ClientIdentity) throws(AlarmError) {
        guard identity.sandboxed else { return }
        for intent in [request.stopIntent, request.secondaryIntent].compactMap({ $0 }) {
            switch intent {
            case .run:
                throw .notAuthorized("\(identity.appID) is sandboxed: it may not run commands outside its sandbox")
            case .openApp(let desktopID) where desktopID != identity.appID:
                throw .notAuthorized("\(identity.appID) is sandboxed: it may open only itself, not \(desktopID)")
            case .openApp:
                continue
            }
        }
    }

    func perform(_ intent: AlarmIntent, alarm: AlarmRecord, button: String) {
        let environment = ["REVEILLE_ALARM_ID": alarm.id.uuidString.lowercased(), "REVEILLE_ACTION": button]
        switch intent {
        case .run(let arguments):
            do {
                try Processes.spawn(arguments, environment: environment)
                logger.info("\(button) of \(alarm.id) ran \(arguments.first ?? "")")
            } catch {
                logger.error("\(button) of \(alarm.id) could not run \(arguments): \(error.message)")
            }
        case .openApp(let desktopID):
            open(desktopID, alarm: alarm, environment: environment)
        }
    }

    /// `org.freedesktop.Application.ActivateAction("alarm", [id])` for a D-Bus activatable app,
    /// else a launch of its desktop entry.
    private func open(_ desktopID: String, alarm: AlarmRecord, environment: [String: String]) {
        guard let activatable = Processes.isDBusActivatable(desktopID) else {
            return logger.error("cannot open \(desktopID) for \(alarm.id): no desktop entry \(desktopID).desktop")
        }
        guard activatable else {
            do { try Processes.launch(desktopID, environment: environment) } catch {
                logger.error("could not launch \(desktopID): \(error.message)")
            }
            return
        }
        let path = "/" + desktopID.replacing(".", with: "/").replacing("-", with: "_")
        // Sent without awaiting the reply: the app may take its time to start, and the agent
        // waits for nothing (an awaited reply would also wake Swift's global executor).
        bus.send(destination: desktopID, path: path, interface: "org.freedesktop.Application", method: "ActivateAction",
                 arguments: [.string("alarm"), .array(elementType: "v", [.variant(.string(alarm.id.uuidString.lowercased()))]),
                             .vardict([:])])
        logger.info("asked \(desktopID) to activate its alarm action for \(alarm.id)")
    }
}
