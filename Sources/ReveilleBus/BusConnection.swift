import CGLib
import ReveilleLoop

/// A connection to a D-Bus bus (GDBus's `GDBusConnection`), isolated to the GLib loop.
@GLibActor
package final class BusConnection {
    /// `GDBusConnection*`, owned (one reference).
    nonisolated(unsafe) private let connection: OpaquePointer

    private nonisolated init(connection: OpaquePointer) { self.connection = connection }

    /// A peer-to-peer connection of a `DirectLine`, accepted or made (its reference is taken
    /// over). GDBus leaves such a connection's exit-on-close off: a closed one ends nothing.
    nonisolated init(peer connection: OpaquePointer) { self.connection = connection }

    deinit { g_object_unref(UnsafeMutableRawPointer(connection)) }

    /// The session bus of `DBUS_SESSION_BUS_ADDRESS` (`g_bus_get_sync`), a new private
    /// connection so that closing it does not affect other users in the process.
    package nonisolated static func session() throws(BusError) -> BusConnection {
        var error: UnsafeMutablePointer<GError>?
        let address = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, nil, &error)
        guard let address else { throw BusError(consuming: error) }
        defer { g_free(address) }
        return try connect(address: String(cString: address))
    }

    /// The system bus of `DBUS_SYSTEM_BUS_ADDRESS`, or the usual socket (`g_dbus_address_get_for_bus_sync`),
    /// as a new private connection.
    package nonisolated static func system() throws(BusError) -> BusConnection {
        var error: UnsafeMutablePointer<GError>?
        let address = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SYSTEM, nil, &error)
        guard let address else { throw BusError(consuming: error) }
        defer { g_free(address) }
        return try connect(address: String(cString: address))
    }

    /// Keeps GIO's shared session-bus connection (`g_bus_get_sync`, which libraries such as
    /// GSettings' dconf backend use) from raising SIGTERM when the bus goes away: by default it
    /// exits the process on close, which would turn "lost the bus" into a clean stop. Held for
    /// the life of the process, so a library that asks later gets this same connection.
    package nonisolated static func keepSharedSessionBusFromExiting() {
        guard let shared = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, nil) else { return }
        g_dbus_connection_set_exit_on_close(shared, 0)
        // Deliberately not released: the singleton must outlive every user of it.
    }

    /// A new connection to the message bus at `address` (`g_dbus_connection_new_for_address_sync`).
    package nonisolated static func connect(address: String) throws(BusError) -> BusConnection {
        var error: UnsafeMutablePointer<GError>?
        let flags = GDBusConnectionFlags(rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                                         | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        guard let connection = g_dbus_connection_new_for_address_sync(address, flags, nil, nil, &error) else {
            throw BusError(consuming: error)
        }
        // A lost bus must not kill a process with alarms to ring; callers watch `closed` instead.
        g_dbus_connection_set_exit_on_close(connection, 0)
        return BusConnection(connection: connection)
    }

    /// The session bus's address as GIO finds it (`DBUS_SESSION_BUS_ADDRESS`, else the user's
    /// runtime folder's `bus`), the same in every process of the session.
    package nonisolated static func sessionAddress() -> String? {
        guard let address = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, nil, nil) else { return nil }
        defer { g_free(address) }
        return String(cString: address)
    }

    /// `handler` hears the connection close (its `closed` signal); returns the handler's id for `disconnect`.
    func onClosed(_ handler: @escaping @GLibActor () -> Void) -> UInt {
        typealias Closed = @convention(c) (OpaquePointer?, gboolean, UnsafeMutablePointer<GError>?, UnsafeMutableRawPointer?) -> Void
        let closed: Closed = { _, _, _, userData in
            let handler = CallbackBox<@GLibActor () -> Void>.from(userData)
            GLibActor.assumeIsolated { handler() }
        }
        return UInt(g_signal_connect_data(UnsafeMutableRawPointer(connection), "closed", unsafeBitCast(closed, to: GCallback.self),
                                          CallbackBox(handler).retainedPointer, { data, _ in releaseCallbackBox(data) },
                                          GConnectFlags(rawValue: 0)))
    }

    /// Removes a handler `onClosed` added.
    func disconnect(_ handler: UInt) { g_signal_handler_disconnect(UnsafeMutableRawPointer(connection), gulong(handler)) }

    /// Closes the connection now (`g_dbus_connection_close`, not waiting).
    func close() { g_dbus_connection_close(connection, nil, nil, nil) }

    /// Starts reading a connection made with `DELAY_MESSAGE_PROCESSING`, once its objects are in place.
    func startMessageProcessing() { g_dbus_connection_start_message_processing(connection) }

    /// A new private connection to the session bus, made without blocking
    /// (`g_dbus_connection_new_for_address`): `made` hears it, or why not, later, on the loop.
    /// For what the agent connects while it runs: the bus's authentication and `Hello` queue
    /// behind whatever floods the bus daemon, and a blocking connect would hold the loop, and
    /// the alarm due meanwhile, as long (a GetAll flood held one 10 s).
    package static func connectToSession(_ made: @escaping @GLibActor (Result<BusConnection, BusError>) -> Void) {
        var error: UnsafeMutablePointer<GError>?
        guard let address = g_dbus_address_get_for_bus_sync(G_BUS_TYPE_SESSION, nil, &error) else {
            return made(.failure(BusError(consuming: error)))
        }
        defer { g_free(address) }
        let flags = GDBusConnectionFlags(rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                                         | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        let box = CallbackBox(made)
        g_dbus_connection_new_for_address(address, flags, nil, nil, { _, result, userData in
            let made = CallbackBox<@GLibActor (Result<BusConnection, BusError>) -> Void>.take(userData)
            var error: UnsafeMutablePointer<GError>?
            let answer: Result<BusConnection, BusError>
            if let connection = g_dbus_connection_new_for_address_finish(result, &error) {
                g_dbus_connection_set_exit_on_close(connection, 0)
                answer = .success(BusConnection(connection: connection))
            } else {
                answer = .failure(BusError(consuming: error))
            }
            GLibActor.assumeIsolated { made(answer) }
        }, box.retainedPointer)
    }

    /// Calls a method (`g_dbus_connection_call`) and returns the reply's arguments. Every call
    /// says whether it may start `destination` by D-Bus activation (`autoStart`): no default,
    /// so the asynchronous and blocking calls cannot differ by accident.
    package func call(destination: String, path: String, interface: String, method: String,
                     arguments: [Variant] = [], timeoutMilliseconds: Int32 = 25_000,
                     autoStart: Bool) async throws(BusError) -> [Variant] {
        let result: Result<[Variant], BusError> = await withCheckedContinuation { continuation in
            call(destination: destination, path: path, interface: interface, method: method, arguments: arguments,
                 timeoutMilliseconds: timeoutMilliseconds, autoStart: autoStart) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Calls a method (`g_dbus_connection_call`) without blocking: `reply` hears the reply's
    /// arguments or the error later, on the loop. A callback, not an `await`, for the agent's
    /// paths that must never wait on a peer nor start Swift's global executor.
    /// `destination` is `nil` on a peer-to-peer connection (a `DirectLine`'s), which has no names.
    package func call(destination: String?, path: String, interface: String, method: String,
                     arguments: [Variant] = [], timeoutMilliseconds: Int32 = 25_000, autoStart: Bool,
                     reply: @escaping @GLibActor (Result<[Variant], BusError>) -> Void) {
        let box = CallbackBox((connection, reply))
        g_dbus_connection_call(
            connection, destination, path, interface, method,
            Variant.tuple(arguments).makeGVariant(), nil,
            autoStart ? G_DBUS_CALL_FLAGS_NONE : G_DBUS_CALL_FLAGS_NO_AUTO_START,
            timeoutMilliseconds, nil,
            { _, result, userData in
                let (connection, reply) = CallbackBox<(OpaquePointer, @GLibActor (Result<[Variant], BusError>) -> Void)>.take(userData)
                var error: UnsafeMutablePointer<GError>?
                let answer: Result<[Variant], BusError>
                if let value = g_dbus_connection_call_finish(connection, result, &error) {
                    if case .tuple(let values) = Variant(value) { answer = .success(values) } else { answer = .success([]) }
                    g_variant_unref(value)
                } else {
                    answer = .failure(BusError(consuming: error))
                }
                GLibActor.assumeIsolated { reply(answer) }
            },
            box.retainedPointer)
    }

    /// Calls a method (`g_dbus_connection_call`) for a client (ReveilleKit's `AgentClient`): made
    /// on the client calls' thread, whose context hears the reply, so no thread waits for it and
    /// any number can be awaited at once. Cancelling the awaiting task cancels the call (GDBus
    /// then answers at once with `BusError.isCancellation`). `destination` is `nil` on a
    /// peer-to-peer connection (a `DirectLine`'s), which has no names.
    @ClientCallActor
    package func callFromClient(destination: String?, path: String, interface: String, method: String,
                                arguments: [Variant] = [], timeoutMilliseconds: Int32, autoStart: Bool) async throws(BusError) -> [Variant] {
        let cancellable = Cancellable()
        let result: Result<[Variant], BusError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let box = CallbackBox((connection, continuation))
                g_dbus_connection_call(
                    connection, destination, path, interface, method,
                    Variant.tuple(arguments).makeGVariant(), nil,
                    autoStart ? G_DBUS_CALL_FLAGS_NONE : G_DBUS_CALL_FLAGS_NO_AUTO_START,
                    timeoutMilliseconds, cancellable.pointer,
                    { _, result, userData in
                        let (connection, continuation) = CallbackBox<(OpaquePointer, CheckedContinuation<Result<[Variant], BusError>, Never>)>
                            .take(userData)
                        var error: UnsafeMutablePointer<GError>?
                        if let value = g_dbus_connection_call_finish(connection, result, &error) {
                            defer { g_variant_unref(value) }
                            guard case .tuple(let values) = Variant(value) else { return continuation.resume(returning: .success([])) }
                            continuation.resume(returning: .success(values))
                        } else {
                            continuation.resume(returning: .failure(BusError(consuming: error)))
                        }
                    },
                    box.retainedPointer)
            }
        } onCancel: {
            cancellable.cancel()
        }
        return try result.get()
    }

    /// A `GCancellable`, which may be cancelled from any thread.
    private final class Cancellable: @unchecked Sendable {
        let pointer = g_cancellable_new()
        func cancel() { g_cancellable_cancel(pointer) }
        deinit { g_object_unref(UnsafeMutableRawPointer(pointer)) }
    }

    /// Calls a method whose reply carries file descriptors (`g_dbus_connection_call_with_unix_fd_list`),
    /// without blocking: `reply` hears the arguments (a `h` argument is an index into the
    /// descriptors) and the descriptors, which the caller then owns and must close.
    package func callReturningDescriptors(destination: String, path: String, interface: String, method: String,
                                         arguments: [Variant] = [], timeoutMilliseconds: Int32 = 25_000,
                                         reply: @escaping @GLibActor (Result<(arguments: [Variant], descriptors: [Int32]), BusError>) -> Void) {
        let box = CallbackBox((connection, reply))
        g_dbus_connection_call_with_unix_fd_list(
            connection, destination, path, interface, method, Variant.tuple(arguments).makeGVariant(), nil,
            G_DBUS_CALL_FLAGS_NONE, timeoutMilliseconds, nil, nil,
            { _, result, userData in
                let (connection, reply) = CallbackBox<(OpaquePointer, @GLibActor (Result<(arguments: [Variant], descriptors: [Int32]), BusError>) -> Void)>
                    .take(userData)
                var error: UnsafeMutablePointer<GError>?
                var list: UnsafeMutablePointer<GUnixFDList>?
                let answer: Result<(arguments: [Variant], descriptors: [Int32]), BusError>
                if let value = g_dbus_connection_call_with_unix_fd_list_finish(connection, &list, result, &error) {
                    var descriptors: [Int32] = []
                    if let list {
                        var count: Int32 = 0
                        if let stolen = g_unix_fd_list_steal_fds(list, &count) {
                            descriptors = Array(UnsafeBufferPointer(start: stolen, count: Int(count)))
                            g_free(stolen)
                        }
                        g_object_unref(list)
                    }
                    let values: [Variant]
                    if case .tuple(let all) = Variant(value) { values = all } else { values = [] }
                    g_variant_unref(value)
                    answer = .success((values, descriptors))
                } else {
                    answer = .failure(BusError(consuming: error))
                }
                GLibActor.assumeIsolated { reply(answer) }
            },
            box.retainedPointer)
    }

    /// Calls a method without waiting for or reading the reply (`g_dbus_connection_call`
    /// with no callback); D-Bus activation of the destination still happens.
    package func send(destination: String, path: String, interface: String, method: String, arguments: [Variant] = []) {
        g_dbus_connection_call(connection, destination, path, interface, method, Variant.tuple(arguments).makeGVariant(),
                               nil, G_DBUS_CALL_FLAGS_NONE, -1, nil, nil, nil)
    }

    /// Calls a method and waits for the reply on this thread (`g_dbus_connection_call_sync`).
    /// Safe from any thread, the loop's included: GDBus waits for the reply on a context of
    /// its own, so a call made on the loop thread does not need the loop to run.
    package nonisolated func callSync(destination: String?, path: String, interface: String, method: String,
                                     arguments: [Variant] = [], timeoutMilliseconds: Int32 = 1000,
                                     autoStart: Bool) throws(BusError) -> [Variant] {
        var error: UnsafeMutablePointer<GError>?
        guard let reply = g_dbus_connection_call_sync(connection, destination, path, interface, method,
                                                      Variant.tuple(arguments).makeGVariant(), nil,
                                                      autoStart ? G_DBUS_CALL_FLAGS_NONE : G_DBUS_CALL_FLAGS_NO_AUTO_START,
                                                      timeoutMilliseconds, nil, &error) else {
            throw BusError(consuming: error)
        }
        defer { g_variant_unref(reply) }
        guard case .tuple(let values) = Variant(reply) else { return [] }
        return values
    }

    /// Emits a signal (`g_dbus_connection_emit_signal`); to `destination` only when given.
    package func emitSignal(destination: String? = nil, path: String, interface: String, name: String,
                           arguments: [Variant]) throws(BusError) {
        var error: UnsafeMutablePointer<GError>?
        guard g_dbus_connection_emit_signal(connection, destination, path, interface, name,
                                            Variant.tuple(arguments).makeGVariant(), &error) != 0 else {
            throw BusError(consuming: error)
        }
    }

    /// Emits one signal to each of `destinations`, its arguments converted once. Once
    /// `flushEvery` bytes have been queued the queue is flushed (`g_dbus_connection_flush_sync`;
    /// the bus daemon reads at once, whoever the recipients are), so what waits in this process
    /// stays within that many bytes however many recipients there are. Returns those it failed for.
    package func emitSignal(to destinations: [String], path: String, interface: String, name: String,
                           arguments: [Variant], flushEvery: Int) -> [(destination: String, error: BusError)] {
        let parameters = g_variant_ref_sink(Variant.tuple(arguments).makeGVariant())
        defer { g_variant_unref(parameters) }
        let size = Int(g_variant_get_size(parameters))
        var queued = 0
        var failures: [(destination: String, error: BusError)] = []
        for destination in destinations {
            var error: UnsafeMutablePointer<GError>?
            if g_dbus_connection_emit_signal(connection, destination, path, interface, name, parameters, &error) == 0 {
                failures.append((destination, BusError(consuming: error)))
                continue
            }
            queued += size
            if queued >= flushEvery {
                flush()
                queued = 0
            }
        }
        return failures
    }

    /// A received signal: who sent it, and its arguments.
    package struct Signal {
        package var sender: String
        package var path: String
        package var name: String
        package var arguments: [Variant]
    }

    /// Subscribes to signals (`g_dbus_connection_signal_subscribe`); `nil` matches anything.
    /// Returns the id for `unsubscribe`.
    @discardableResult
    package func subscribe(sender: String?, interface: String?, name: String?, path: String?, firstArgument: String? = nil,
                          handler: @escaping @GLibActor (Signal) -> Void) -> UInt32 {
        let box = CallbackBox(handler)
        return g_dbus_connection_signal_subscribe(
            connection, sender, interface, name, path, firstArgument, G_DBUS_SIGNAL_FLAGS_NONE,
            { _, sender, path, _, name, parameters, userData in
                let handler = CallbackBox<@GLibActor (Signal) -> Void>.from(userData)
                var arguments: [Variant] = []
                if let parameters, case .tuple(let values) = Variant(parameters) { arguments = values }
                let signal = Signal(sender: sender.map { String(cString: $0) } ?? "",
                                    path: path.map { String(cString: $0) } ?? "",
                                    name: name.map { String(cString: $0) } ?? "", arguments: arguments)
                GLibActor.assumeIsolated { handler(signal) }
            },
            box.retainedPointer, releaseCallbackBox)
    }

    package func unsubscribe(_ id: UInt32) {
        g_dbus_connection_signal_unsubscribe(connection, id)
    }

    /// Exports an object implementing the interfaces described by `introspectionXML`
    /// (`g_dbus_connection_register_object`); every method call goes to `handler`,
    /// which must answer it exactly once. A call whose serialized arguments are larger than
    /// `maximumArgumentBytes` reaches `handler` with no arguments converted
    /// (`MethodCall.isOversized`), so its size costs nothing beyond what GDBus already read.
    /// `properties` answers the interfaces' readable properties (`org.freedesktop.DBus.Properties`'
    /// Get and GetAll) by interface and name; `nil` from it is an unknown property.
    /// Refused on a connection that has an `ExportGate`: its objects are exported through it.
    @discardableResult
    package func register(path: String, introspectionXML: String, maximumArgumentBytes: Int = .max,
                         properties: (@GLibActor (_ interface: String, _ name: String) -> Variant?)? = nil,
                         handler: @escaping @GLibActor (MethodCall) -> Void) throws(BusError) -> [UInt32] {
        guard !isGated else {
            throw BusError(name: "org.freedesktop.DBus.Error.AccessDenied",
                           message: "\(path) is exported on a connection with a gate; export it through the connection's ExportGate")
        }
        let answer = properties.map { properties in
            { @GLibActor (_: String, interface: String, name: String) -> Result<Variant, BusError> in
                properties(interface, name).map { .success($0) } ?? .failure(BusConnection.unknownProperty(name, in: interface))
            }
        }
        return try registerObject(path: path, introspectionXML: introspectionXML, maximumArgumentBytes: maximumArgumentBytes,
                                  properties: answer, handler: handler)
    }

    /// Set by the connection's `ExportGate`: from then on `register` refuses, and only the gate exports.
    /// This connection's unique name on the bus (`:1.42`).
    package var uniqueName: String { g_dbus_connection_get_unique_name(connection).map { String(cString: $0) } ?? "" }

    var isGated = false

    nonisolated static func unknownProperty(_ name: String, in interface: String) -> BusError {
        BusError(name: "org.freedesktop.DBus.Error.UnknownProperty", message: "no readable property \(name) in \(interface)")
    }

    /// `register`'s work, for the gate too: `properties` hears the caller's unique name and
    /// answers a value or the error to return; `propertyAnswered` hears the size of each answer.
    /// `properties == nil` with `propertiesAsCalls`: `org.freedesktop.DBus.Properties`' Get, GetAll
    /// and Set reach `handler` as calls (GDBus hands them over when there is no getter), to be
    /// admitted and answered like any other call (the gate's, whose admission may wait).
    func registerObject(path: String, introspectionXML: String, maximumArgumentBytes: Int,
                        properties: (@GLibActor (_ sender: String, _ interface: String, _ name: String) -> Result<Variant, BusError>)?,
                        propertyAnswered: (@GLibActor (_ sender: String, _ bytes: Int) -> Void)? = nil,
                        handler: @escaping @GLibActor (MethodCall) -> Void) throws(BusError) -> [UInt32] {
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(introspectionXML, &error) else { throw BusError(consuming: error) }
        defer { g_dbus_node_info_unref(node) }
        var index = 0
        var registrations: [UInt32] = []
        while let interface = node.pointee.interfaces[index] {
            var vtable = GDBusInterfaceVTable()
            vtable.method_call = { _, sender, _, interface, method, parameters, invocation, userData in
                let (handler, limit, _, _) = CallbackBox<Registration>.from(userData)
                let call = MethodCall(invocation: invocation!, sender: sender.map { String(cString: $0) } ?? "",
                                      interface: interface.map { String(cString: $0) } ?? "",
                                      method: method.map { String(cString: $0) } ?? "", parameters: parameters, limit: limit)
                GLibActor.assumeIsolated { handler(call) }
            }
            if properties != nil { vtable.get_property = { _, sender, _, interface, name, error, userData in
                let (_, _, properties, answered) = CallbackBox<Registration>.from(userData)
                let sender = sender.map { String(cString: $0) } ?? ""
                let interface = interface.map { String(cString: $0) } ?? "", name = name.map { String(cString: $0) } ?? ""
                let answer = GLibActor.assumeIsolated { properties?(sender, interface, name) } ?? .failure(BusConnection.unknownProperty(name, in: interface))
                switch answer {
                case .success(let value):
                    let variant = value.makeGVariant()
                    GLibActor.assumeIsolated { answered?(sender, Int(g_variant_get_size(variant))) }
                    return variant
                case .failure(let refusal):
                    GLibActor.assumeIsolated { answered?(sender, refusal.name.utf8.count + refusal.message.utf8.count) }
                    g_propagate_error(error, g_dbus_error_new_for_dbus_error(refusal.name, refusal.message))
                    return nil
                }
            } }
            let box = CallbackBox((handler, maximumArgumentBytes, properties, propertyAnswered) as Registration)
            let registration = g_dbus_connection_register_object(connection, path, interface, &vtable, box.retainedPointer,
                                                                 releaseCallbackBox, &error)
            guard registration != 0 else {
                unregister(registrations)
                throw BusError(consuming: error)
            }
            registrations.append(registration)
            index += 1
        }
        return registrations
    }

    /// The readable properties of each interface `introspectionXML` describes, by interface.
    nonisolated static func readableProperties(in introspectionXML: String) -> [String: [String]] {
        guard let node = g_dbus_node_info_new_for_xml(introspectionXML, nil) else { return [:] }
        defer { g_dbus_node_info_unref(node) }
        var result: [String: [String]] = [:]
        var index = 0
        while let interface = node.pointee.interfaces[index] {
            var names: [String] = []
            var property = 0
            while let properties = interface.pointee.properties, let info = properties[property] {
                if info.pointee.flags.rawValue & G_DBUS_PROPERTY_INFO_FLAGS_READABLE.rawValue != 0 { names.append(String(cString: info.pointee.name)) }
                property += 1
            }
            result[String(cString: interface.pointee.name)] = names
            index += 1
        }
        return result
    }

    /// The interfaces `introspectionXML` describes, as `Introspect` lists them inside a node
    /// (`g_dbus_interface_info_generate_xml`, indented two spaces).
    nonisolated static func interfaceDescriptions(in introspectionXML: String) -> String {
        guard let node = g_dbus_node_info_new_for_xml(introspectionXML, nil) else { return "" }
        defer { g_dbus_node_info_unref(node) }
        let text = g_string_new(nil)
        var index = 0
        while let interface = node.pointee.interfaces[index] {
            g_dbus_interface_info_generate_xml(interface, 2, text)
            index += 1
        }
        guard let described = g_string_free(text, 0) else { return "" }
        defer { g_free(described) }
        return String(cString: described)
    }

    /// Removes objects `register` exported: no call reaches their handlers after this.
    package func unregister(_ registrations: [UInt32]) {
        for registration in registrations { g_dbus_connection_unregister_object(connection, registration) }
    }

    /// What `register` keeps for GDBus's callbacks: the method handler, the argument limit and the property getter.
    private typealias Registration = ((@GLibActor (MethodCall) -> Void), Int,
                                      (@GLibActor (String, String, String) -> Result<Variant, BusError>)?,
                                      (@GLibActor (String, Int) -> Void)?)

    /// What happened to a requested bus name.
    package enum NameEvent: Sendable {
        case acquired
        /// Another connection took the name (or had it first).
        case lost
        /// This connection to the bus closed: the bus went away.
        case connectionClosed
    }

    /// Requests a well-known name (`RequestName`, with `NameAcquired` and `NameLost` followed);
    /// `replace` takes it from an owner that allows replacement, and `allowReplacement` lets
    /// another take it so. `onEvent` hears each change: acquired; lost (another had it first, or
    /// took it); the connection closed. As GDBus's `g_bus_own_name`, except that nothing waits:
    /// GDBus gives a name up with a blocking `ReleaseName`, which held the agent's loop for as
    /// long as a flooded bus daemon took to answer (6 s under 50 connections' PlaySound flood,
    /// with the user's stop waiting behind it). Returns the id for `unownName`.
    @discardableResult
    package func ownName(_ name: String, replace: Bool, allowReplacement: Bool = true,
                         onEvent: @escaping @GLibActor (NameEvent) -> Void) -> UInt32 {
        nameRequests += 1
        let id = nameRequests
        let request = NameRequest(name: name, onEvent: onEvent)
        ownedNames[id] = request
        // Followed before asking, so an answer that comes first is not missed: the daemon sends
        // NameAcquired before its reply, NameLost whenever another takes the name.
        request.signals = subscribe(sender: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", name: nil,
                                    path: "/org/freedesktop/DBus", firstArgument: name) { [weak request] signal in
            switch signal.name {
            case "NameAcquired": request?.change(owned: true)
            case "NameLost": request?.change(owned: false)
            default: break
            }
        }
        request.closed = onClosed { [weak request] in request?.connectionClosed() }
        // DBUS_NAME_FLAG_ALLOW_REPLACEMENT 1, REPLACE_EXISTING 2; queued (as GDBus asks) when taken.
        let flags = UInt32(allowReplacement ? 1 : 0) | UInt32(replace ? 2 : 0)
        call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
             method: "RequestName", arguments: [.string(name), .uint32(flags)], autoStart: false) { [weak request] reply in
            guard let request else { return }
            // 1: the primary owner; 2: queued; 3: another owns it, no queue; 4: already the owner.
            switch reply {
            case .success(let values) where values.first?.uint32 == 1 || values.first?.uint32 == 4: request.change(owned: true)
            case .success: request.change(owned: false)
            case .failure: if g_dbus_connection_is_closed(self.connection) != 0 { request.connectionClosed() } else { request.change(owned: false) }
            }
        }
        return id
    }

    /// Gives up a name `ownName` asked for, without waiting for the bus's answer (`ReleaseName`
    /// is sent in order, before anything asked after it); its `onEvent` hears nothing more.
    package func unownName(_ id: UInt32) {
        guard let request = ownedNames.removeValue(forKey: id) else { return }
        request.onEvent = nil
        unsubscribe(request.signals)
        disconnect(request.closed)
        send(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
             method: "ReleaseName", arguments: [.string(request.name)])
    }

    /// The names asked for, by `ownName`'s id.
    private var ownedNames: [UInt32: NameRequest] = [:]
    private var nameRequests: UInt32 = 0

    /// One name asked for: its events told once per change.
    private final class NameRequest {
        let name: String
        var onEvent: (@GLibActor (NameEvent) -> Void)?
        var signals: UInt32 = 0
        var closed: UInt = 0
        private var owned: Bool?
        init(name: String, onEvent: @escaping @GLibActor (NameEvent) -> Void) {
            self.name = name
            self.onEvent = onEvent
        }
        @GLibActor func change(owned now: Bool) {
            // A first answer of "lost" is told (another had it first); after that, changes only.
            guard owned != now else { return }
            owned = now
            onEvent?(now ? .acquired : .lost)
        }
        @GLibActor func connectionClosed() {
            guard let onEvent else { return }
            self.onEvent = nil
            onEvent(.connectionClosed)
        }
    }

    /// Watches who owns a name (`g_bus_watch_name_on_connection`): `onChange` gets the owner's
    /// unique name when it appears and `nil` when it vanishes. Returns the id for `unwatchName`.
    @discardableResult
    package func watchName(_ name: String, onChange: @escaping @GLibActor (String?) -> Void) -> UInt32 {
        let box = CallbackBox(onChange)
        return g_bus_watch_name_on_connection(
            connection, name, G_BUS_NAME_WATCHER_FLAGS_NONE,
            { _, _, owner, userData in
                let onChange = CallbackBox<@GLibActor (String?) -> Void>.from(userData)
                let owner = owner.map { String(cString: $0) }
                GLibActor.assumeIsolated { onChange(owner) }
            },
            { _, _, userData in
                let onChange = CallbackBox<@GLibActor (String?) -> Void>.from(userData)
                GLibActor.assumeIsolated { onChange(nil) }
            },
            box.retainedPointer, releaseCallbackBox)
    }

    package func unwatchName(_ id: UInt32) { g_bus_unwatch_name(id) }

    /// The one filter of what arrives on a gated connection, on GDBus's own thread, before
    /// GDBus queues it for the loop:
    /// - every method call and signal from a peer is held to `budget` while it is alive (its
    ///   body compacted to its wire form first: GDBus builds it as a tree of values, twenty
    ///   times that size for many small items); past the budget a call is refused at once
    ///   (`LimitsExceeded`) and a signal dropped, neither costing more than its reading;
    /// - every `Introspect` call is taken from GDBus, which would answer it itself, outside
    ///   any gate, with the whole description of a path (a hundred times the call's size), and
    ///   handed to `introspect` on the loop, to be admitted and answered like any other call.
    /// (`org.freedesktop.DBus.Peer` is left to GDBus: its answers are no larger than the calls.)
    /// Returns the filter's id (`removeFilter`).
    /// On a peer-to-peer connection, whose messages carry no sender, each call and signal is
    /// given `peerName` as its sender first, so the gate and the handlers tell it apart as a
    /// bus's caller.
    func filterIncoming(budget: IncomingBudget, peerName: String? = nil, introspect: @escaping @GLibActor (MethodCall) -> Void) -> UInt32 {
        let box = CallbackBox(IncomingFilter(budget: budget, peerName: peerName, introspect: introspect))
        return g_dbus_connection_add_filter(connection, filterIncomingMessage, box.retainedPointer, releaseCallbackBox)
    }

    /// Removes a filter `filterIncoming` added.
    func removeFilter(_ id: UInt32) { g_dbus_connection_remove_filter(connection, id) }

    /// Sends everything queued and waits for it to leave (`g_dbus_connection_flush_sync`).
    package func flush() { g_dbus_connection_flush_sync(connection, nil, nil) }
}

