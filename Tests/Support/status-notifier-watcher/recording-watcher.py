#!/usr/bin/python3
"""A recording org.kde.StatusNotifierWatcher (and host) for the end-to-end tests.

    recording-watcher.py LOG

Owns org.kde.StatusNotifierWatcher on the bus of DBUS_SESSION_BUS_ADDRESS and does what a
panel does with each item registered: reads its properties and menu (GetAll, GetLayout), again
on each of its signals (NewTitle, NewIcon, NewToolTip, NewStatus, LayoutUpdated), and forgets it
when its name leaves the bus. Appends one JSON object per line to LOG:

    {"event": "registered", "service": NAME, "time": T}
    {"event": "snapshot", "service": NAME, "reason": SIGNAL, "title": ..., "status": ..., "tooltip": [TITLE, TEXT],
     "menu": [{"id": ID, "label": ..., "enabled": ..., "type": ...}, ...], "revision": R, "time": T}
    {"event": "unregistered", "service": NAME, "time": T}

A test clicks a menu item as a person would through io.github.reveille.TestWatcher.Click(HEADING,
LABEL) (the item labelled LABEL after the heading HEADING, in the menu as last read) or ClickId(ID).
Uses Debian's python3-dbus and python3-gi.
"""
import json
import os
import sys
import time

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

WATCHER = "org.kde.StatusNotifierWatcher"
ITEM = "org.kde.StatusNotifierItem"
MENU = "com.canonical.dbusmenu"
TEST = "io.github.reveille.TestWatcher"

LOG = open(sys.argv[1], "a", buffering=1)


def record(**fields):
    fields["time"] = time.time()
    LOG.write(json.dumps(fields) + "\n")


def plain(value):
    """dbus-python's types as JSON's."""
    if isinstance(value, (dbus.Boolean, bool)):
        return bool(value)
    if isinstance(value, (int, dbus.Int32, dbus.UInt32, dbus.Int64, dbus.Byte)):
        return int(value)
    if isinstance(value, (str, dbus.String, dbus.ObjectPath)):
        return str(value)
    if isinstance(value, (list, tuple, dbus.Array, dbus.Struct)):
        return [plain(v) for v in value]
    if isinstance(value, (dict, dbus.Dictionary)):
        return {str(k): plain(v) for k, v in value.items()}
    return repr(value)


class Watcher(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, "/StatusNotifierWatcher")
        self.bus = bus
        self.items = {}  # service -> {"path", "menu", "layout", "watch", "signals"}

    # org.kde.StatusNotifierWatcher

    @dbus.service.method(WATCHER, in_signature="s", sender_keyword="sender")
    def RegisterStatusNotifierItem(self, service, sender=None):
        path = "/StatusNotifierItem"
        if service.startswith("/"):
            service, path = sender, service
        if service in self.items:
            return
        self.items[service] = {"path": path, "menu": None, "layout": []}
        record(event="registered", service=service, sender=sender)
        self.items[service]["watch"] = self.bus.watch_name_owner(service, lambda owner, s=service: self.owner_changed(s, owner))
        self.items[service]["signals"] = [
            self.bus.add_signal_receiver(lambda *args, member=None, s=service: self.changed(s, member),
                                         dbus_interface=interface, bus_name=service, member_keyword="member")
            for interface in (ITEM, MENU)]
        self.StatusNotifierItemRegistered(service)
        GLib.idle_add(lambda: self.snapshot(service, "registered") and False)

    @dbus.service.method(WATCHER, in_signature="s")
    def RegisterStatusNotifierHost(self, service):
        pass

    @dbus.service.signal(WATCHER, signature="s")
    def StatusNotifierItemRegistered(self, service):
        pass

    @dbus.service.signal(WATCHER, signature="s")
    def StatusNotifierItemUnregistered(self, service):
        pass

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        return self.GetAll(interface)[name]

    @dbus.service.method(dbus.PROPERTIES_IFACE, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return {"RegisteredStatusNotifierItems": dbus.Array([s + i["path"] for s, i in self.items.items()], signature="s"),
                "IsStatusNotifierHostRegistered": True, "ProtocolVersion": dbus.Int32(0)}

    # What a host does

    def owner_changed(self, service, owner):
        if owner or service not in self.items:
            return
        item = self.items.pop(service)
        item["watch"].cancel()
        for receiver in item["signals"]:
            receiver.remove()
        record(event="unregistered", service=service)
        self.StatusNotifierItemUnregistered(service)

    def changed(self, service, member):
        if service in self.items:
            self.snapshot(service, member)

    def snapshot(self, service, reason):
        item = self.items.get(service)
        if item is None:
            return
        try:
            proxy = self.bus.get_object(service, item["path"], introspect=False)
            properties = proxy.GetAll(ITEM, dbus_interface=dbus.PROPERTIES_IFACE)
            item["menu"] = str(properties.get("Menu", ""))
            menu = self.bus.get_object(service, item["menu"], introspect=False)
            revision, layout = menu.GetLayout(0, -1, dbus.Array([], signature="s"), dbus_interface=MENU)
            item["layout"] = [{"id": int(child[0]), "label": str(child[1].get("label", "")),
                               "enabled": bool(child[1].get("enabled", True)), "type": str(child[1].get("type", "standard"))}
                              for child in layout[2]]
            tooltip = properties.get("ToolTip", ("", [], "", ""))
            record(event="snapshot", service=service, reason=reason, title=plain(properties.get("Title")),
                   status=plain(properties.get("Status")), icon=plain(properties.get("IconName")),
                   category=plain(properties.get("Category")), itemIsMenu=plain(properties.get("ItemIsMenu")),
                   tooltip=[str(tooltip[2]), str(tooltip[3])], menu=item["layout"], revision=int(revision))
        except dbus.DBusException as error:
            record(event="error", service=service, reason=reason, error=error.get_dbus_name(), message=error.get_dbus_message())

    # For the tests

    @dbus.service.method(TEST, in_signature="ss", out_signature="i")
    def Click(self, heading, label):
        for service, item in self.items.items():
            under = heading == ""
            for entry in item["layout"]:
                if entry["type"] == "separator":
                    under = heading == ""
                elif not entry["enabled"]:
                    under = heading in ("", entry["label"])
                elif under and entry["label"] == label:
                    self.event(service, entry["id"])
                    return entry["id"]
        raise dbus.DBusException("no menu item %r under %r in %r" % (label, heading, {s: i["layout"] for s, i in self.items.items()}),
                                 name=TEST + ".NoSuchItem")

    @dbus.service.method(TEST, in_signature="i", out_signature="s")
    def ClickId(self, identifier):
        for service in self.items:
            try:
                self.event(service, identifier)
                return "ok"
            except dbus.DBusException as error:
                return error.get_dbus_name()
        return "no item registered"

    def event(self, service, identifier):
        item = self.items[service]
        menu = self.bus.get_object(service, item["menu"], introspect=False)
        menu.Event(dbus.Int32(identifier), "clicked", dbus.Int32(0, variant_level=1), dbus.UInt32(0), dbus_interface=MENU)


def main():
    DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
    watcher = Watcher(bus)
    name = dbus.service.BusName(WATCHER, bus, do_not_queue=True)  # held while the loop runs
    record(event="started", unique=bus.get_unique_name())
    GLib.MainLoop().run()
    del watcher, name


if __name__ == "__main__":
    main()
