import ReveilleKit

// On iOS these are App Intents (`LiveActivityIntent`s). On Linux an intent is something the
// agent does without the app: open an app by its desktop id, or run a program.
enum Intents {
    /// The Open button: brings this app forward with the alarm's id.
    static func openApp() -> AlarmIntent {
        .openApp(desktopID: "io.github.reveille.AlarmKitPort")
    }
}
