"""Environment files: ``.env`` then ``.env.<environment>``, dotenv syntax, values never logged."""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

import pytest
from skillc.contracts.errors import ConfigError, UsageError
from skillc.runtime.envfile import load_env, parse_env, shell_variables

SYNTAX = r"""
# a comment
PLAIN=value
export EXPORTED=yes
SPACED = around the sign
INLINE=kept # dropped
HASH=a#b
EMPTY=
SINGLE='single # kept $HOME \n raw'
SINGLE_ESCAPES='it\'s \\ done'
DOUBLE="line\nnext\t\"quoted\" \\ done"  # a comment after the quote
MULTI="first
second"
URL=postgres://user:p=ss@host/db
DOTTED.KEY=1
"""


def test_dotenv_syntax() -> None:
    assert parse_env(SYNTAX) == {
        "PLAIN": "value",
        "EXPORTED": "yes",
        "SPACED": "around the sign",
        "INLINE": "kept",
        "HASH": "a#b",
        "EMPTY": "",
        "SINGLE": "single # kept $HOME \\n raw",
        "SINGLE_ESCAPES": "it's \\ done",
        "DOUBLE": 'line\nnext\t"quoted" \\ done',
        "MULTI": "first\nsecond",
        "URL": "postgres://user:p=ss@host/db",
        "DOTTED.KEY": "1",
    }


def test_windows_line_endings_and_a_byte_order_mark() -> None:
    assert parse_env("\ufeffA=1\r\nB='2'\r\n") == {"A": "1", "B": "2"}


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("A=1\nNOT A LINE\n", 2, "expected '=' after the variable name"),
        ("A=1\n\n=value\n", 3, "expected a variable name"),
        ('A="never closed\nB=2\n', 1, "the value's \" quote is never closed"),
        ("A='x' trailing\n", 1, "unexpected text after the closing quote"),
    ],
)
def test_mistakes_name_their_line(text: str, line: int, problem: str) -> None:
    with pytest.raises(ValueError, match=f"line {line}: {problem}"):
        parse_env(text)


def test_the_environments_file_wins_and_nothing_is_logged(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    (tmp_path / ".env").write_text("TOKEN=shared-secret\nONLY_BASE=1\n")
    (tmp_path / ".env.production").write_text("TOKEN='production-secret'\n")
    assert load_env(tmp_path, "production") == {"TOKEN": "production-secret", "ONLY_BASE": "1"}
    assert load_env(tmp_path, "sandbox") == {"TOKEN": "shared-secret", "ONLY_BASE": "1"}
    assert "secret" not in caplog.text


def test_missing_files_are_empty(tmp_path: Path) -> None:
    assert load_env(tmp_path, "sandbox") == {}


def test_a_malformed_file_is_a_config_error_that_does_not_repeat_the_line(tmp_path: Path) -> None:
    (tmp_path / ".env.sandbox").write_text("GOOD=1\nsecret-value-without-a-key\n")
    with pytest.raises(ConfigError) as caught:
        load_env(tmp_path, "sandbox")
    assert ".env.sandbox: line 2" in caught.value.message
    assert "secret-value" not in caught.value.message


def test_an_unknown_environment_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="sandbox, production"):
        load_env(tmp_path, "../secrets")


def test_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    (tmp_path / ".env").write_bytes(b"A=\xff\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_env(tmp_path, "sandbox")


def test_the_shells_variables_are_read_while_other_threads_change_the_environment() -> None:
    """A tool's thread that sets and removes variables while ``ctx.env`` is read: never a ``KeyError``.

    (``os.environ.items()`` looks each key up after listing them: a key removed in
    between fails the whole read.)  A variable that is there for the whole read is always in it.
    """
    os.environ["SKILLC_TEST_STEADY"] = "kept"
    stop = threading.Event()

    def churn(thread: int) -> None:
        for round_ in range(1_000_000):  # bounded: the reads below end it far sooner
            if stop.is_set():
                return
            names = [f"SKILLC_TEST_CHURN_{thread}_{round_}_{index}" for index in range(20)]
            for name in names:
                os.environ[name] = "x"
            for name in names:
                del os.environ[name]

    threads = [threading.Thread(target=churn, args=(number,)) for number in range(2)]
    for thread in threads:
        thread.start()
    try:
        for _ in range(3_000):
            assert shell_variables(os.environ)["SKILLC_TEST_STEADY"] == "kept"
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
        del os.environ["SKILLC_TEST_STEADY"]
    assert not any(thread.is_alive() for thread in threads)