/// A method call's arguments as a registration reads them from GDBus's parameters: converted
/// only when their serialized size is within the limit, so an oversized call costs nothing more.
package struct CallArguments: Sendable {
    /// The arguments; empty when oversized.
    package let values: [Variant]
    /// Their size as the bus carried them (`g_variant_get_size`).
    package let bytes: Int
    /// Larger than the limit: `values` is empty, and the call must be refused.
    package let isOversized: Bool

    init(parameters: OpaquePointer?, limit: Int) {
        bytes = parameters.map { Int(g_variant_get_size($0)) } ?? 0
        isOversized = bytes > limit
        if !isOversized, let parameters, case .tuple(let values) = Variant(parameters) { self.values = values } else { values = [] }
    }

    /// A message body as GDBus reads it from a peer: `bytes` taken as a tuple of `signature`
    /// (`g_variant_new_from_data`, untrusted: malformed data reads as the type's defaults),
    /// then read as above (for fuzzing what a peer can send).
    /// `nil` for bytes not in GVariant's normal form: GDBus builds every value it delivers
    /// from the wire with GVariant's constructors, so no handler ever gets one (and GLib 2.74
    /// aborts reading a child of some of them: an assertion in g_variant_serialised_get_child).
    package init?(serialized bytes: UnsafeRawBufferPointer, signature: String, limit: Int) {
        let type = g_variant_type_new("(\(signature))")
        defer { g_variant_type_free(type) }
        let parameters = g_variant_ref_sink(g_variant_new_from_data(type, bytes.baseAddress, gsize(bytes.count), 0, nil, nil))
        defer { g_variant_unref(parameters) }
        guard g_variant_is_normal_form(parameters) != 0 else { return nil }
        self.init(parameters: parameters, limit: limit)
    }

    /// `values` as a peer's call delivers them: serialized as one tuple, then read as above
    /// (for a handler fed in process what the bus would give it).
    package init(delivering values: [Variant], limit: Int) {
        let parameters = g_variant_ref_sink(Variant.tuple(values).makeGVariant())
        defer { g_variant_unref(parameters) }
        self.init(parameters: parameters, limit: limit)
    }
}

