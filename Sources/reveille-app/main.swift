import FoundationEssentials
import Glibc
import ReveilleBus
import ReveilleCore
import ReveilleGtk
import ReveilleLoop
import ReveilleModel
import ReveilleSystem
import ReveilleWords
import SystemPackage

/// The UI files' text, read once at start from the GResource bundle compiled into the binary
/// (`AppResources.swift`, made by scripts/app-resources from `Resources/*.ui`).
@GLibActor
struct UIFiles {
    let window: String, alarmRow: String, timerRow: String, historyRow: String, alarmDialog: String

    static func read() throws(UIFile.Failure) -> UIFiles {
        guard let bundle = Data(base64Encoded: appResourceBundle, options: .ignoreUnknownCharacters) else {
            throw UIFile.Failure(description: "the compiled UI files are not base64 (regenerate AppResources.swift: scripts/app-resources)")
        }
        try UIFile.register(bundle: [UInt8](bundle))
        func text(_ name: String) throws(UIFile.Failure) -> String { try UIFile.text(at: appResourcePrefix + "/" + name) }
        return UIFiles(window: try text("window.ui"), alarmRow: try text("alarm-row.ui"),
                       timerRow: try text("timer-row.ui"), historyRow: try text("history-row.ui"),
                       alarmDialog: try text("alarm-dialog.ui"))
    }
}

/// reveille-app: the person's window onto their alarms and timers. One instance per session:
/// a second launch raises the first one's window and ends.
@GLibActor
final class App {
    /// GApplication's id: its name on the session bus (the agent's is io.github.reveille.Reveille).
    static let id = "io.github.reveille.Reveille.App"
    private var window: AppWindow?
    private var done: CheckedContinuation<Int32, Never>?

    func run() async -> Int32 {
        guard Application.openDisplay(programName: "reveille-app") else {
            complain(L("cannot open a display: neither DISPLAY nor WAYLAND_DISPLAY is set, or it refused"))
            return 3
        }
        let application = Application(id: Self.id)
        application.onActivate { [weak self] in self?.activate() }
        do {
            // Registered before the application starts: it looks for its Keyboard Shortcuts
            // window (gtk/help-overlay.ui) among them then.
            let files = try UIFiles.read()
            if try application.register() {
                application.activate()
                return 0
            }
            Application.loadStyle(Self.css)
            let window = try AppWindow(files: files)
            window.window.add(to: application)
            application.addAction("about") { Adwaita.showAbout(over: window.window, version: ReveilleVersion.current) }
            window.window.onCloseRequest { [weak self] in self?.finish(0) }
            self.window = window
            window.follow()
        } catch {
            complain(error.description)
            return 1
        }
        application.activate()
        return await withCheckedContinuation { done = $0 }
    }

    private func activate() {
        window?.window.present()
    }

    private func finish(_ status: Int32) {
        done?.resume(returning: status)
        done = nil
    }

    private func complain(_ message: String) {
        CurrentProcess.writeToStandardError("reveille-app: " + message + "\n")
    }

    static let css = """
        .alarm-time { font-size: 22pt; font-weight: 300; }
        .timer-remaining { font-size: 22pt; font-weight: 300; font-feature-settings: "tnum"; }
        .ringing { padding: 18px; border-radius: 12px; background: alpha(@error_color, 0.12); }
        .ringing-title { font-size: 20pt; font-weight: bold; }
        button.ringing-answer { font-size: 14pt; font-weight: bold; padding: 8px 28px; }
        /* Filled, as libadwaita 1.2 draws it; from 1.6 a destructive button is only tinted. */
        button.ringing-answer.destructive-action { background-color: @destructive_bg_color; color: @destructive_fg_color; }
        .heading { font-weight: bold; font-size: 12pt; }
        stackswitcher button.text-button { min-width: 64px; }
        row.chosen { background-image: -gtk-icontheme("object-select-symbolic"); background-repeat: no-repeat;
                     background-origin: content-box; background-position: right center; background-size: 16px 16px; }
        """
}

Localization.setUp()
/// Writes `text` to `descriptor` whole (swift-system's typed write, interruptions retried).
func say(_ text: String, to descriptor: Int32) {
    _ = try? FileDescriptor(rawValue: descriptor).writeAll(text.utf8)
}
// Answered before any display is opened: `--help` needs none.
switch AppArguments.read(Array(CommandLine.arguments.dropFirst())) {
case .help: say(AppArguments.helpText, to: 1); exit(0)
case .version: say("reveille-app \(ReveilleVersion.current)\n", to: 1); exit(0)
case .refused(let word): say(AppArguments.refusal(word), to: 2); exit(64)
case .window: break
}
Application.preferCairoRenderer()
DaemonRunner.runThenExit { await App().run() }
