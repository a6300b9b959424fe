import ReveilleLoop

/// What the presenter asks of the notification server: `NotificationClient` on the session bus,
/// or a recording server in process for tests on virtual time.
@GLibActor
package protocol NotificationTransport: AnyObject {
    /// `observer` hears, from now on, each change of the server and each press and close of a
    /// notification shown and not closed since, by its id.
    func observe(_ observer: @escaping @GLibActor (NotificationEvent) -> Void)
    /// Shows `request` (replacing notification `id` in place when not 0); `shown` hears the
    /// server's id, or `nil` when it could not be shown.
    func show(_ request: NotificationRequest, replacing id: UInt32, shown: @escaping @GLibActor (UInt32?) -> Void)
    /// Closes a notification; its close is not reported back.
    func close(_ id: UInt32)
    /// Calls `body` once what was asked so far has been answered, or can go no further now.
    func whenCaughtUp(_ body: @escaping @GLibActor () -> Void)
}

extension NotificationTransport {
    /// A transport that keeps no account of its calls is always caught up.
    package func whenCaughtUp(_ body: @escaping @GLibActor () -> Void) { body() }

    /// Shows `request` as a new notification.
    package func show(_ request: NotificationRequest, shown: @escaping @GLibActor (UInt32?) -> Void) {
        show(request, replacing: 0, shown: shown)
    }
}

extension NotificationRequest: Equatable {
    package static func == (a: Self, b: Self) -> Bool {
        a.summary == b.summary && a.body == b.body && a.icon == b.icon && a.hints == b.hints && a.timeout == b.timeout
            && a.actions.map(\.key) == b.actions.map(\.key) && a.actions.map(\.label) == b.actions.map(\.label)
    }
}