/// A method call to answer exactly once, with `reply` or `fail`: the bus's `MethodCall`, or a
/// test's call fed in process.
@GLibActor
package protocol IncomingCall: AnyObject {
    var sender: String { get }
    var method: String { get }
    var arguments: [Variant] { get }
    /// The size of the arguments as the bus carried them.
    var argumentBytes: Int { get }
    /// Larger than the registration allowed: `arguments` is empty, and the call must be refused.
    var isOversized: Bool { get }
    func reply(_ values: [Variant])
    func fail(name: String, message: String)
    /// Counts `seconds` of the loop's time, spent on the call after its handler returned (a
    /// change the runtime made in a later turn), on the caller's budget, as if spent while called.
    func charge(seconds: Double)
}

/// `BusConnection.filterIncoming`'s filter, on GDBus's worker thread: it only reads the
/// message, counts it, and posts what it takes to the loop (so it is no closure of the actor's).
private let filterIncomingMessage: GDBusMessageFilterFunction = { connection, received, incoming, userData in
    guard let connection, var message = received, incoming != 0 else { return received }
    let type = g_dbus_message_get_message_type(message)
    guard type == G_DBUS_MESSAGE_TYPE_METHOD_CALL || type == G_DBUS_MESSAGE_TYPE_SIGNAL else { return message }
    let filter = CallbackBox<IncomingFilter>.from(userData)
    if let peerName = filter.peerName {
        // A peer's message names no sender (whatever it wrote there is replaced): it is given the peer's name.
        guard let named = g_dbus_message_copy(message, nil) else {
            g_object_unref(UnsafeMutableRawPointer(message))
            return nil
        }
        g_dbus_message_set_sender(named, peerName)
        g_object_unref(UnsafeMutableRawPointer(message))
        message = named
    }
    guard let name = g_dbus_message_get_sender(message), strcmp(name, "org.freedesktop.DBus") != 0 else { return message }
    let sender = String(cString: name)
    let body = g_dbus_message_get_body(message)
    let bytes = IncomingBudget.cost(bodyBytes: body.map { Int(g_variant_get_size($0)) } ?? 0)
    guard filter.budget.take(bytes, from: sender) else {
        let answered = g_dbus_message_get_flags(message).rawValue & G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED.rawValue == 0
        if type == G_DBUS_MESSAGE_TYPE_METHOD_CALL, answered {
            let held = filter.budget.held(by: sender), most = filter.budget.limits.perSender
            let refusal = g_dbus_message_new_method_error_literal(
                message, "org.freedesktop.DBus.Error.LimitsExceeded",
                bytes > most ? "the call is \(bytes) bytes; reveille-agent takes at most \(most) from one connection at once"
                    : held > 0 ? "reveille-agent holds \(held) bytes of this connection's messages it has not finished with; wait for its answers before calling again"
                    : "reveille-agent holds all the messages it takes from every connection together; call again in a moment")
            g_dbus_connection_send_message(connection, refusal, G_DBUS_SEND_MESSAGE_FLAGS_NONE, nil, nil)
            g_object_unref(UnsafeMutableRawPointer(refusal))
        }
        g_object_unref(UnsafeMutableRawPointer(message))
        return nil
    }
    // GDBus builds a body as a tree of values, each of its own (2,000 clicks of 64 KiB: 1.6 MB),
    // and serialising it in place keeps the tree: a copy whose body is the wire form alone is
    // what waits, as small as the budget counts it.
    if let body, bytes >= IncomingBudget.compactFrom, let copy = g_dbus_message_copy(message, nil) {
        let serialised = g_variant_get_data_as_bytes(body)
        g_dbus_message_set_body(copy, g_variant_new_from_bytes(g_variant_get_type(body), serialised, 1))
        g_bytes_unref(serialised)
        g_object_unref(UnsafeMutableRawPointer(message))
        message = copy
    }
    // Given back when the message is freed, by whoever holds it last.
    g_object_set_data_full(UnsafeMutablePointer(message), "reveille-incoming-budget",
                           CallbackBox((filter.budget, sender, bytes)).retainedPointer, giveBackIncoming)
    guard type == G_DBUS_MESSAGE_TYPE_METHOD_CALL, let member = g_dbus_message_get_member(message),
          strcmp(member, "Introspect") == 0 else { return message }
    if let interface = g_dbus_message_get_interface(message), strcmp(interface, "org.freedesktop.DBus.Introspectable") != 0 {
        return message
    }
    g_object_ref(UnsafeMutableRawPointer(connection))
    let taken = CallbackBox(TakenCall(filter: filter, connection: connection, message: message))
    let source = g_idle_source_new()
    g_source_set_priority(source, G_PRIORITY_DEFAULT)
    g_source_set_callback(source, introspectOnTheLoop, taken.retainedPointer, nil)
    g_source_attach(source, g_main_context_default())
    g_source_unref(source)
    return nil
}

