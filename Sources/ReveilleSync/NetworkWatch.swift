import CGLib
import ReveilleBus
import ReveilleLoop

/// GIO's network monitor (netlink routes, or NetworkManager): calls `onChange` when the
/// network comes back or changes, as after a resume, so sync need not wait for its interval.
@GLibActor
package final class NetworkWatch {
    /// `GNetworkMonitor*`, GIO's own (not owned); the handler stays connected for the process.
    nonisolated(unsafe) private let monitor: OpaquePointer
    private var handler: gulong = 0

    package init(onChange: @escaping @GLibActor (_ available: Bool) -> Void) {
        monitor = g_network_monitor_get_default()
        let box = CallbackBox(onChange)
        typealias Changed = @convention(c) (UnsafeMutableRawPointer?, gboolean, UnsafeMutableRawPointer?) -> Void
        let changed: Changed = { _, available, userData in
            let onChange = CallbackBox<@GLibActor (Bool) -> Void>.from(userData)
            GLibActor.assumeIsolated { onChange(available != 0) }
        }
        // g_signal_connect is a macro; this is what it expands to.
        handler = g_signal_connect_data(UnsafeMutableRawPointer(monitor), "network-changed", unsafeBitCast(changed, to: GCallback.self),
                                        box.retainedPointer, { data, _ in releaseCallbackBox(data) }, GConnectFlags(rawValue: 0))
    }

    deinit {
        g_signal_handler_disconnect(UnsafeMutableRawPointer(monitor), handler)
    }
}
