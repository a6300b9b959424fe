import FoundationEssentials
import Glibc
import ReveilleBus
import ReveilleCore
import ReveilleGtk
import ReveilleKit
import ReveilleLoop
import ReveilleModel
import ReveilleRules
import ReveilleSystem
import ReveilleWords

/// reveille-alert: the window the agent opens while an alarm rings and its notification
/// cannot be seen or answered. It answers through the agent's D-Bus interface as the user's
/// own tool, and closes once the alarm no longer rings, however it was answered.
/// Its exit status is an `AlertWindowExit`.
@GLibActor
final class AlertWindow {
    private let request: AlertWindowArguments
    private let client = AgentClient(appID: "reveille")
    private var view: AlertView?
    private var bus: BusConnection?
    private var done: CheckedContinuation<Int32, Never>?

    init(request: AlertWindowArguments) {
        self.request = request
    }

    func run() async -> Int32 {
        guard AlertView.openDisplay() else {
            // Named, so that a display gone or refused is told apart from none given.
            let named = ["WAYLAND_DISPLAY", "DISPLAY"].compactMap { (key: String) -> String? in EnvironmentVariable.value(key).map { "\(key)=\($0)" } }
            Self.complain(named.isEmpty ? L("cannot open a display: neither DISPLAY nor WAYLAND_DISPLAY is set")
                                        : L("cannot open the display %@", named.joined(separator: ", ")))
            return AlertWindowExit.noDisplay.rawValue
        }
        // The window belongs to the agent that opened it: when that agent goes (a crash, a
        // restart), so does the window, and the next agent opens its own for what still rings.
        guard let bus = try? BusConnection.session() else {
            Self.complain(L("cannot connect to the session bus"))
            return AlertWindowExit.noAgent.rawValue
        }
        self.bus = bus
        Adwaita.followColorScheme(Self.desktopColorScheme(bus))
        _ = bus.watchName(AgentInterface.busName) { [weak self] owner in
            if owner == nil { self?.finish(.done) }
        }
        let keys = request.secondaryLabel.map { L("Enter or Esc: %@ · S: %@", request.stopLabel, $0) }
            ?? L("Enter or Esc: %@", request.stopLabel)
        let view = AlertView(title: request.title, detail: request.detail, stopLabel: request.stopLabel,
                             secondaryLabel: request.secondaryLabel, keyHint: keys,
                             onAnswer: { [weak self] answer in self?.answer(answer) },
                             onClose: { [weak self] in self?.finish(.done) })
        self.view = view
        view.present()
        let id = request.alarmID
        Task { @GLibActor [weak self, client] in
            // The first list tells whether it still rings; every change after, whether it stopped.
            do {
                for try await alarms in client.updates() {
                    guard alarms.first(where: { $0.id == id })?.state == .alerting else {
                        self?.finish(.done)
                        return
                    }
                }
            } catch {
                Self.complain("cannot follow alarm \(id): \(error)")
            }
            self?.finish(.noAgent)
        }
        return await withCheckedContinuation { done = $0 }
    }

    /// The desktop's colour scheme as its settings portal says it (org.freedesktop.appearance's
    /// `color-scheme`), asked with a bound of 1 s: started by D-Bus if need be, as libadwaita would.
    private static func desktopColorScheme(_ bus: BusConnection) -> UInt32? {
        try? bus.callSync(destination: "org.freedesktop.portal.Desktop", path: "/org/freedesktop/portal/desktop",
                          interface: "org.freedesktop.portal.Settings", method: "Read",
                          arguments: [.string("org.freedesktop.appearance"), .string("color-scheme")],
                          timeoutMilliseconds: 1000, autoStart: true).first?.uint32
    }

    private func answer(_ answer: AlertView.Answer) {
        // Pressed as on the notification: the app's intent runs, and it hears the press.
        let button: AlarmButtonRole = answer == .stop ? .stop : .secondary
        Task { @GLibActor [weak self, client, id = request.alarmID] in
            do {
                _ = try await client.run { client async throws(AlarmError) in try await client.press(button, on: id) }
                self?.finish(.done)
            } catch {
                // The window stays: the alarm still rings, and another way may still answer it.
                self?.view?.showStatus("\(error)")
                Self.complain("\(button.rawValue) \(id): \(error)")
            }
        }
    }

    private func finish(_ status: AlertWindowExit) {
        done?.resume(returning: status.rawValue)
        done = nil
    }

    nonisolated static func complain(_ message: String) {
        CurrentProcess.writeToStandardError("reveille-alert: " + message + "\n")
    }
}

Application.preferCairoRenderer()
Adwaita.readsNoPortal()
Localization.setUp()
// `reveille-alert --lock-screen-overlay`: says by its exit status whether its window would show
// over this session's lock screen (`LockScreenOverlay`), for `reveille status`.
if CommandLine.arguments.dropFirst() == ["--lock-screen-overlay"] {
    DaemonRunner.runThenExit {
        guard AlertView.openDisplay() else {
            AlertWindow.complain(L("cannot open a display: neither DISPLAY nor WAYLAND_DISPLAY is set"))
            return AlertWindowExit.noDisplay.rawValue
        }
        return Application.lockScreenOverlay.rawValue
    }
}
let request: AlertWindowArguments
do {
    request = try AlertWindowArguments(parsing: Array(CommandLine.arguments.dropFirst()))
} catch {
    AlertWindow.complain(error.description)
    CurrentProcess.exitNow(AlertWindowExit.badArguments.rawValue)
}
DaemonRunner.runThenExit { await AlertWindow(request: request).run() }
