#!/usr/bin/env python3
"""Runs a command on a pseudo-terminal and relays bytes both ways.

Usage: pty_run.py COLUMNS ROWS -- COMMAND [ARG...]

Bytes on this process's stdin go to the terminal (as keystrokes); what
the program writes to the terminal comes out on stdout, unchanged. When
stdin ends, keystrokes stop but the program runs on. The exit status is
the program's (128 + N when signal N ended it). Standard library only.

A test resizes the terminal by writing ESC ] pty-resize;COLUMNS;ROWS BEL
on stdin: it is not typed; the terminal gets the new size and the
program a SIGWINCH; ESC ] pty-resized BEL in the output marks where.
"""
import fcntl
import os
import pty
import re
import select
import struct
import sys
import termios


RESIZE = re.compile(rb"\x1b\]pty-resize;(\d+);(\d+)\x07")


def resize(master: int, data: bytes) -> bytes:
    """Applies and removes the resize requests in `data`."""
    for m in RESIZE.finditer(data):
        size = struct.pack("HHHH", int(m.group(2)), int(m.group(1)), 0, 0)
        fcntl.ioctl(master, termios.TIOCSWINSZ, size)
        os.write(1, b"\x1b]pty-resized\x07")
    return RESIZE.sub(b"", data)


def main() -> int:
    if len(sys.argv) < 5 or sys.argv[3] != "--":
        sys.stderr.write("usage: pty_run.py COLUMNS ROWS -- COMMAND [ARG...]\n")
        return 2
    cols, rows = int(sys.argv[1]), int(sys.argv[2])
    argv = sys.argv[4:]
    pid, master = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    inputs = [0, master]
    while True:
        try:
            ready, _, _ = select.select(inputs, [], [])
        except InterruptedError:
            continue
        if master in ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                data = b""
            if not data:
                break
            os.write(1, data)
        if 0 in ready:
            data = os.read(0, 65536)
            if not data:
                inputs = [master]
            else:
                data = resize(master, data)
                while data:
                    n = os.write(master, data)
                    data = data[n:]
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main())
