import ReveilleCore
import ReveilleKit
import ReveilleWords

/// What `reveille-app`'s command line asks for: the window, or only its help or its version,
/// printed without a display (`reveille-app --help` had opened the window and waited).
enum AppArguments: Equatable {
    case window, help, version
    /// A word the app does not know, refused rather than ignored.
    case refused(String)

    /// `--help` (or `-h`) wins over anything else given, then `--version`.
    static func read(_ arguments: [String]) -> AppArguments {
        if arguments.contains(where: { $0 == "--help" || $0 == "-h" }) { return .help }
        if arguments.contains("--version") { return .version }
        return arguments.first.map { .refused($0) } ?? .window
    }

    static var helpText: String {
        [L("Usage: %@", "reveille-app [--help] [--version]"),
         "",
         L("Opens the Reveille window: your alarms and timers, what rings, what rang and the agent's settings. One window per session: a second start shows the first one."),
         "",
         L("Options:"),
         "  -h, --help    " + L("Show this help and exit."),
         "  --version     " + L("Show the version and exit."),
         "",
         L("The command line is reveille (see reveille --help)."),
        ].joined(separator: "\n") + "\n"
    }

    static func refusal(_ word: String) -> String {
        L("reveille-app: unknown argument '%@'; see reveille-app --help", word) + "\n"
    }
}
