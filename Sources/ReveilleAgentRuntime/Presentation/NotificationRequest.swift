/// One notification as the protocol's `Notify` takes it, a plain value: what the presentation
/// rules decide, and what the notification client sends. `body` is plain text.
package struct NotificationRequest {
    package var summary: String
    package var body: String
    package var icon: String
    /// Action keys and their labels, in the order shown.
    package var actions: [(key: String, label: String)]
    package var hints: [String: NotificationHint]
    /// `-1`: the server's default; `0`: never expires.
    package var timeout: Int32 = 0

    package init(summary: String, body: String, icon: String, actions: [(key: String, label: String)], hints: [String: NotificationHint],
                 timeout: Int32 = 0) {
        (self.summary, self.body, self.icon, self.actions, self.hints, self.timeout) = (summary, body, icon, actions, hints, timeout)
    }
}

/// A hint of `Notify`, as the specification types it; the notification client makes each a
/// GVariant (the runtime holds no GLib value).
package enum NotificationHint: Equatable, Sendable {
    case byte(UInt8)
    case bool(Bool)
    case int32(Int32)
    case string(String)
}

/// What the notification server did, as the client's observers hear it: the server's own
/// changes, and each press and close of a notification, by the id the server gave it.
package enum NotificationEvent {
    /// A server answered; its profile is known.
    case ready(NotificationServerProfile)
    /// The server left or was replaced: none of the agent's notifications exists any more.
    case left
    /// No server runs and none is activatable: nothing shown reaches anybody.
    case missing
    /// The button `key` of notification `id` was pressed.
    case action(UInt32, key: String)
    /// Notification `id` closed: 1 expired, 2 dismissed by the user, 3 closed by a
    /// `CloseNotification` call, 4 other. Not told of one this client closed.
    case closed(UInt32, reason: UInt32)
}
