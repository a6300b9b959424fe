import FoundationEssentials
import Glibc
import ReveilleSystem

/// The displays in the agent's environment that this session owns: a window is never opened
/// on any other. The agent may be started by D-Bus activation with an activation environment
/// left from another login, or be given a remote or another user's display; only a local
/// socket whose server runs as this user qualifies (for X11 also root, as display managers run
/// Xorg; X's own authorization then decides). The window gets only the qualifying variables.
package struct SessionDisplay: Equatable {
    /// The variables to give the window: `DISPLAY` and/or `WAYLAND_DISPLAY`, each owned.
    package var environment: [String: String]
    /// Why each display that was named was left out, for the log.
    package var refused: [String]

    package var isEmpty: Bool { environment.isEmpty }

    /// The owned displays of `environment`; `serverUID` finds who serves a socket path
    /// (`nil`: nobody listens), `uid` is this user's.
    package static func of(_ environment: [String: String], uid: uid_t = CurrentProcess.userID,
                   serverUID: (SocketAddress) -> uid_t? = SessionDisplay.serverUID) -> SessionDisplay {
        var result = SessionDisplay(environment: [:], refused: [])
        for (key, sockets, allowsRoot) in [("WAYLAND_DISPLAY", waylandSockets(environment), false),
                                           ("DISPLAY", x11Sockets(environment["DISPLAY"]), true)] {
            guard let value = environment[key], !value.isEmpty else { continue }
            guard !sockets.isEmpty else {
                result.refused.append("\(key)=\(value) is not a local display")
                continue
            }
            guard let owner = sockets.lazy.compactMap(serverUID).first else {
                result.refused.append("\(key)=\(value): no server listens")
                continue
            }
            guard owner == uid || (allowsRoot && owner == 0) else {
                result.refused.append("\(key)=\(value) is served by user \(owner), not this session's user \(uid)")
                continue
            }
            result.environment[key] = value
        }
        return result
    }

    /// A Unix socket: a path, or a name in the abstract namespace.
    package typealias SocketAddress = LocalSocket.Address

    /// `:N`, `:N.S`, `unix:N` and `unix:N.S` are local X11 displays, at `/tmp/.X11-unix/XN`
    /// (or that name in the abstract namespace); a host name before the colon is remote.
    package static func x11Sockets(_ display: String?) -> [SocketAddress] {
        guard let display, let match = display.wholeMatch(of: /(?:unix)?:(\d{1,5})(?:\.\d{1,5})?/) else { return [] }
        let path = "/tmp/.X11-unix/X\(match.1)"
        return [.path(path), .abstract(path)]
    }

    /// `WAYLAND_DISPLAY`: an absolute path, or a name in `XDG_RUNTIME_DIR` (which must be absolute).
    package static func waylandSockets(_ environment: [String: String]) -> [SocketAddress] {
        guard let name = environment["WAYLAND_DISPLAY"], !name.isEmpty else { return [] }
        if name.hasPrefix("/") { return [.path(name)] }
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/"), !name.contains("/") else { return [] }
        return [.path(runtime + "/" + name)]
    }

    /// The user id of the process serving `address` (`SO_PEERCRED`), or `nil` when it cannot
    /// be reached.
    package static func serverUID(_ address: SocketAddress) -> uid_t? {
        try? LocalSocket.serverUserID(address)
    }
}
