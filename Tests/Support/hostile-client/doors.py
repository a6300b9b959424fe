#!/usr/bin/python3
"""Every door of reveille-agent, listed and knocked on, and floods through them, for the end-to-end tests.

    doors.py list                       the objects and interfaces the agent's connection exports
                                        (Introspect from /, recursively; org.freedesktop.DBus.* left out):
                                        [{"path", "interface", "methods": [[NAME, IN-SIGNATURE]], "properties": [NAME]}]
    doors.py knock DOORS                each method of DOORS (as `list` prints them) called with empty
                                        arguments, each property read, and `Event(id, "clicked")` for
                                        ids 0 to 63 on a menu: [{"path", "interface", "member", "answer"}], the
                                        answer "ok: REPLY" or "ERROR NAME: MESSAGE"
    doors.py flood METHOD CONNECTIONS SECONDS [CALLS]
                                        CONNECTIONS raw connections that never read send METHOD as fast
                                        as the bus takes it for SECONDS (at most CALLS each, then they
                                        stay until SECONDS pass): "menu" is dbusmenu GetGroupProperties
                                        with 15,000 ids (under 64 KiB), "list" is ListPage("", 10000),
                                        "introspect" the agent's Introspect, "eventgroup" dbusmenu
                                        EventGroup with 2,000 clicks, "stop", "playsound", "getall";
                                        "direct-stop" is "stop" on the agent's direct line
                                        (REVEILLE_DIRECT_LINE), each connection the agent closes
                                        connecting again at once
                                        {"sent": [CALLS PER CONNECTION]}

Uses Debian's python3-dbus and python3-gi (Gio serializes the raw connections' messages) on
the bus of DBUS_SESSION_BUS_ADDRESS.
"""
import json
import os
import select
import socket
import sys
import time
import xml.etree.ElementTree as ElementTree

import dbus
from gi.repository import Gio, GLib

NAME = "io.github.reveille.Reveille"
ADDRESS = os.environ["DBUS_SESSION_BUS_ADDRESS"]


def doors():
    bus = dbus.bus.BusConnection(ADDRESS)
    found, paths = [], ["/"]
    while paths:
        path = paths.pop()
        node = ElementTree.fromstring(bus.call_blocking(NAME, path, "org.freedesktop.DBus.Introspectable", "Introspect", "", []))
        for child in node.findall("node"):
            paths.append(path.rstrip("/") + "/" + child.get("name"))
        for interface in node.findall("interface"):
            if interface.get("name").startswith("org.freedesktop.DBus."):
                continue
            found.append({"path": path, "interface": interface.get("name"),
                          "methods": [[m.get("name"), "".join(a.get("type") for a in m.findall("arg") if a.get("direction", "in") == "in")]
                                      for m in interface.findall("method")],
                          "properties": [p.get("name") for p in interface.findall("property")]})
    return sorted(found, key=lambda door: (door["path"], door["interface"]))


def empty(signature):
    """An empty value of each complete type in `signature`, as GVariant text."""
    values, index = [], 0
    while index < len(signature):
        end = complete_type_end(signature, index)
        values.append(empty_variant(signature[index:end]))
        index = end
    return values


def complete_type_end(signature, index):
    code = signature[index]
    if code == "a":
        return complete_type_end(signature, index + 1)
    if code in "({":
        depth = 0
        for position in range(index, len(signature)):
            depth += signature[position] in "({"
            depth -= signature[position] in ")}"
            if depth == 0:
                return position + 1
    return index + 1


def empty_variant(type_string):
    code = type_string[0]
    if code in "ybnqiuxth":
        return GLib.Variant(type_string, 0)
    if code == "d":
        return GLib.Variant("d", 0.0)
    if code in "s":
        return GLib.Variant("s", "")
    if code == "o":
        return GLib.Variant("o", "/")
    if code == "g":
        return GLib.Variant("g", "")
    if code == "v":
        return GLib.Variant("v", GLib.Variant("s", ""))
    if code == "a":
        return GLib.Variant.new_array(GLib.VariantType(type_string[1:]), [])
    if code == "(":
        inner, members, index = type_string[1:-1], [], 0
        while index < len(inner):
            end = complete_type_end(inner, index)
            members.append(empty_variant(inner[index:end]))
            index = end
        return GLib.Variant.new_tuple(*members)
    raise ValueError(type_string)


def knock(listed):
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    answers = []

    def call(path, interface, member, parameters):
        try:
            reply = bus.call_sync(NAME, path, interface, member, parameters, None, Gio.DBusCallFlags.NO_AUTO_START, 5000, None)
            return "ok: " + reply.print_(False)[:400]
        except GLib.Error as error:
            remote = Gio.DBusError.get_remote_error(error) or str(error.domain)
            Gio.DBusError.strip_remote_error(error)
            return f"{remote}: {error.message}"

    for door in listed:
        path, interface = door["path"], door["interface"]
        for method, signature in door["methods"]:
            answers.append({"path": path, "interface": interface, "member": method,
                            "answer": call(path, interface, method, GLib.Variant.new_tuple(*empty(signature)))})
            if interface == "com.canonical.dbusmenu" and method == "Event":
                for item in range(64):
                    parameters = GLib.Variant("(isvu)", (item, "clicked", GLib.Variant("s", ""), 0))
                    answers.append({"path": path, "interface": interface, "member": f"Event({item})",
                                    "answer": call(path, interface, "Event", parameters)})
        for name in door["properties"]:
            answers.append({"path": path, "interface": interface, "member": name,
                            "answer": call(path, "org.freedesktop.DBus.Properties", "Get", GLib.Variant("(ss)", (interface, name)))})
        answers.append({"path": path, "interface": interface, "member": "GetAll",
                        "answer": call(path, "org.freedesktop.DBus.Properties", "GetAll", GLib.Variant("(s)", (interface,)))})
    return answers


