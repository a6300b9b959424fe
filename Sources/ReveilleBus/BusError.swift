import CGLib

/// A D-Bus error: its name (`org.freedesktop.DBus.Error.ServiceUnknown`, or a service's
/// own) and its message.
package struct BusError: Error, Hashable, Sendable, CustomStringConvertible {
    package var name: String
    package var message: String

    package init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    package var description: String { "\(message) (\(name))" }

    /// Whether nobody owns the name the call went to.
    package var isServiceMissing: Bool {
        name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner"
    }

    /// Whether the call was cancelled here (its task was), not answered.
    package var isCancellation: Bool { name == "org.gtk.GLib.g-io-error-quark.\(G_IO_ERROR_CANCELLED.rawValue)" }

    /// Takes and frees a `GError`, reading the remote D-Bus error name when there is one.
    package init(consuming error: UnsafeMutablePointer<GError>?) {
        guard let error else {
            self.init(name: "org.freedesktop.DBus.Error.Failed", message: "unknown error")
            return
        }
        defer { g_error_free(error) }
        if let remote = g_dbus_error_get_remote_error(error) {
            defer { g_free(remote) }
            _ = g_dbus_error_strip_remote_error(error)
            self.init(name: String(cString: remote), message: String(cString: error.pointee.message))
        } else {
            let quark = String(cString: g_quark_to_string(error.pointee.domain))
            self.init(name: "org.gtk.GLib.\(quark).\(error.pointee.code)", message: String(cString: error.pointee.message))
        }
    }
}
