import FoundationEssentials
import Logging
import ReveilleAgentRuntime
import ReveilleBus
import ReveilleCore
import ReveilleLoop
import ReveilleModel
import ReveilleSound

/// Carries out a button's intent without the app: opens an app, or runs a command.
@GLibActor
final class IntentRunner: IntentPerformer {
    private let bus: BusConnection
    private let logger: Logger
    private let flatpak: FlatpakExports

    init(bus: BusConnection, logger: Logger, flatpak: FlatpakExports = FlatpakExports()) {
        self.bus = bus
        self.logger = logger
        self.flatpak = flatpak
    }

    /// Refuses intents the caller may not set: a sandboxed app may only open itself, through
    /// the desktop entry Flatpak exports for it, and may not run host commands (either would
    /// let it out of its sandbox).
    static func check(_ request: AlarmRequest, for identity: ClientIdentity,
                      flatpak: FlatpakExports = FlatpakExports()) throws(AlarmError) {
        guard identity.sandboxed else { return }
        for intent in [request.stopIntent, request.secondaryIntent].compactMap({ $0 }) {
            switch intent {
            case .run:
                throw .notAuthorized("\(identity.appID) is sandboxed: it may not run commands outside its sandbox")
            case .openApp(let desktopID) where desktopID != identity.appID:
                throw .notAuthorized("\(identity.appID) is sandboxed: it may open only itself, not \(desktopID)")
            case .openApp:
                guard flatpak.exportedEntry(of: identity.appID) != nil else {
                    throw .notAuthorized("\(identity.appID) is sandboxed and Flatpak exports no desktop entry for it (looked in "
                        + flatpak.folders.joined(separator: ", ") + "); it may open only itself through that entry")
                }
            }
        }
    }

    func perform(_ intent: AlarmIntent, alarm: AlarmRecord, button: String) {
        let environment = ["REVEILLE_ALARM_ID": alarm.id.uuidString.lowercased(), "REVEILLE_ACTION": button]
        switch intent {
        case .run(let arguments):
            run(arguments, alarm: alarm, button: button, environment: environment)
        case .openApp(let desktopID) where desktopID == alarm.appID && flatpak.isFlatpakApp(desktopID):
            // A Flatpak app opening itself: only what Flatpak exported for it runs (`flatpak run`),
            // never an entry of that name in the applications folders, which the app may write.
            switch flatpak.launchCommand(of: desktopID, environment: environment) {
            case .success(let arguments): run(arguments, alarm: alarm, button: button, environment: [:])
            case .failure(let refusal): logger.error("\(button) of \(alarm.id) does not open \(desktopID): \(refusal.reason)")
            }
        case .openApp(let desktopID):
            open(desktopID, alarm: alarm, environment: environment)
        }
    }

    private func run(_ arguments: [String], alarm: AlarmRecord, button: String, environment: [String: String]) {
        do {
            try Processes.spawn(arguments, environment: environment)
            logger.info("\(button) of \(alarm.id) ran \(arguments.first ?? "")")
        } catch {
            logger.error("\(button) of \(alarm.id) could not run \(arguments): \(error.message)")
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

/// The desktop entries Flatpak exports for its apps (in each installation's
/// `exports/share/applications`, which no sandboxed app can write), and the command they run.
struct FlatpakExports: Sendable {
    /// Each installation's folder of exported desktop entries: the user's (`$FLATPAK_USER_DIR`,
    /// else `$XDG_DATA_HOME/flatpak`), the system's (`$FLATPAK_SYSTEM_DIR`, else `/var/lib/flatpak`).
    let folders: [String]
    /// Each installation's folder of installed apps, and the apps' data folder (`~/.var/app`).
    private let appFolders: [String]

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/share"
        let installations = [environment["FLATPAK_USER_DIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? dataHome + "/flatpak",
                             environment["FLATPAK_SYSTEM_DIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/var/lib/flatpak"]
        folders = installations.map { $0 + "/exports/share/applications" }
        appFolders = installations.map { $0 + "/app" } + [home + "/.var/app"]
    }

    /// The exported entry of `appID`, if Flatpak exported one.
    func exportedEntry(of appID: String) -> String? {
        guard SoundTheme.isPlainName(appID) else { return nil }
        return folders.lazy.map { "\($0)/\(appID).desktop" }.first { FileManager.default.isReadableFile(atPath: $0) }
    }

    /// Whether `appID` is a Flatpak app here: exported, installed, or with its data folder
    /// (which outlives an uninstall). Its `open:` then goes through its export only.
    func isFlatpakApp(_ appID: String) -> Bool {
        guard SoundTheme.isPlainName(appID) else { return false }
        return exportedEntry(of: appID) != nil || appFolders.contains { FileManager.default.fileExists(atPath: "\($0)/\(appID)") }
    }

    /// The command that opens `appID`: its exported entry's `Exec`, which must be Flatpak's
    /// own launcher (`/usr/bin/flatpak run ... APP_ID`), with `environment` passed into the
    /// sandbox as `--env=` options.
    func launchCommand(of appID: String, environment: [String: String]) -> Result<[String], AlarmError> {
        guard let entry = exportedEntry(of: appID) else {
            return .failure(.notFound("Flatpak exports no desktop entry for it (looked in \(folders.joined(separator: ", ")))"))
        }
        guard let exec = KeyFile(path: entry)?.string("Desktop Entry", "Exec"),
              let arguments = Self.flatpakRun(exec, appID: appID, environment: environment) else {
            return .failure(.invalidConfiguration("\(entry) does not run `flatpak run \(appID)`; accepted: Flatpak's own export"))
        }
        return .success(arguments)
    }

    /// `exec` as an argument vector when it is what Flatpak exports: an absolute path to a
    /// program named `flatpak`, then `run`, its options, and `appID`; field codes (`%U`) and
    /// file-forwarding markers (`@@u`, `@@`) dropped, `environment` added as `--env=KEY=VALUE`
    /// after `run`. `nil` for anything else (quoting, another program, another app).
    static func flatpakRun(_ exec: String, appID: String, environment: [String: String]) -> [String]? {
        let words = exec.split(separator: " ").map(String.init)
        guard words.count >= 3, words[0].hasPrefix("/"), words[0].hasSuffix("/flatpak"), words[1] == "run",
              !exec.contains(where: { "\"'\\`$;|&<>".contains($0) }) else { return nil }
        let rest = words.dropFirst(2).filter { !$0.hasPrefix("%") && !$0.hasPrefix("@@") }
        // The app is the first word that is not an option; anything after it goes to the app.
        guard rest.first(where: { !$0.hasPrefix("-") }) == appID else { return nil }
        let options = environment.sorted { $0.key < $1.key }.map { "--env=\($0.key)=\($0.value)" }
        return [words[0], "run"] + options + rest
    }
}
