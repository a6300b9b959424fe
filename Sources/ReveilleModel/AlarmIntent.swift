import FoundationEssentials

/// What a button does besides its state change, without the app running (AlarmKit's stop
/// and secondary intents). The owning app is also sent `ActionInvoked` in every case.
public enum AlarmIntent: Hashable, Sendable {
    /// Opens an app by its desktop-file id (`org.gnome.Calendar`), passing the alarm id:
    /// through `org.freedesktop.Application.ActivateAction("alarm", [id])` when the app is
    /// D-Bus activatable, else by launching its desktop entry with `REVEILLE_ALARM_ID` set.
    case openApp(desktopID: String)
    /// Runs a program with exactly these arguments (never through a shell), with
    /// `REVEILLE_ALARM_ID` and `REVEILLE_ACTION` in its environment.
    case run(arguments: [String])

    /// Checks the intent's shape; throws `invalidConfiguration` naming what is wrong.
    public func validate() throws(AlarmError) {
        switch self {
        case .openApp(let desktopID):
            guard desktopID.wholeMatch(of: /[A-Za-z0-9_][A-Za-z0-9._-]{0,254}/) != nil else {
                throw .invalidConfiguration("desktop id '\(desktopID)' is not valid; give one like org.gnome.Calendar (no .desktop)")
            }
        case .run(let arguments):
            guard let program = arguments.first, program.hasPrefix("/") else {
                throw .invalidConfiguration("a run intent needs an absolute program path first, got \(arguments)")
            }
        }
    }
}

extension AlarmIntent: Codable {
    private enum CodingKeys: String, CodingKey { case openApp, run }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let id = try container.decodeIfPresent(String.self, forKey: .openApp) {
            self = .openApp(desktopID: id)
        } else if let arguments = try container.decodeIfPresent([String].self, forKey: .run) {
            self = .run(arguments: arguments)
        } else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                debugDescription: "an intent is {\"openApp\": DESKTOP_ID} or {\"run\": [PROGRAM, ARG...]}"))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .openApp(let id): try container.encode(id, forKey: .openApp)
        case .run(let arguments): try container.encode(arguments, forKey: .run)
        }
    }
}
