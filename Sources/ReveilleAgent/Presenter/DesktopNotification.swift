import CGLib
import CNotify
import ReveilleBus

/// One freedesktop notification through libnotify (`NotifyNotification`). The only file
/// that calls libnotify. libnotify's calls are synchronous D-Bus round trips: call them on
/// the loop, never on a path that must not block.
@GLibActor
final class DesktopNotification {
    enum Urgency { case low, normal, critical }

    /// `NotifyNotification*`, owned.
    nonisolated(unsafe) private let notification: UnsafeMutablePointer<NotifyNotification>
    /// Called with the action key when a button is pressed.
    var onAction: (@GLibActor (String) -> Void)?
    /// Called with the server's reason when the notification is closed (`closed` signal).
    var onClosed: (@GLibActor (Int32) -> Void)?

    /// `notify_init`; once per process.
    static func initialize(appName: String) -> Bool { notify_init(appName) != 0 }

    /// `notify_get_server_caps`: what the running notification server supports.
    static func serverCapabilities() -> Set<String> {
        var capabilities = Set<String>()
        var node = notify_get_server_caps()
        let list = node
        while let current = node {
            if let text = current.pointee.data { capabilities.insert(String(cString: text.assumingMemoryBound(to: CChar.self))) }
            node = current.pointee.next
        }
        g_list_free_full(list, g_free)
        return capabilities
    }

    /// `notify_notification_new`.
    init(summary: String, body: String, icon: String) {
        notification = notify_notification_new(summary, body, icon)
        let forward: @GLibActor (Int32) -> Void = { [weak self] reason in self?.onClosed?(reason) }
        let box = CallbackBox(forward)
        typealias Closed = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void
        let closed: Closed = { object, userData in
            let handler = CallbackBox.from(userData, as: (@GLibActor (Int32) -> Void).self)
            let reason = notify_notification_get_closed_reason(object?.assumingMemoryBound(to: NotifyNotification.self))
            GLibActor.assumeIsolated { handler(reason) }
        }
        g_signal_connect_data(UnsafeMutableRawPointer(notification), "closed", unsafeBitCast(closed, to: GCallback.self),
                              box.retainedPointer, { data, _ in CallbackBox.release(data) }, GConnectFlags(rawValue: 0))
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(notification)) }

    /// `notify_notification_update`: new text for the next `show`.
    func update(summary: String, body: String, icon: String) {
        _ = notify_notification_update(notification, summary, body, icon)
    }

    /// `notify_notification_set_urgency`.
    func setUrgency(_ urgency: Urgency) {
        let level = switch urgency {
        case .low: NOTIFY_URGENCY_LOW
        case .normal: NOTIFY_URGENCY_NORMAL
        case .critical: NOTIFY_URGENCY_CRITICAL
        }
        notify_notification_set_urgency(notification, level)
    }

    /// `notify_notification_set_timeout`; `nil` never expires.
    func setTimeout(milliseconds: Int32?) {
        notify_notification_set_timeout(notification, milliseconds ?? NOTIFY_EXPIRES_NEVER)
    }

    /// `notify_notification_clear_hints`.
    func clearHints() { notify_notification_clear_hints(notification) }

    /// `notify_notification_set_hint`.
    func setHint(_ key: String, _ value: Variant) {
        notify_notification_set_hint(notification, key, value.makeGVariant())
    }

    /// `notify_notification_clear_actions` then `notify_notification_add_action` for each.
    func setActions(_ actions: [(key: String, label: String)]) {
        notify_notification_clear_actions(notification)
        for action in actions {
            let forward: @GLibActor (String) -> Void = { [weak self] key in self?.onAction?(key) }
            let box = CallbackBox(forward)
            notify_notification_add_action(notification, action.key, action.label, { _, key, userData in
                let handler = CallbackBox.from(userData, as: (@GLibActor (String) -> Void).self)
                let key = key.map { String(cString: $0) } ?? ""
                GLibActor.assumeIsolated { handler(key) }
            }, box.retainedPointer, { CallbackBox.release($0) })
        }
    }

    /// `notify_notification_show`: shows it, or updates it in place when already shown.
    func show() throws(BusError) {
        var error: UnsafeMutablePointer<GError>?
        guard notify_notification_show(notification, &error) != 0 else { throw BusError(consuming: error) }
    }

    /// `notify_notification_close`.
    func close() {
        var error: UnsafeMutablePointer<GError>?
        if notify_notification_close(notification, &error) == 0, let error { g_error_free(error) }
    }
}
