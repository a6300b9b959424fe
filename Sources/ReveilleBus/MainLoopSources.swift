import CGLib
import ReveilleLoop

/// Event sources on the GLib main loop: Unix signals, readable file descriptors, file changes.
@GLibActor
package enum MainLoopSources {

    /// Calls `handler` on the loop whenever `signal` arrives (`g_unix_signal_add`);
    /// the signal's default action is replaced.
    package static func onSignal(_ signal: Int32, handler: @escaping @GLibActor () -> Void) {
        let box = CallbackBox(handler)
        _ = g_unix_signal_add_full(G_PRIORITY_DEFAULT, signal, { userData in
            let handler = CallbackBox<@GLibActor () -> Void>.from(userData)
            GLibActor.assumeIsolated { handler() }
            return 1 // G_SOURCE_CONTINUE (TRUE), a macro Swift cannot import
        }, box.retainedPointer, releaseCallbackBox)
    }

    /// Calls `handler` on the loop each time `descriptor` is readable (`g_unix_fd_add_full`).
    /// Returns the source id for `remove`.
    @discardableResult
    package static func onReadable(_ descriptor: Int32, handler: @escaping @GLibActor () -> Void) -> UInt32 {
        let box = CallbackBox(handler)
        return g_unix_fd_add_full(G_PRIORITY_DEFAULT, descriptor, G_IO_IN, { _, _, userData in
            let handler = CallbackBox<@GLibActor () -> Void>.from(userData)
            GLibActor.assumeIsolated { handler() }
            return 1 // G_SOURCE_CONTINUE (TRUE), a macro Swift cannot import
        }, box.retainedPointer, releaseCallbackBox)
    }

    /// Removes a source added by this type (`g_source_remove`).
    package static func remove(_ id: UInt32) { _ = g_source_remove(id) }

    /// Calls `handler` after `milliseconds` on the loop, once (`g_timeout_add_full`).
    @discardableResult
    package static func after(milliseconds: UInt32, handler: @escaping @GLibActor () -> Void) -> UInt32 {
        let box = CallbackBox(handler)
        return g_timeout_add_full(G_PRIORITY_DEFAULT, milliseconds, { userData in
            let handler = CallbackBox<@GLibActor () -> Void>.from(userData)
            GLibActor.assumeIsolated { handler() }
            return gboolean(G_SOURCE_REMOVE)
        }, box.retainedPointer, releaseCallbackBox)
    }
}

/// Watches one file for changes, including replacement of a symlink such as /etc/localtime
/// (`g_file_monitor_file`, inotify underneath). Keep the object alive to keep watching.
@GLibActor
package final class FileMonitor {
    /// `GFileMonitor*`, owned.
    nonisolated(unsafe) private let monitor: UnsafeMutablePointer<GFileMonitor>

    package init?(path: String, onChange: @escaping @GLibActor () -> Void) {
        let file = g_file_new_for_path(path)
        defer { g_object_unref(UnsafeMutableRawPointer(file)) }
        guard let monitor = g_file_monitor_file(file, G_FILE_MONITOR_WATCH_MOVES, nil, nil) else { return nil }
        self.monitor = monitor
        // Several events arrive for one change; coalesce them into one call.
        g_file_monitor_set_rate_limit(monitor, 100)
        let box = CallbackBox(onChange)
        typealias Changed = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?,
                                            GFileMonitorEvent, UnsafeMutableRawPointer?) -> Void
        let changed: Changed = { _, _, _, event, userData in
            guard event != G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED else { return }
            let onChange = CallbackBox<@GLibActor () -> Void>.from(userData)
            GLibActor.assumeIsolated { onChange() }
        }
        // g_signal_connect is a macro; this is what it expands to.
        g_signal_connect_data(UnsafeMutableRawPointer(monitor), "changed", unsafeBitCast(changed, to: GCallback.self),
                              box.retainedPointer, { data, _ in releaseCallbackBox(data) }, GConnectFlags(rawValue: 0))
    }

    deinit {
        g_file_monitor_cancel(monitor)
        g_object_unref(UnsafeMutableRawPointer(monitor))
    }
}
