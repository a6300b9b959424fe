#!/usr/bin/python3
"""A client of reveille-agent whose connection outlives the process the bus knows it by, for
the end-to-end tests of PID reuse (run inside a sandbox).

    pid-reuse.py REPORT BEFORE AFTER

BEFORE and AFTER are JSON lists of calls, each [METHOD, STRING...] on the agent's interface.
The process that connects (the one whose id the bus records) makes the BEFORE calls, then one
call on a second connection, which the agent answers only once it has noted when the first one
appeared (it handles the bus's messages in order), forks a keeper that holds the connection,
prints {"name": UNIQUE NAME, "pid": ITS PID, "keeper": PID, "before": [ANSWER...], "heard": TICK}
(TICK: the clock tick, as process start times count them, by which the agent had heard) and
exits. The keeper waits for SIGUSR1 (sent once the test has given the id to another process),
makes the AFTER calls on the same connection, writes {"after": [ANSWER...]} to REPORT (whole,
by a rename) and exits. An answer is "ok: FIRST REPLY STRING" or "ERROR NAME: MESSAGE".
Uses Debian's python3-dbus on the bus of DBUS_SESSION_BUS_ADDRESS.
"""
import json
import os
import signal
import sys
import time

import dbus

NAME, PATH, IFACE = "io.github.reveille.Reveille", "/io/github/reveille/Reveille", "io.github.reveille.Reveille1"


def answers(bus, calls):
    """Each call's answer, made in order on `bus` (no introspection: only these calls reach the agent)."""
    agent = dbus.Interface(bus.get_object(NAME, PATH, introspect=False), IFACE)
    results = []
    for method, *arguments in calls:
        try:
            reply = getattr(agent, method)(*arguments)
            first = reply[0] if isinstance(reply, (list, tuple)) and reply else reply
            results.append(f"ok: {first if first is not None else ''}")
        except dbus.DBusException as error:
            results.append(f"{error.get_dbus_name()}: {error.get_dbus_message()}")
    return results


def main(report, before, after):
    probe = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
    bus = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
    said = answers(bus, json.loads(before))
    answers(probe, [["AuthorizationState"]])
    heard = time.clock_gettime_ns(time.CLOCK_BOOTTIME) * os.sysconf("SC_CLK_TCK") // 1_000_000_000
    # Blocked before the fork, so the keeper cannot miss a signal sent once this process is gone.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    keeper = os.fork()
    if keeper == 0:
        signal.sigwait({signal.SIGUSR1})
        with open(report + ".tmp", "w") as file:
            json.dump({"after": answers(bus, json.loads(after))}, file)
        os.rename(report + ".tmp", report)
        os._exit(0)
    print(json.dumps({"name": bus.get_unique_name(), "pid": os.getpid(), "keeper": keeper, "before": said, "heard": heard}), flush=True)
    # Leaves without closing the connection: the keeper's copy of the socket keeps it open.
    os._exit(0)


main(*sys.argv[1:])
