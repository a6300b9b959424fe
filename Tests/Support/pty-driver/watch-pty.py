#!/usr/bin/python3
"""Runs `reveille watch` on a pseudo-terminal, as a person at a terminal would, for the tests.

    watch-pty.py REVEILLE SIGNAL KEYS...

Waits for the first screen, presses each of KEYS (waiting for the screen after each; a key
`wait:TEXT` presses nothing and waits up to 15 s for TEXT on the screen), then
sends SIGNAL (INT, TERM or HUP) to watch. Prints one JSON object: the exit status, whether the
terminal was left with echo and canonical input back on and the cursor shown, and the text of
each screen after a key.
"""
import json
import os
import pty
import select
import signal
import sys
import termios
import time


def read_until(fd, needle, timeout=8.0):
    data, deadline = b"", time.monotonic() + timeout
    while needle not in data and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            data += chunk
    return data


def main(reveille, signal_name, *keys):
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(reveille, [reveille, "watch"])
    screens = []
    first = read_until(fd, b"quit")
    screens.append(first.decode(errors="replace"))
    for key in keys:
        if key.startswith("wait:"):
            screens.append(read_until(fd, key[5:].encode(), timeout=15).decode(errors="replace"))
            continue
        os.write(fd, key.encode())
        screens.append(read_until(fd, b"\x1b[J", timeout=5).decode(errors="replace"))
    attributes_before_exit = termios.tcgetattr(fd)[3]
    os.kill(pid, getattr(signal, "SIG" + signal_name))
    rest = read_until(fd, b"never", timeout=3)
    _, status = os.waitpid(pid, 0)
    lflag = termios.tcgetattr(fd)[3] if True else 0
    return {
        "status": os.waitstatus_to_exitcode(status),
        "raw_while_running": not (attributes_before_exit & termios.ECHO),
        "echo_restored": bool(lflag & termios.ECHO) and bool(lflag & termios.ICANON),
        "cursor_shown": b"\x1b[?25h" in rest,
        "screens": screens,
        "cleared_whole_screen": any("\x1b[2J" in screen for screen in screens),
    }


print(json.dumps(main(*sys.argv[1:])))
