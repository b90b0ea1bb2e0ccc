"""Second line of defence: host-identifying words are taken out of evidence before it is stored.

Why: evidence (compiler lines, a job's stderr tail) goes into the store, the CSV and whatever is published from
them. The sandbox no longer shows the host's /etc (executors/jail_etc.py), but a job can still see the host's
read-only file system (home folder names, paths) and a toolchain may print paths: so the names that identify this
machine and its people are replaced wherever they appear, as whole words. They are: the host name (and its first
label), the names of the regular accounts in the host's real /etc/passwd (uid >= 1000 except nobody: not the
standard system accounts, which every Debian has) with their GECOS real names, and the names of regular groups.
"""

from __future__ import annotations

import re
import socket
from functools import cache
from pathlib import Path

from hpceval.contracts import Evaluation

PLACEHOLDER = "[redacted]"
FIRST_REGULAR_ID = 1000  # login.defs UID_MIN / GID_MIN on Debian, Ubuntu, Fedora
NOT_PEOPLE = {65533, 65534, 4294967294, 4294967295}  # nobody, nogroup, nfsnobody and (uint32) -1/-2
GENERIC = {"localhost", "sandbox", "nobody", "nogroup", "root", "users"}
MIN_LENGTH = 2


def regular_names(passwd: str, group: str = "") -> set[str]:
    """Account and group names (and GECOS real names) of the regular, non-system entries of passwd/group text."""
    names: set[str] = set()
    for text, is_passwd in ((passwd, True), (group, False)):
        for line in text.splitlines():
            fields = line.split(":")
            if len(fields) < 3 or not fields[2].isdigit():
                continue
            ident = int(fields[2])
            if ident < FIRST_REGULAR_ID or ident in NOT_PEOPLE:
                continue
            names.add(fields[0])
            if is_passwd and len(fields) > 4:
                real = fields[4].split(",")[0].strip()  # GECOS: full name, room, phones, ...
                if real:
                    names.add(real)
    return names


def host_names(hostname: str) -> set[str]:
    return {hostname, hostname.split(".")[0]} if hostname else set()


@cache
def host_identifiers() -> tuple[str, ...]:
    """What identifies this host and its users, longest first (so a full name goes before its parts)."""
    texts = []
    for name in ("passwd", "group"):
        try:
            texts.append(Path("/etc", name).read_text(errors="replace"))
        except OSError:
            texts.append("")
    words = regular_names(*texts) | host_names(socket.gethostname())
    return _clean(words)


def _clean(words: set[str]) -> tuple[str, ...]:
    kept = {w for w in words if len(w) >= MIN_LENGTH and w.lower() not in GENERIC}
    return tuple(sorted(kept, key=lambda w: (-len(w), w)))


@cache
def _pattern(words: tuple[str, ...]) -> re.Pattern[str] | None:
    if not words:
        return None
    alternatives = "|".join(re.escape(w) for w in words)
    return re.compile(rf"(?<![A-Za-z0-9_])(?:{alternatives})(?![A-Za-z0-9_])")


def redact_text(text: str, words: tuple[str, ...] | set[str] | None = None) -> str:
    """`text` with every whole-word occurrence of the identifiers replaced by [redacted]."""
    pattern = _pattern(host_identifiers() if words is None else _clean(set(words)))
    if pattern is None or not text:
        return text
    return pattern.sub(PLACEHOLDER, text)


CACHE_NAME = "$HPCEVAL_CACHE"


@cache
def _checkout() -> str | None:
    """The harness's source checkout (`pip install -e .`), whose folder is this machine's; None when installed."""
    from hpceval.paths import PACKAGE_DIR

    root = PACKAGE_DIR.parent.parent
    return str(root) if (root / "pyproject.toml").is_file() else None


def relative_paths(text: str) -> str:
    """Paths into the harness's per-machine cache (a Kokkos header in a compiler error) as `$HPCEVAL_CACHE/...`,
    and paths into its checkout (a traceback through packages installed beside it) relative to the checkout: the
    published evidence names no folder of the machine that ran it."""
    from hpceval.toolchains.cuda import cache_dir

    if not text:
        return text
    text = text.replace(str(cache_dir()), CACHE_NAME)
    checkout = _checkout()
    return text.replace(checkout + "/", "") if checkout else text


def redacted(evaluation: Evaluation) -> Evaluation:
    """The evaluation with its evidence redacted (the same object when there was nothing to take out)."""
    clean = relative_paths(redact_text(evaluation.evidence))
    return evaluation if clean == evaluation.evidence else evaluation.model_copy(update={"evidence": clean})
