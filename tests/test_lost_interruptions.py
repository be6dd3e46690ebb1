"""A Ctrl-C whose handler ran in a finalizer still stops the command (``lifetime.keep_lost_interruptions``).

Python raises a Ctrl-C's ``KeyboardInterrupt`` in whatever code runs when the handler does.
When that is a finalizer (a ``__del__``, a weak reference's callback: importlib runs one after
every import), Python prints "Exception ignored" and drops the exception, and the command went
on as if no Ctrl-C had come: once in the suite, a ``skill compile`` interrupted while it
loaded the compiler printed that and compiled.  The console script installs the hook before
it loads the command line; each case here is a real process that installs it the same way,
then has the signal's handler run inside a finalizer.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

#: The start of every script: the hook, and finalizers that have the handler run in them.
PRELUDE = """\
import signal
import sys
import threading
import time
import weakref

from skillc.cli import lifetime

lifetime.keep_lost_interruptions()


class SignalsWhenCollected:
    def __init__(self, signum):
        self.signum = signum

    def __del__(self):
        signal.raise_signal(self.signum)  # its handler runs here, in the finalizer
        print("the finalizer went on", flush=True)


class RaisesWhenCollected:
    def __del__(self):
        raise KeyboardInterrupt  # raised by code: no signal came


def spin(seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.001)
"""


def run_script(body: str) -> tuple[str, str]:
    """Run PRELUDE + ``body`` in a fresh interpreter; its stdout and stderr (it must exit 0)."""
    script = PRELUDE + textwrap.dedent(body)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr


@pytest.mark.parametrize("finalizer", ["__del__", "weakref callback"])
def test_a_ctrl_c_whose_handler_ran_in_a_finalizer_lands_in_the_code_that_was_running(finalizer: str) -> None:
    drop = {
        "__del__": "SignalsWhenCollected(signal.SIGINT)",
        "weakref callback": (
            "target = SignalsWhenCollected(0)\n"
            "    keep = weakref.ref(target, lambda _: signal.raise_signal(signal.SIGINT))\n"
            "    del target"
        ),
    }[finalizer]
    stdout, stderr = run_script(
        f"""
try:
    {drop}
    spin(30)
    print("not interrupted")
except KeyboardInterrupt:
    print("interrupted")
"""
    )
    # Before: "not interrupted" after 30 s, and Python's "Exception ignored in: ..." on stderr.
    assert stdout.splitlines()[-1] == "interrupted"
    assert stderr == ""


def test_a_ctrl_c_dropped_by_a_finalizer_ends_a_blocking_wait() -> None:
    stdout, stderr = run_script(
        """
try:
    SignalsWhenCollected(signal.SIGINT)
    threading.Event().wait(30)
    print("not interrupted")
except KeyboardInterrupt:
    print("interrupted")
"""
    )
    assert stdout.splitlines()[-1] == "interrupted"
    assert stderr == ""


def test_a_terminating_signal_dropped_by_a_finalizer_still_stops_the_command_when_sigint_is_ignored() -> None:
    # SIGINT ignored (a background job): the terminating signal's handler raises the
    # KeyboardInterrupt itself, and that is what it raises again.
    stdout, stderr = run_script(
        """
signal.signal(signal.SIGINT, signal.SIG_IGN)
lifetime.own_process()
lifetime.stop_in_order()
try:
    SignalsWhenCollected(signal.SIGTERM)
    spin(30)
    print("not interrupted")
except KeyboardInterrupt:
    print("interrupted by", signal.Signals(lifetime.terminated_by()).name)
"""
    )
    assert stdout.splitlines()[-1] == "interrupted by SIGTERM"
    assert stderr == ""


def test_what_the_hook_does_not_take_is_printed_as_before() -> None:
    stdout, stderr = run_script(
        """
class Fails:
    def __del__(self):
        raise ValueError("a finalizer's own error")


def in_a_thread():
    RaisesWhenCollected()


Fails()
worker = threading.Thread(target=in_a_thread)
worker.start()
worker.join()
spin(0.5)
print("not interrupted")
"""
    )
    assert stdout == "not interrupted\n"
    # A finalizer's error, and a KeyboardInterrupt raised by code in another thread: no signal's.
    assert stderr.count("Exception ignored in") == 2
    assert "ValueError: a finalizer's own error" in stderr
    assert "KeyboardInterrupt" in stderr


def test_a_finalizer_that_raises_keyboardinterrupt_on_and_on_is_sent_again_a_bounded_number_of_times() -> None:
    stdout, stderr = run_script(
        """
interrupted = 0
for _ in range(21):
    try:
        RaisesWhenCollected()
        spin(2)
    except KeyboardInterrupt:
        interrupted += 1
print(interrupted)
"""
    )
    # Sent again 20 times (lifetime._RESEND_AT_MOST); the 21st is printed as Python does.
    assert stdout == "20\n"
    assert stderr.count("Exception ignored in") == 1
