import Foundation

/// A real CalDAV server for the sync tests: Radicale (Debian's radicale 3.1), on loopback at a
/// free port, with its own storage folder and one htpasswd user; stopped by PID when released.
public final class RadicaleServer: @unchecked Sendable {
    public let directory: String
    public let port: UInt16
    public let user = "alice"
    public let password = "correct horse battery"
    private var child: Subprocess.Child?

    /// The server's root URL, `http://127.0.0.1:PORT/`.
    public var root: String { "http://127.0.0.1:\(port)/" }
    /// The URL of a collection named `name` in the user's home.
    public func collection(_ name: String) -> String { root + user + "/" + name + "/" }
    public var log: String { directory + "/radicale.log" }

    public init() throws {
        let radicale = try Subprocess.find("radicale", package: "radicale")
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("reveille-radicale-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory + "/collections", withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try "\(user):\(password)\n".write(toFile: directory + "/users", atomically: true, encoding: .utf8)
        port = try Self.freePort()
        try """
            [server]
            hosts = 127.0.0.1:\(port)
            [auth]
            type = htpasswd
            htpasswd_filename = \(directory)/users
            htpasswd_encryption = plain
            delay = 0
            [rights]
            type = owner_only
            [storage]
            filesystem_folder = \(directory)/collections
            [logging]
            level = warning
            """.write(toFile: directory + "/config", atomically: true, encoding: .utf8)
        self.radicale = radicale
        try start()
    }

    private let radicale: String

    /// Starts the server (again, after `stop`, on the same port and storage) and waits until it listens.
    public func start() throws {
        child = try Subprocess.start(radicale, ["--config", directory + "/config"],
                                     environment: ProcessInfo.processInfo.environment, stderr: log)
        do {
            try eventually(timeout: 20, "Radicale to listen on 127.0.0.1:\(port)") { Self.accepts(port) ? true : nil }
        } catch {
            stop()
            throw Subprocess.Failure("\(error); its log: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Stops the server (SIGTERM, then SIGKILL): "the server killed mid-sync".
    public func stop() {
        child?.terminate()
        child = nil
    }

    /// A port nothing listens on now (bound, then released for Radicale).
    public static func freePort() throws -> UInt16 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: 0, sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw Subprocess.Failure("no free port on 127.0.0.1: \(String(cString: strerror(errno)))") }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Whether something accepts a TCP connection at 127.0.0.1:`port`.
    public static func accepts(_ port: UInt16) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: port.bigEndian, sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

extension TestSession {
    /// A Secret Service on this session's bus: gnome-keyring-daemon with a login keyring of
    /// its own (in this session's home), unlocked with a password given on its standard input.
    /// Returns it, for the caller to stop.
    public func startSecretService() throws -> Subprocess.Child {
        let keyring = try Subprocess.find("gnome-keyring-daemon", package: "gnome-keyring")
        var environment = self.environment
        environment["XDG_DATA_HOME"] = directory + "/home/.local/share"
        let child = try Subprocess.start("/bin/sh", ["-c", "printf 'test keyring' | exec \(keyring) --foreground --unlock --components=secrets"],
                                         environment: environment, stderr: directory + "/keyring.log")
        do { try waitForName("org.freedesktop.secrets", owned: true) } catch {
            child.terminate()
            throw error
        }
        return child
    }
}
