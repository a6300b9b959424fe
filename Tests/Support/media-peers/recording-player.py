#!/usr/bin/python3
"""A recording MPRIS media player for the end-to-end tests: music that plays.

    recording-player.py LOG NAME [--cannot-pause] [--paused] [--replace] [--extra-names N]

Owns org.mpris.MediaPlayer2.NAME on the bus of DBUS_SESSION_BUS_ADDRESS and exports
/org/mpris/MediaPlayer2 as a player does: PlaybackStatus starts Playing (Paused with --paused),
CanPause is false with --cannot-pause; with --replace it asks for the name with
REPLACE_EXISTING (as a squatter would); with --extra-names N it also owns N more player
names, NAME-00 to NAME-(N-1) (one program with many names); Play, Pause, PlayPause and Stop change it and emit
PropertiesChanged. Appends one JSON object per line to LOG:

    {"event": "call", "method": "Pause", "sender": UNIQUE, "status": AFTER, "time": T}
    {"event": "owner", "name": "org.mpris.MediaPlayer2.OTHER", "owner": UNIQUE or "", "time": T}
    {"event": "requested", "name": NAME, "result": 1 (primary owner), 2 (in queue)..., "time": T}

Uses Debian's python3-dbus and python3-gi.
"""
import json
import sys
import time

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

ROOT = "org.mpris.MediaPlayer2"
PLAYER = "org.mpris.MediaPlayer2.Player"
PROPERTIES = "org.freedesktop.DBus.Properties"

LOG = open(sys.argv[1], "a", buffering=1)
NAME = ROOT + "." + sys.argv[2]
CAN_PAUSE = "--cannot-pause" not in sys.argv


def record(**fields):
    fields["time"] = time.time()
    LOG.write(json.dumps(fields) + "\n")


class Player(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, "/org/mpris/MediaPlayer2")
        self.status = "Paused" if "--paused" in sys.argv else "Playing"

    def set_status(self, method, sender, status):
        self.status = status
        record(event="call", method=method, sender=str(sender), status=status)
        self.PropertiesChanged(PLAYER, {"PlaybackStatus": self.status}, [])

    @dbus.service.method(PLAYER, sender_keyword="sender")
    def Play(self, sender=None):
        self.set_status("Play", sender, "Playing")

    @dbus.service.method(PLAYER, sender_keyword="sender")
    def Pause(self, sender=None):
        if not CAN_PAUSE:
            record(event="call", method="Pause", sender=str(sender), status=self.status)
            raise dbus.exceptions.DBusException("this player cannot pause", name="org.mpris.MediaPlayer2.Error.CannotPause")
        self.set_status("Pause", sender, "Paused")

    @dbus.service.method(PLAYER, sender_keyword="sender")
    def PlayPause(self, sender=None):
        self.set_status("PlayPause", sender, "Paused" if self.status == "Playing" else "Playing")

    @dbus.service.method(PLAYER, sender_keyword="sender")
    def Stop(self, sender=None):
        self.set_status("Stop", sender, "Stopped")

    @dbus.service.method(PLAYER)
    def Next(self):
        pass

    @dbus.service.method(PLAYER)
    def Previous(self):
        pass

    def player_properties(self):
        return {"PlaybackStatus": self.status, "CanControl": True, "CanPlay": True, "CanPause": CAN_PAUSE,
                "CanGoNext": True, "CanGoPrevious": True, "CanSeek": False, "Rate": 1.0, "Volume": 1.0,
                "Position": dbus.Int64(0), "MinimumRate": 1.0, "MaximumRate": 1.0,
                "Metadata": dbus.Dictionary({"mpris:trackid": dbus.ObjectPath("/test/track/1"), "xesam:title": "Music"},
                                            signature="sv")}

    @dbus.service.method(PROPERTIES, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        if interface == PLAYER:
            return self.player_properties()
        return {"Identity": "Test music", "CanQuit": False, "CanRaise": False, "HasTrackList": False,
                "SupportedUriSchemes": dbus.Array([], signature="s"), "SupportedMimeTypes": dbus.Array([], signature="s")}

    @dbus.service.method(PROPERTIES, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        return self.GetAll(interface)[name]

    @dbus.service.signal(PROPERTIES, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass


DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
player = Player(bus)
# Who takes which player name, and when: the test compares it with the pause's time.
bus.add_signal_receiver(lambda name, old, new: record(event="owner", name=str(name), owner=str(new))
                        if str(name).startswith(ROOT + ".") else None,
                        signal_name="NameOwnerChanged", dbus_interface="org.freedesktop.DBus", bus_name="org.freedesktop.DBus")
result = bus.request_name(NAME, dbus.bus.NAME_FLAG_REPLACE_EXISTING if "--replace" in sys.argv else 0)
record(event="requested", name=NAME, result=int(result))
if "--extra-names" in sys.argv:
    for index in range(int(sys.argv[sys.argv.index("--extra-names") + 1])):
        bus.request_name("%s-%02d" % (NAME, index), 0)
record(event="started", name=NAME, status=player.status)
GLib.MainLoop().run()
