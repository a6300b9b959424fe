#!/usr/bin/python3
"""A hostile or careless D-Bus client of reveille-agent, for the end-to-end tests.

    hostile-client.py two-hellos APP_ID OTHER_ID      one connection introduces two apps
    hostile-client.py park APP_ID COUNT               an undecided app sends COUNT Schedule calls at once
    hostile-client.py subscribe COUNT                 COUNT connections of the user's tools subscribe
    hostile-client.py subscribed-run COUNT PROGRAM ARG...
                                                      COUNT connections subscribe and stay, while PROGRAM runs
                                                      (killed after 15 s): its exit status and output
    hostile-client.py apps-subscribe APPS             one process subscribes 16 connections under each of APPS app ids,
                                                      then a connection of the user's tools subscribes: how each was answered
    hostile-client.py sounds APP_ID                   an app lists the sounds
    hostile-client.py flood APP_ID CONNECTIONS CALLS MEGABYTES
                                                      an undecided app sends CALLS Schedule calls of MEGABYTES
                                                      on each of CONNECTIONS connections at once
    hostile-client.py many COUNT                      the user's tools store COUNT alarms of about 11 KB of JSON each
                                                      (metadata and a title that JSON escapes), then ask for List
    hostile-client.py hammer COUNT                    the user's tools press Stop on an alarm that is not there,
                                                      COUNT times, 100 at once (the bus's pending replies per
                                                      connection are bounded): how each was answered
    hostile-client.py listen COUNT STORED             STORED alarms are stored, COUNT connections subscribe,
                                                      then one alarm is added and cancelled: what each heard

Prints one JSON object: what each call answered ("ok" or the D-Bus error name and message).
Uses Debian's python3-dbus on the bus of DBUS_SESSION_BUS_ADDRESS.
"""
import json
import os
import subprocess
import sys

import dbus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

NAME, PATH, IFACE = "io.github.reveille.Reveille", "/io/github/reveille/Reveille", "io.github.reveille.Reveille1"
ADDRESS = os.environ["DBUS_SESSION_BUS_ADDRESS"]
TIMER = json.dumps({"presentation": {"alert": {"title": "Hostile"}}, "countdownDuration": {"preAlert": 3600}})


def connect():
    bus = dbus.bus.BusConnection(ADDRESS)
    return bus, dbus.Interface(bus.get_object(NAME, PATH), IFACE)


def outcome(call):
    try:
        call()
        return "ok"
    except dbus.DBusException as error:
        return f"{error.get_dbus_name()}: {error.get_dbus_message()}"


def gather(count, send, seconds):
    """Sends `count` calls with `send(reply, error)` at once; their answers, in order of arrival."""
    answers, loop = [], GLib.MainLoop()

    def done(result):
        answers.append(result)
        if len(answers) == count:
            loop.quit()
    for _ in range(count):
        send(lambda _: done("ok"), lambda error: done(f"{error.get_dbus_name()}: {error.get_dbus_message()}"))
    GLib.timeout_add(seconds * 1000, loop.quit)
    loop.run()
    return answers


