import Foundation

extension TestSession {
    /// A settings portal (org.freedesktop.portal.Settings, as xdg-desktop-portal serves it on a
    /// desktop) that says `colorScheme` (1: prefer dark, 2: prefer light), started by the
    /// session's bus when an application asks for it: the desktop's choice as libadwaita reads
    /// it (GNOME's Appearance sets it through GSettings, which xdg-desktop-portal-gnome serves).
    public func addSettingsPortal(colorScheme: Int) throws {
        let script = directory + "/settings-portal.py"
        try Self.settingsPortalScript.write(toFile: script, atomically: true, encoding: .utf8)
        try "[D-BUS Service]\nName=org.freedesktop.portal.Desktop\nExec=/usr/bin/python3 \(script) \(colorScheme)\n"
            .write(toFile: serviceDirectory + "/org.freedesktop.portal.Desktop.service", atomically: true, encoding: .utf8)
        // The bus reads a new service file when inotify tells it: waited for, so that the next
        // window started finds the portal.
        _ = try eventually(timeout: 10, "the bus to know the settings portal") {
            try gdbusCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                          method: "org.freedesktop.DBus.ListActivatableNames", []).stdout
                .contains("'org.freedesktop.portal.Desktop'") ? true : nil
        }
    }

    static let settingsPortalScript = #"""
import sys
from gi.repository import Gio, GLib
scheme = int(sys.argv[1])
XML = """<node><interface name="org.freedesktop.portal.Settings">
<method name="ReadAll"><arg type="as" direction="in"/><arg type="a{sa{sv}}" direction="out"/></method>
<method name="Read"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="out"/></method>
<method name="ReadOne"><arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="out"/></method>
<signal name="SettingChanged"><arg type="s"/><arg type="s"/><arg type="v"/></signal>
<property name="version" type="u" access="read"/>
</interface></node>"""
values = {"org.freedesktop.appearance": {"color-scheme": GLib.Variant("u", scheme), "contrast": GLib.Variant("u", 0)}}
def call(connection, sender, path, interface, method, parameters, invocation):
    if method == "ReadAll":
        wanted = parameters.unpack()[0]
        found = {ns: keys for ns, keys in values.items() if not wanted or any(w in ("", ns) or (w.endswith("*") and ns.startswith(w[:-1])) for w in wanted)}
        invocation.return_value(GLib.Variant("(a{sa{sv}})", (found,)))
        return
    namespace, key = parameters.unpack()
    value = values.get(namespace, {}).get(key)
    if value is None:
        invocation.return_dbus_error("org.freedesktop.portal.Error.NotFound", "no such setting")
    elif method == "Read":
        invocation.return_value(GLib.Variant("(v)", (GLib.Variant("v", value),)))
    else:
        invocation.return_value(GLib.Variant("(v)", (value,)))
def get(connection, sender, path, interface, name):
    return GLib.Variant("u", 2)
bus = Gio.bus_get_sync(Gio.BusType.SESSION)
bus.register_object("/org/freedesktop/portal/desktop", Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0], call, get, None)
Gio.bus_own_name_on_connection(bus, "org.freedesktop.portal.Desktop", Gio.BusNameOwnerFlags.NONE, None, None)
GLib.MainLoop().run()
"""#
}
