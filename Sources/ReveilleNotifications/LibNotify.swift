import CGLib
import CNotify
import ReveilleAgentRuntime
import ReveilleBus

/// libnotify behind Swift types: the only file that touches its C API, and no C pointer
/// leaves it. Every call blocks until the server answers, so an instance lives on the
/// `NotificationThread` and is used only there: libnotify's proxy then delivers the server's
/// signals to that thread's context, and `onEvent` is called there.
///
/// One `NotifyNotification` is kept per notification on screen: libnotify remembers its id,
/// so showing it again replaces it in place.
package final class LibNotify: @unchecked Sendable {
    /// What the server said of itself (`notify_get_server_info`, `notify_get_server_caps`).
    package struct ServerInformation: Sendable {
        package var name: String
        package var version: String
        package var capabilities: [String]
    }

    /// What a shown notification reports back.
    package enum Event: Sendable {
        case action(id: UInt32, key: String)
        /// `reason` as the protocol numbers it (1 expired, 2 dismissed, 3 by a call, 4 other).
        case closed(id: UInt32, reason: UInt32)
    }

    /// A notification on screen; a +1 reference to it is the C side's `user_data`, so it lives
    /// as long as the `NotifyNotification` that may call back with it.
    private final class Shown {
        /// `NotifyNotification*`, owned by `LibNotify` while it is in `shown`.
        package let notification: UnsafeMutableRawPointer
        package var id: UInt32 = 0
        package weak var owner: LibNotify?
        package init(_ notification: UnsafeMutableRawPointer, owner: LibNotify) {
            self.notification = notification
            self.owner = owner
        }
    }

    private var shown: [UInt32: Shown] = [:]
    private var onEvent: @Sendable (Event) -> Void = { _ in }

    /// Starts libnotify (`notify_init`), as `appName`; `onEvent` hears every button press and
    /// close from now on, on this thread. Call it first, on the thread that makes every later call.
    package func start(appName: String, onEvent: @escaping @Sendable (Event) -> Void) {
        self.onEvent = onEvent
        _ = notify_init(appName)
    }

    /// Asks the server who it is and what it can do (starting an activatable one); `nil`
    /// when it does not answer or none runs.
    package func serverInformation() -> ServerInformation? {
        var name: UnsafeMutablePointer<CChar>?
        var vendor: UnsafeMutablePointer<CChar>?
        var version: UnsafeMutablePointer<CChar>?
        var specification: UnsafeMutablePointer<CChar>?
        guard notify_get_server_info(&name, &vendor, &version, &specification) != 0 else { return nil }
        defer { for text in [name, vendor, version, specification] { g_free(text) } }
        var capabilities: [String] = []
        let list = notify_get_server_caps()
        var node = list
        while let current = node {
            if let text = current.pointee.data { capabilities.append(String(cString: text.assumingMemoryBound(to: CChar.self))) }
            node = current.pointee.next
        }
        g_list_free_full(list, g_free)
        return ServerInformation(name: name.map { String(cString: $0) } ?? "", version: version.map { String(cString: $0) } ?? "",
                                 capabilities: capabilities)
    }

    /// Shows `request`, in place of notification `id` when it is still on screen; the
    /// server's id for it, or the server's error.
    package func show(_ request: NotificationRequest, replacing id: UInt32) -> Result<UInt32, BusError> {
        let entry: Shown
        if id != 0, let existing = shown[id] {
            entry = existing
            _ = notify_notification_update(Self.notification(entry), request.summary, request.body, request.icon)
            notify_notification_clear_hints(Self.notification(entry))
            notify_notification_clear_actions(Self.notification(entry))
        } else {
            let notification = notify_notification_new(request.summary, request.body, request.icon)!
            entry = Shown(UnsafeMutableRawPointer(notification), owner: self)
            let closed: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { notification, data in
                let entry = Unmanaged<Shown>.fromOpaque(data!).takeUnretainedValue()
                let reason = notify_notification_get_closed_reason(notification?.assumingMemoryBound(to: NotifyNotification.self))
                entry.owner?.closed(entry, reason: reason > 0 ? UInt32(reason) : 4)
            }
            // g_signal_connect is a macro; this is what it expands to.
            g_signal_connect_data(entry.notification, "closed", unsafeBitCast(closed, to: GCallback.self),
                                  Unmanaged.passRetained(entry).toOpaque(),
                                  { data, _ in Unmanaged<Shown>.fromOpaque(data!).release() }, GConnectFlags(rawValue: 0))
        }
        let notification = Self.notification(entry)
        for (key, value) in request.hints { notify_notification_set_hint(notification, key, Variant(value).makeGVariant()) }
        for action in request.actions {
            notify_notification_add_action(notification, action.key, action.label, { notification, key, data in
                let entry = Unmanaged<Shown>.fromOpaque(data!).takeUnretainedValue()
                guard let key else { return }
                entry.owner?.onEvent(.action(id: entry.id, key: String(cString: key)))
            }, Unmanaged.passRetained(entry).toOpaque(), { data in Unmanaged<Shown>.fromOpaque(data!).release() })
        }
        notify_notification_set_timeout(notification, request.timeout)
        var error: UnsafeMutablePointer<GError>?
        guard notify_notification_show(notification, &error) != 0 else {
            forget(entry)
            g_object_unref(entry.notification)
            return .failure(BusError(consuming: error))
        }
        // libnotify read the server's id into the notification; it is the property "id".
        let newID = Self.id(of: entry)
        if entry.id != newID {
            if shown[entry.id] === entry { shown[entry.id] = nil }
            entry.id = newID
        }
        shown[newID] = entry
        return .success(newID)
    }

    /// Closes notification `id` (`notify_notification_close`); its close is not reported back.
    package func close(_ id: UInt32) {
        guard let entry = shown[id] else { return }
        forget(entry)
        var error: UnsafeMutablePointer<GError>?
        if notify_notification_close(Self.notification(entry), &error) == 0 { g_error_free(error) }
        g_object_unref(entry.notification)
    }

    /// Lets go of every notification without closing it: the server that showed them left.
    package func forgetAll() {
        for entry in shown.values {
            entry.owner = nil
            g_object_unref(entry.notification)
        }
        shown = [:]
    }

    private func closed(_ entry: Shown, reason: UInt32) {
        let id = entry.id
        guard shown[id] === entry else { return }
        forget(entry)
        onEvent(.closed(id: id, reason: reason))
        // libnotify holds its own reference while it emits "closed".
        g_object_unref(entry.notification)
    }

    /// Stops hearing `entry`; the caller releases the notification.
    private func forget(_ entry: Shown) {
        if shown[entry.id] === entry { shown[entry.id] = nil }
        entry.owner = nil
    }

    private static func notification(_ entry: Shown) -> UnsafeMutablePointer<NotifyNotification> {
        entry.notification.assumingMemoryBound(to: NotifyNotification.self)
    }

    /// The notification's "id" property (libnotify has no getter for it).
    private static func id(of entry: Shown) -> UInt32 {
        var value = GValue()
        // G_TYPE_INT, a macro Swift cannot import: fundamental type 6, shifted by G_TYPE_FUNDAMENTAL_SHIFT (2).
        g_value_init(&value, GType(6 << 2))
        defer { g_value_unset(&value) }
        g_object_get_property(entry.notification.assumingMemoryBound(to: GObject.self), "id", &value)
        return UInt32(bitPattern: g_value_get_int(&value))
    }
}

extension Variant {
    /// A notification's hint as the D-Bus value it is sent as.
    init(_ hint: NotificationHint) {
        switch hint {
        case .byte(let value): self = .byte(value)
        case .bool(let value): self = .bool(value)
        case .int32(let value): self = .int32(value)
        case .string(let value): self = .string(value)
        }
    }
}
