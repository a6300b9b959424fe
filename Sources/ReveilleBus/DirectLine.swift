import CGLib
import ReveilleLoop
import ReveilleSystem
import SystemPackage

/// The agent's direct line: D-Bus spoken peer to peer on a socket in the user's runtime folder,
/// beside the bus, for the user's own tools. A flood of other clients' calls keeps the bus daemon
/// busy, and every new bus connection waits its turn there to be let in (5–11 s under 200
/// flooding connections, whatever the agent does); a `reveille stop` on this line waits for
/// nobody but the agent's gate.
///
/// Behind the same gate as the bus: each peer is named (`Peer.name`, a unique-name form no bus
/// gives), its process told by the kernel (`SO_PEERCRED`) and looked up as a bus caller's is, and
/// its calls admitted against the same budgets. Bounded: only the user's processes (the socket's
/// credentials and D-Bus's EXTERNAL authentication, and the folder is the user's alone), at most
/// `maximumAuthenticating` in authentication at once (a new one cancels the oldest), each for at
/// most `authenticationSeconds`, at most `maximumPeers` connected (a new one closes the longest connected: a short-lived CLI run
/// always gets in, and a flood of connections crowds out only itself).
@GLibActor
package final class DirectLine {
    /// A peer let in: its name in the gate, its process, its connection.
    package struct Peer {
        package let name: String
        package let processID: Int32
        package let connection: BusConnection
    }

    package static let maximumPeers = 32
    /// A socket's path: `sockaddr_un`'s 108 bytes, less the terminating NUL.
    package nonisolated static let maximumPathBytes = 107
    package static let maximumAuthenticating = 4
    package nonisolated static let authenticationSeconds: UInt32 = 2
    /// The prefix of every peer's name: `:reveille.N`, which no bus daemon gives (`:1.N`).
    package nonisolated static let namePrefix = ":reveille."

    /// Whether `sender` is a peer of a direct line, not a bus connection.
    package nonisolated static func isPeer(_ sender: String) -> Bool { sender.hasPrefix(namePrefix) }

    /// The socket of the agent on the bus at `busAddress`, in `runtimeDirectory`: named by the
    /// bus's address, so a tool finds the agent of its own bus (tests run many buses at once),
    /// and short (a socket's path holds at most 107 bytes).
    package nonisolated static func socketPath(runtimeDirectory: FilePath, busAddress: String) -> FilePath {
        let digest = g_compute_checksum_for_string(G_CHECKSUM_SHA256, busAddress, -1).map { pointer in
            defer { g_free(pointer) }
            return String(String(cString: pointer).prefix(16))
        } ?? "0"
        return runtimeDirectory.appending("reveille-agent-\(digest).socket")
    }

    /// The socket's path.
    package let path: FilePath
    /// `GSocketService*`, owned.
    nonisolated(unsafe) private let service: OpaquePointer
    /// The file bound: removed at the end only if it is still this one (an agent that replaced
    /// this one may have bound its own there meanwhile).
    private let bound: FileIdentity?
    private let guid: String
    private let opened: @GLibActor (Peer) -> Void
    private let closed: @GLibActor (String) -> Void
    /// Connected peers, oldest first.
    private var peers: [(name: String, connection: BusConnection, closedHandler: UInt)] = []
    /// Sockets in authentication, oldest first, by their cancellable.
    private var authenticating: [OpaquePointer] = []
    private var nextNumber = 1

    /// Listens at `path` (a socket left there by an agent that ended is replaced). `opened`
    /// hears each peer once authenticated, before its first message is read; `closed`, its name
    /// once it is gone (it closed, or was closed to make room).
    package init(path: FilePath, opened: @escaping @GLibActor (Peer) -> Void,
                 closed: @escaping @GLibActor (String) -> Void) throws(BusError) {
        self.path = path
        self.opened = opened
        self.closed = closed
        // GLib would cut a longer path short and bind there, silently.
        guard path.string.utf8.count <= Self.maximumPathBytes else {
            throw BusError(name: "org.freedesktop.DBus.Error.InvalidArgs",
                           message: "\(path) is \(path.string.utf8.count) bytes; a socket's path holds at most \(Self.maximumPathBytes)")
        }
        let folder = path.removingLastComponent()
        guard let status = try? folder.status(followingLinks: false), status.kind == .directory,
              status.owner == CurrentProcess.userID, status.permissions & 0o077 == 0 else {
            throw BusError(name: "org.freedesktop.DBus.Error.AccessDenied",
                           message: "\(folder) is not a folder private to this user (0700); no direct line is opened there")
        }
        try? path.removeFile()
        let guidText = g_dbus_generate_guid()
        guid = guidText.map { String(cString: $0) } ?? ""
        g_free(guidText)
        service = OpaquePointer(g_socket_service_new())
        let address = g_unix_socket_address_new(path.string)
        defer { g_object_unref(UnsafeMutableRawPointer(address)) }
        var error: UnsafeMutablePointer<GError>?
        guard g_socket_listener_add_address(UnsafeMutablePointer(service), address, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT,
                                            nil, nil, &error) != 0 else {
            g_object_unref(UnsafeMutableRawPointer(service))
            throw BusError(consuming: error)
        }
        // Bound through the process's umask; made the user's alone at once (the folder is already).
        try? path.setPermissions([.ownerRead, .ownerWrite])
        bound = try? path.status(followingLinks: false).identity
        typealias Incoming = @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> gboolean
        let incoming: Incoming = { _, connection, _, userData in
            let accept = CallbackBox<@GLibActor (OpaquePointer) -> Void>.from(userData)
            if let connection { GLibActor.assumeIsolated { accept(connection) } }
            return 1
        }
        let accept: @GLibActor (OpaquePointer) -> Void = { [weak self] connection in self?.accept(connection) }
        g_signal_connect_data(UnsafeMutableRawPointer(service), "incoming", unsafeBitCast(incoming, to: GCallback.self),
                              CallbackBox(accept).retainedPointer, { data, _ in releaseCallbackBox(data) }, GConnectFlags(rawValue: 0))
        g_socket_service_start(UnsafeMutablePointer(service))
    }

    isolated deinit {
        g_socket_service_stop(UnsafeMutablePointer(service))
        g_socket_listener_close(UnsafeMutablePointer(service))
        g_object_unref(UnsafeMutableRawPointer(service))
        for peer in peers { peer.connection.disconnect(peer.closedHandler) }
        if let bound, (try? path.status(followingLinks: false).identity) == bound { try? path.removeFile() }
    }

    /// The peers connected now.
    package var peerCount: Int { peers.count }

    /// A socket accepted: the user's, and room for its authentication, or it is closed at once.
    private func accept(_ socketConnection: OpaquePointer) {
        let stream = UnsafeMutablePointer<GIOStream>(socketConnection)
        let credentials = g_socket_get_credentials(g_socket_connection_get_socket(UnsafeMutablePointer(socketConnection)), nil)
        defer { if let credentials { g_object_unref(UnsafeMutableRawPointer(credentials)) } }
        let processID = credentials.map { g_credentials_get_unix_pid($0, nil) } ?? -1
        // The user's own tools only: a sandboxed app (one that reaches the socket with Flatpak's
        // access to the runtime folder), or a process whose sandbox cannot be told, calls by the
        // bus, whose daemon bounds what it sends (here, GDBus would read 32 messages of 128 MiB,
        // 4 GB, before any filter saw one).
        guard let credentials, g_credentials_get_unix_user(credentials, nil) == CurrentProcess.userID, processID > 0,
              FlatpakInfo.of(pid: processID) == .absent else {
            g_io_stream_close(stream, nil, nil)
            return
        }
        // A real client authenticates in a moment: one that holds a place longest gives it up,
        // so sockets that never speak cannot keep the user's next one out.
        if authenticating.count >= Self.maximumAuthenticating {
            g_cancellable_cancel(UnsafeMutablePointer(authenticating.removeFirst()))
        }
        let cancellable = g_cancellable_new()!
        authenticating.append(OpaquePointer(cancellable))
        // Authentication runs on a thread of GIO's; one that does not finish in time is cancelled.
        let timeout = g_timeout_source_new_seconds(Self.authenticationSeconds)!
        g_source_set_callback(timeout, { data in
            g_cancellable_cancel(data?.assumingMemoryBound(to: GCancellable.self))
            return gboolean(G_SOURCE_REMOVE)
        }, UnsafeMutableRawPointer(cancellable), nil)
        g_source_attach(timeout, g_main_context_default())
        let flags = GDBusConnectionFlags(rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_SERVER.rawValue
                                         | G_DBUS_CONNECTION_FLAGS_DELAY_MESSAGE_PROCESSING.rawValue
                                         | G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_REQUIRE_SAME_USER.rawValue)
        let done: @GLibActor (OpaquePointer?) -> Void = { [weak self] connection in
            // Destroyed whether it fired or not, before the cancellable it names goes.
            g_source_destroy(timeout)
            g_source_unref(timeout)
            defer { g_object_unref(UnsafeMutableRawPointer(cancellable)) }
            guard let self else {
                if let connection { g_object_unref(UnsafeMutableRawPointer(connection)) }
                return
            }
            self.authenticating.removeAll { $0 == OpaquePointer(cancellable) }
            guard let connection else { return }
            self.admit(BusConnection(peer: connection), processID: processID)
        }
        g_dbus_connection_new(stream, guid, flags, nil, cancellable, { _, result, userData in
            let done = CallbackBox<@GLibActor (OpaquePointer?) -> Void>.take(userData)
            let connection = g_dbus_connection_new_finish(result, nil)
            GLibActor.assumeIsolated { done(connection) }
        }, CallbackBox(done).retainedPointer)
    }

    /// An authenticated peer: named, heard of when it closes, told to `opened`, then read.
    private func admit(_ connection: BusConnection, processID: Int32) {
        if peers.count >= Self.maximumPeers { close(peers[0].name) }
        let name = Self.namePrefix + String(nextNumber)
        nextNumber += 1
        let handler = connection.onClosed { [weak self] in self?.close(name) }
        peers.append((name, connection, handler))
        opened(Peer(name: name, processID: processID, connection: connection))
        connection.startMessageProcessing()
    }

    /// Closes the peer `name` (if it still is) and tells `closed`.
    private func close(_ name: String) {
        guard let index = peers.firstIndex(where: { $0.name == name }) else { return }
        let peer = peers.remove(at: index)
        peer.connection.disconnect(peer.closedHandler)
        peer.connection.close()
        closed(name)
    }

    /// A connection to the direct line of the agent on the bus at `busAddress`, or `nil` where
    /// there is none (no agent listens, or the socket is not the user's): the caller then goes by the bus.
    package nonisolated static func connect(runtimeDirectory: String, busAddress: String) -> BusConnection? {
        connect(socketPath(runtimeDirectory: FilePath(runtimeDirectory), busAddress: busAddress))
    }

    /// A connection to the direct line at `path`, or `nil` where there is none: no socket of the
    /// user's there, nobody listening, a server that is not the user's unconfined process (a
    /// sandboxed app that reached the runtime folder could bind its own there), or one that does
    /// not authenticate within `authenticationSeconds` (an agent stopped, a socket that never
    /// answers). The caller then goes by the bus.
    package nonisolated static func connect(_ path: FilePath) -> BusConnection? {
        guard path.string.utf8.count <= maximumPathBytes, let status = try? path.status(followingLinks: false),
              status.owner == CurrentProcess.userID else { return nil }
        let address = g_unix_socket_address_new(path.string)
        defer { g_object_unref(UnsafeMutableRawPointer(address)) }
        let client = g_socket_client_new()
        defer { g_object_unref(UnsafeMutableRawPointer(client)) }
        guard let socketConnection = g_socket_client_connect(client, OpaquePointer(address), nil, nil) else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(socketConnection)) }
        let credentials = g_socket_get_credentials(g_socket_connection_get_socket(socketConnection), nil)
        defer { if let credentials { g_object_unref(UnsafeMutableRawPointer(credentials)) } }
        let server = credentials.map { g_credentials_get_unix_pid($0, nil) } ?? -1
        guard let credentials, g_credentials_get_unix_user(credentials, nil) == CurrentProcess.userID, server > 0,
              FlatpakInfo.of(pid: server) == .absent else { return nil }
        // Authenticated on a context of this call's own, with a deadline: GDBus's blocking
        // authentication has none.
        let context = g_main_context_new()
        g_main_context_push_thread_default(context)
        defer {
            g_main_context_pop_thread_default(context)
            g_main_context_unref(context)
        }
        final class Outcome { var connection: OpaquePointer?; var done = false }
        let outcome = Outcome()
        let cancellable = g_cancellable_new()
        defer { g_object_unref(UnsafeMutableRawPointer(cancellable)) }
        g_dbus_connection_new(UnsafeMutableRawPointer(socketConnection).assumingMemoryBound(to: GIOStream.self), nil,
                              G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT, nil, cancellable, { _, result, userData in
            let outcome = CallbackBox<Outcome>.take(userData)
            outcome.connection = g_dbus_connection_new_finish(result, nil)
            outcome.done = true
        }, CallbackBox(outcome).retainedPointer)
        let deadline = g_timeout_source_new_seconds(authenticationSeconds)!
        g_source_set_callback(deadline, { data in
            g_cancellable_cancel(data?.assumingMemoryBound(to: GCancellable.self))
            return gboolean(G_SOURCE_REMOVE)
        }, UnsafeMutableRawPointer(cancellable), nil)
        g_source_attach(deadline, context)
        while !outcome.done { g_main_context_iteration(context, 1) }
        g_source_destroy(deadline)
        g_source_unref(deadline)
        guard let connection = outcome.connection else { return nil }
        return BusConnection(peer: connection)
    }
}