def main(command, *args):
    if command == "two-hellos":
        _, agent = connect()
        return {"first": outcome(lambda: agent.Hello(args[0], "Test")), "second": outcome(lambda: agent.Hello(args[1], "Test"))}
    if command == "park":
        DBusGMainLoop(set_as_default=True)
        bus, agent = connect()
        agent.Hello(args[0], "Wants alarms")
        answers = gather(int(args[1]), lambda reply, error: agent.Schedule(
            "", TIMER, dbus.Dictionary({}, signature="sv"), timeout=5, reply_handler=reply, error_handler=error), 4)
        refused = [a for a in answers if "already wait for the user" in a]
        return {"answered": len(answers), "refused": len(refused), "sample": refused[:1]}
    if command == "flood":
        DBusGMainLoop(set_as_default=True)
        connections, calls, size = int(args[1]), int(args[2]), int(float(args[3]) * (1 << 20))
        configuration = json.dumps({"presentation": {"alert": {"title": "x" * size}}, "countdownDuration": {"preAlert": 3600}})
        agents = []
        for _ in range(connections):
            agents.append(connect()[1])
            agents[-1].Hello(args[0], "Wants alarms")
        sent = []

        def send(reply, error):
            agent = agents[len(sent) // calls]
            sent.append(agent)
            agent.Schedule("", configuration, dbus.Dictionary({}, signature="sv"), timeout=120,
                           reply_handler=reply, error_handler=error)
        answers = gather(connections * calls, send, 120)
        # The agent refuses them as they arrive (its incoming budget) or when it reads them (its argument bound).
        ours = [a for a in answers if "at most 131072 are accepted" in a or "reveille-agent takes at most" in a]
        bus = [a for a in answers if a.startswith("org.freedesktop.DBus.Error.LimitsExceeded")]
        other = [a[:200] for a in answers if a not in ours and a not in bus]
        return {"answered": len(answers), "refusedByAgent": len(ours), "refusedByBus": len(bus), "other": other[:3]}
    if command == "many":
        _, agent = connect()
        metadata = json.dumps('"' * 2000)
        alarm = json.dumps({"presentation": {"alert": {"title": "Many" + "\u0001" * 496}},
                            "countdownDuration": {"preAlert": 86400}, "metadata": metadata})
        for _ in range(int(args[0])):
            agent.Schedule("", alarm, dbus.Dictionary({}, signature="sv"))
        return {"list": outcome(lambda: agent.List())}
    if command == "subscribe":
        connections, answers = [], []
        for _ in range(int(args[0])):
            bus, agent = connect()
            connections.append(bus)
            answers.append(outcome(lambda: agent.Subscribe()))
        return {"ok": answers.count("ok"), "refused": [a for a in answers if a != "ok"][:1]}
    if command == "apps-subscribe":
        connections, answers = [], []
        for app in range(int(args[0])):
            for _ in range(16):
                bus, agent = connect()
                connections.append(bus)
                answers.append(outcome(lambda: (agent.Hello(f"org.test.Many{app}", "Wants alarms"), agent.Subscribe())))
        _, user = connect()
        return {"apps": answers.count("ok"), "refused": [a for a in answers if a != "ok"][:1], "user": outcome(lambda: user.Subscribe())}
    if command == "subscribed-run":
        connections = []
        for _ in range(int(args[0])):
            bus, agent = connect()
            connections.append(bus)
            agent.Subscribe()
        try:
            ran = subprocess.run(list(args[1:]), capture_output=True, text=True, timeout=15)
            return {"status": ran.returncode, "stdout": ran.stdout, "stderr": ran.stderr}
        except subprocess.TimeoutExpired as expired:
            return {"status": "timed out", "stdout": str(expired.stdout or ""), "stderr": str(expired.stderr or "")}
    if command == "hammer":
        DBusGMainLoop(set_as_default=True)
        _, agent = connect()
        answers = []
        for wave in range(0, int(args[0]), 100):
            answers += gather(min(100, int(args[0]) - wave), lambda reply, error: agent.PressButton(
                "00000000-0000-4000-8000-00000000dead", "stop", timeout=10, reply_handler=reply, error_handler=error), 20)
        kinds = {}
        for answer in answers:
            kinds[answer.split(":")[0]] = kinds.get(answer.split(":")[0], 0) + 1
        return {"answered": len(answers), "refused": len([a for a in answers if "NotFound" in a]), "kinds": kinds,
                "busy": len([a for a in answers if a.startswith("org.freedesktop.DBus.Error.LimitsExceeded")]),
                "other": [a for a in answers if "NotFound" not in a][:1]}
    if command == "sounds":
        _, agent = connect()
        agent.Hello(args[0], "Test")
        return {"sounds": json.loads(agent.ListSounds())}
    if command == "listen":
        DBusGMainLoop(set_as_default=True)
        count, stored = int(args[0]), int(args[1])
        _, owner = connect()
        for _ in range(stored):
            owner.Schedule("", TIMER, dbus.Dictionary({}, signature="sv"))
        heard, loop = [[] for _ in range(count)], GLib.MainLoop()

        def listener(index):
            def on_update(changed, removed):
                heard[index].append({"changed": len(json.loads(changed)), "bytes": len(changed.encode()),
                                     "removed": [str(r) for r in removed]})
                if all(len(h) == 2 for h in heard):
                    loop.quit()
            return on_update

        listeners = []
        for index in range(count):
            bus, agent = connect()
            bus.add_signal_receiver(listener(index), "AlarmsUpdated", IFACE, NAME, PATH)
            listeners.append((bus, agent))
            agent.Subscribe()
        added = json.loads(owner.Schedule("", TIMER, dbus.Dictionary({}, signature="sv")))["alarm"]["id"]
        owner.Cancel(added)
        GLib.timeout_add(10000, loop.quit)
        loop.run()
        return {"added": added, "heard": heard}
    raise SystemExit(f"unknown command {command}")


print(json.dumps(main(*sys.argv[1:])))
