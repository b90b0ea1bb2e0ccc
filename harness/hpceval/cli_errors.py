"""How every `hpceval` command fails: expected failures as one red line and exit 2, Ctrl-C as a resumable stop.

Split from cli.py (the commands) so that command modules beside it (cli_import) share the same error handling and
consoles without importing the app that registers them.
"""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Callable
from functools import wraps
from typing import Any

import typer
from rich.console import Console
from rich.text import Text

from hpceval import lifecycle

console = Console()
err_console = Console(stderr=True)


class UserError(Exception):
    """An error the user can fix; printed as one line."""


def _user_errors() -> tuple[type[BaseException], ...]:
    from hpceval.bind import BindError
    from hpceval.executors import ExecutorUnavailable
    from hpceval.llm import BackendError
    from hpceval.metrics import RubricError
    from hpceval.preflight import BadInput
    from hpceval.spec import SpecError, UnknownNameError
    from hpceval.store import StoreError
    from hpceval.tables import FormatError

    return (UserError, UnknownNameError, SpecError, BackendError, ExecutorUnavailable, BindError, FileNotFoundError,
            RubricError, BadInput, StoreError, FormatError, PermissionError, NotADirectoryError, IsADirectoryError,
            FileExistsError)


def _one_line(exc: BaseException) -> str:
    """The message of an expected failure on one line (an OSError as `PATH: reason`)."""
    if isinstance(exc, OSError) and exc.strerror and exc.filename and not isinstance(exc, UserError):
        return f"{exc.filename}: {exc.strerror}"
    return " ".join(str(exc).split())


def error(message: str, label: str = "error:", style: str = "red") -> None:
    """One line on stderr; the message is printed as it is (brackets in paths are not markup)."""
    err_console.print(Text.assemble((label, style), " ", message), highlight=False, soft_wrap=True)


def friendly(func: Callable[..., Any]) -> Callable[..., Any]:
    """Turn expected failures into one-line errors (exit 2) and Ctrl-C into a resumable stop (exit 130)."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        lifecycle.arm()  # the first Ctrl-C inside a command is a KeyboardInterrupt (below); a later one exits at once
        environment = dict(os.environ)
        try:
            return func(*args, **kwargs)
        except KeyboardInterrupt:
            _interrupted(func.__name__)
        except _user_errors() as exc:
            error(_one_line(exc))
            raise typer.Exit(2) from None
        except sqlite3.DatabaseError as exc:  # a store damaged while in use (it was checked when opened)
            error(f"the results store failed ({_one_line(exc)}); if it is damaged, `hpceval recover DIR` copies what "
                  "is readable into a new store")
            raise typer.Exit(2) from None
        finally:
            lifecycle.disarm()
            _restore_environment(environment)

    return wrapper


def _restore_environment(saved: dict[str, str]) -> None:
    """Put os.environ back as it was before the command. A command points its worker processes at the user's
    folders through the environment (`--kernels-dir`, `--prompts-dir`); in a process that runs several commands (an
    embedding program, CliRunner in tests) that choice must not outlive the command, or every later `catalog()`
    would still hold the user's kernels. The catalog is cached per folder, so restoring the variable restores it."""
    for name in [n for n in os.environ if n not in saved]:
        del os.environ[name]
    for name, value in saved.items():
        if os.environ.get(name) != value:
            os.environ[name] = value


def _interrupted(command: str) -> None:
    """Ctrl-C, SIGTERM or SIGHUP in a command: kill the jobs in flight (what finished is stored already), remove
    the scratch dirs, print one line (for `run`: the command that resumes), exit 128 + signal (130 for Ctrl-C)."""
    lifecycle.stop_jobs()
    lifecycle.set_resume_message(lifecycle.resume_message([command, *sys.argv[2:]] if command == "run" else []))
    if lifecycle.is_program():
        lifecycle.emergency_exit()  # without waiting for worker threads whose jobs were just killed
    lifecycle.announce()
    raise typer.Exit(lifecycle.exit_code()) from None