/// Runs an `Introspect` call the filter took, on the loop.
private let introspectOnTheLoop: GSourceFunc = { data in
    let taken = CallbackBox<TakenCall>.take(data)
    GLibActor.assumeIsolated { taken.filter.introspect(MethodCall(message: taken.message, connection: taken.connection, limit: 0)) }
    return gboolean(G_SOURCE_REMOVE)
}

/// Gives a freed message's bytes back to the budget that counted it (whichever thread frees it).
private let giveBackIncoming: GDestroyNotify = { data in
    let (budget, sender, bytes) = CallbackBox<(IncomingBudget, String, Int)>.take(data)
    budget.give(bytes, from: sender)
}

/// A call the filter took from GDBus, with a reference to its connection and its message.
private struct TakenCall: @unchecked Sendable {
    let filter: IncomingFilter
    let connection: OpaquePointer
    let message: OpaquePointer
}

/// What the incoming filter keeps: read on GDBus's thread; `introspect` is called on the loop only.
private struct IncomingFilter: @unchecked Sendable {
    let budget: IncomingBudget
    let peerName: String?
    let introspect: @GLibActor (MethodCall) -> Void
}

/// One incoming method call; answer it with `reply` or `fail`, exactly once.
@GLibActor
package final class MethodCall: IncomingCall {
    /// Where the answer goes: GDBus's invocation of a registered object's method (its reference,
    /// which the answer consumes), or a message the connection's filter took before GDBus
    /// answered it itself (`BusConnection.interceptIntrospection`), answered as a message.
    private enum Origin {
        case invocation(OpaquePointer)
        case message(connection: OpaquePointer, message: OpaquePointer)
    }
    nonisolated(unsafe) private let origin: Origin
    package let sender: String
    /// The object path called.
    package let path: String
    package let interface: String
    package let method: String
    /// The call's parameters as GDBus read them (one reference), converted when first asked for:
    /// a call the gate refuses costs no conversion.
    nonisolated(unsafe) private let parameters: OpaquePointer?
    private let limit: Int
    /// The arguments, converted on first use; empty when oversized.
    package private(set) lazy var arguments: [Variant] = CallArguments(parameters: parameters, limit: limit).values
    /// The size of the arguments as the bus carried them (`g_variant_get_size`).
    package let argumentBytes: Int
    /// Larger than the registration allowed: `arguments` is empty, and the call must be refused.
    package var isOversized: Bool { argumentBytes > limit }

    init(invocation: OpaquePointer, sender: String, interface: String, method: String, parameters: OpaquePointer?, limit: Int) {
        origin = .invocation(invocation)
        self.sender = sender
        path = g_dbus_method_invocation_get_object_path(invocation).map { String(cString: $0) } ?? ""
        self.interface = interface
        self.method = method
        self.parameters = parameters.map { g_variant_ref($0) }
        self.limit = limit
        argumentBytes = parameters.map { Int(g_variant_get_size($0)) } ?? 0
    }

    /// A call as its message arrived on `connection` (both references are taken over).
    init(message: OpaquePointer, connection: OpaquePointer, limit: Int) {
        origin = .message(connection: connection, message: message)
        func text(_ value: UnsafePointer<CChar>?) -> String { value.map { String(cString: $0) } ?? "" }
        sender = text(g_dbus_message_get_sender(message))
        path = text(g_dbus_message_get_path(message))
        interface = text(g_dbus_message_get_interface(message))
        method = text(g_dbus_message_get_member(message))
        let body = g_dbus_message_get_body(message)
        parameters = body.map { g_variant_ref($0) }
        self.limit = limit
        argumentBytes = body.map { Int(g_variant_get_size($0)) } ?? 0
    }

    deinit {
        if let parameters { g_variant_unref(parameters) }
        if case .message(let connection, let message) = origin, !answered {
            g_object_unref(UnsafeMutableRawPointer(message))
            g_object_unref(UnsafeMutableRawPointer(connection))
        }
    }

    /// Answered (or dropped): a message's references were given up then.
    nonisolated(unsafe) private var answered = false

    /// Hears the size of the answer as it is queued (the gate counts what waits toward the caller).
    var onAnswer: (@GLibActor (_ bytes: Int) -> Void)?
    /// Hears the loop time the call's deferred work took (`charge`).
    var onDeferredWork: (@GLibActor (_ seconds: Double) -> Void)?

    package func charge(seconds: Double) {
        onDeferredWork?(seconds)
    }

    /// `g_dbus_method_invocation_return_value`.
    package func reply(_ values: [Variant] = []) {
        let body = Self.compacted(Variant.tuple(values).makeGVariant())
        onAnswer?(Int(g_variant_get_size(body)))
        switch origin {
        case .invocation(let invocation): g_dbus_method_invocation_return_value(invocation, body)
        case .message(_, let message):
            let answer = g_dbus_message_new_method_reply(message)
            g_dbus_message_set_body(answer, body)
            send(answer)
        }
    }

    /// `tree` (floating, as built) as one serialized value, floating too. A reply waits in GDBus's
    /// queue until the bus daemon reads it, and a daemon flooded by others reads slowly: kept as
    /// built, each value of its tree is an allocation of its own (a panel item's GetAll, 1.7 KiB
    /// on the wire, held several times that), and 200 connections' replies grew the agent past
    /// its ceiling. Serialized, what waits is what the caller's budget counts.
    static func compacted(_ tree: OpaquePointer) -> OpaquePointer {
        let sunk = g_variant_ref_sink(tree)
        defer { g_variant_unref(sunk) }
        let bytes = g_variant_get_data_as_bytes(sunk)
        defer { g_bytes_unref(bytes) }
        return g_variant_new_from_bytes(g_variant_get_type(sunk), bytes, 1)
    }

    /// Leaves the call unanswered (the reference GDBus gave is released; the caller's own
    /// timeout ends it): for a caller that reads none of its answers, to which one more, even an
    /// error, would only wait in the bus.
    func drop() {
        switch origin {
        case .invocation(let invocation): g_object_unref(UnsafeMutableRawPointer(invocation))
        case .message: send(nil)
        }
    }

    /// `g_dbus_method_invocation_return_dbus_error`.
    package func fail(name: String, message text: String) {
        onAnswer?(name.utf8.count + text.utf8.count)
        switch origin {
        case .invocation(let invocation): g_dbus_method_invocation_return_dbus_error(invocation, name, text)
        case .message(_, let message): send(g_dbus_message_new_method_error_literal(message, name, text))
        }
    }

    /// Sends `answer` for a message's call (unless its caller asked for none), then gives up the references.
    private func send(_ answer: OpaquePointer?) {
        guard case .message(let connection, let message) = origin, !answered else { return }
        answered = true
        let wanted = g_dbus_message_get_flags(message).rawValue & G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED.rawValue == 0
        if let answer {
            if wanted { g_dbus_connection_send_message(connection, answer, G_DBUS_SEND_MESSAGE_FLAGS_NONE, nil, nil) }
            g_object_unref(UnsafeMutableRawPointer(answer))
        }
        g_object_unref(UnsafeMutableRawPointer(message))
        g_object_unref(UnsafeMutableRawPointer(connection))
    }
}