class RawConnection:
    """A connection that authenticates, says Hello, and then only writes: it never reads a reply."""

    def __init__(self, direct=None):
        """On the bus, or, given `direct`, on the agent's direct line at that path (peer to peer: no Hello)."""
        path = dict(part.split("=", 1) for part in ADDRESS.split(":", 1)[1].split(","))
        self.direct = direct
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.socket.connect(direct or (path["path"] if "path" in path else "\0" + path["abstract"]))
        self.socket.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\n")
        if not self.socket.recv(4096).startswith(b"OK"):
            raise ConnectionError("the raw connection was not accepted")
        self.socket.sendall(b"BEGIN\r\n")
        self.serial = 0
        if not direct:
            self.send("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello", None)
        self.socket.setblocking(False)
        self.pending = b""

    def message(self, destination, path, interface, member, body):
        self.serial += 1
        message = Gio.DBusMessage.new_method_call(destination, path, interface, member)
        if body is not None:
            message.set_body(body)
        message.set_serial(self.serial)
        return message.to_blob(Gio.DBusCapabilityFlags.NONE)

    def send(self, destination, path, interface, member, body):
        self.socket.sendall(self.message(destination, path, interface, member, body))

    def offer(self, blob, deadline):
        """Writes `blob` as far as the bus takes it before `deadline`; True once all of it left."""
        self.pending += blob
        while self.pending and time.monotonic() < deadline:
            _, writable, _ = select.select([], [self.socket], [], max(0, min(0.05, deadline - time.monotonic())))
            if writable:
                try:
                    self.pending = self.pending[self.socket.send(self.pending):]
                except BlockingIOError:
                    pass
        return not self.pending


def flood(kind, connections, seconds, calls):
    # "direct-stop": the Stop flood on the agent's direct line (REVEILLE_DIRECT_LINE names its
    # socket); a connection the agent closes to make room connects again at once.
    direct = os.environ["REVEILLE_DIRECT_LINE"] if kind.startswith("direct-") else None
    kind = kind.removeprefix("direct-")
    raw = []
    for _ in range(connections):
        try:
            raw.append(RawConnection(direct))
        except OSError:
            raw.append(None)
    if kind == "menu":
        body = GLib.Variant("(aias)", ([0] * 15000, []))
        call = (NAME, "/MenuBar", "com.canonical.dbusmenu", "GetGroupProperties", body)
    elif kind == "stop":
        # A cheap answering call: Stop of an alarm that does not exist.
        call = (NAME, "/io/github/reveille/Reveille", "io.github.reveille.Reveille1", "Stop", GLib.Variant("(s)", ("deadbeef",)))
    elif kind == "playsound":
        call = (NAME, "/io/github/reveille/Reveille", "io.github.reveille.Reveille1", "PlaySound", GLib.Variant("(sd)", ("default", 60.0)))
    elif kind == "introspect":
        # Answered with the agent's whole interface description, a hundred times the call's size.
        call = (NAME, "/io/github/reveille/Reveille", "org.freedesktop.DBus.Introspectable", "Introspect", None)
    elif kind == "eventgroup":
        # The panel menu's EventGroup with 2,000 clicks on item 1 (under 64 KiB a call).
        body = GLib.Variant("(a(isvu))", ([(1, "clicked", GLib.Variant("s", ""), 0)] * 2000,))
        call = (NAME, "/MenuBar", "com.canonical.dbusmenu", "EventGroup", body)
    elif kind == "getall":
        call = (NAME, "/StatusNotifierItem", "org.freedesktop.DBus.Properties", "GetAll", GLib.Variant("(s)", ("org.kde.StatusNotifierItem",)))
    else:
        call = (NAME, "/io/github/reveille/Reveille", "io.github.reveille.Reveille1", "ListPage", GLib.Variant("(su)", ("", 10000)))
    sent = [0] * connections
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if min(sent) >= calls:
            time.sleep(0.05)
            continue
        for index, connection in enumerate(raw):
            try:
                if connection is None:
                    raw[index] = connection = RawConnection(direct)
                target = (None,) + call[1:] if direct else call
                if sent[index] < calls and connection.offer(connection.message(*target), min(deadline, time.monotonic() + 0.01)):
                    sent[index] += 1
            except OSError:
                if connection is not None:
                    connection.socket.close()
                raw[index] = None
    for connection in raw:
        if connection is not None:
            connection.socket.close()
    return {"sent": sent}


def main(command, *args):
    if command == "list":
        return doors()
    if command == "knock":
        return knock(json.loads(args[0]))
    if command == "flood":
        return flood(args[0], int(args[1]), float(args[2]), int(args[3]) if len(args) > 3 else 1 << 62)
    raise SystemExit(f"unknown command {command}")


print(json.dumps(main(*sys.argv[1:])))
