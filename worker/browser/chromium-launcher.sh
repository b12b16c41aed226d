#!/bin/sh
# The pool starts Chromium through this launcher (its executablePath; the real binary comes in
# SIGHTLINE_CHROMIUM_PATH, the nice value in SIGHTLINE_CHROMIUM_NICE): at nice 10 and, run as
# root, without CAP_SYS_NICE. Chromium sets its
# own threads' priorities (nice 0 for most, -8 for its compositor, IO and audio threads), which
# root may do, and then they take the cores from the worker's event loop. Without
# the capability (and with the default RLIMIT_NICE of 0) no thread can go below the nice 10 it
# starts with; Chromium carries on when it cannot raise a priority.
# Started detached, Chromium is a session, and so a scheduler autogroup, of its own: the group's
# nice value (not its threads') decides its share against the worker's session.
real="${SIGHTLINE_CHROMIUM_PATH:?SIGHTLINE_CHROMIUM_PATH is not set}"
nice="${SIGHTLINE_CHROMIUM_NICE:-10}"
session_of() { echo "$6"; } # /proc/<pid>/stat: pid (comm) state ppid pgrp session ...
if [ -w /proc/self/autogroup ] && [ "$(session_of $(cat /proc/$$/stat))" = "$$" ]; then
  echo "$nice" > /proc/self/autogroup 2>/dev/null || true
fi
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
  exec nice -n "$nice" setpriv --bounding-set -sys_nice --inh-caps -sys_nice -- "$real" "$@"
fi
exec nice -n "$nice" "$real" "$@"
