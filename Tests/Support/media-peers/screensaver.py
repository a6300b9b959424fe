#!/usr/bin/python3
"""A stand-in screen locker for the end-to-end tests.

    screensaver.py gnome|freedesktop [--active]

Owns org.gnome.ScreenSaver (GNOME Shell's) or org.freedesktop.ScreenSaver (KDE's, xfce's,
light-locker's) on the bus of DBUS_SESSION_BUS_ADDRESS, with GetActive and ActiveChanged as the
lockers have them. A test locks and unlocks it with io.github.reveille.TestScreenSaver.SetActive(b).
Run through a link named light-locker, it is light-locker as far as its process name tells.
Uses Debian's python3-dbus and python3-gi.
"""
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

KIND = sys.argv[1]
NAME = "org.gnome.ScreenSaver" if KIND == "gnome" else "org.freedesktop.ScreenSaver"
PATH = "/org/gnome/ScreenSaver" if KIND == "gnome" else "/org/freedesktop/ScreenSaver"
TEST = "io.github.reveille.TestScreenSaver"


class Locker(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, PATH)
        self.active = "--active" in sys.argv

    @dbus.service.method(NAME, out_signature="b")
    def GetActive(self):
        return self.active

    @dbus.service.signal(NAME, signature="b")
    def ActiveChanged(self, active):
        pass

    @dbus.service.method(TEST, in_signature="b")
    def SetActive(self, active):
        self.active = bool(active)
        self.ActiveChanged(self.active)


DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
locker = Locker(bus)
bus.request_name(NAME)
GLib.MainLoop().run()
