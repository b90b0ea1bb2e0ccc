"""The /etc a sandbox job sees: synthetic and minimal, never the host's.

Why: the jail shows a read-only view of the host's root, and with it the host's /etc: a suggestion that printed
/etc/passwd put the host's account names (and GECOS real names) into the evidence, the CSV and anything published
from them; /etc also holds the machine id, the host name, network and service configuration. Jobs need little of
it: the dynamic linker's cache and configuration (libraries outside the default paths: CUDA, ROCm, LLVM), the
`alternatives` links behind /usr/bin/cc and friends, the distribution's release files (clang picks linker defaults
from them), and a user database that can answer for the sandbox user. So the harness builds, once per process in
its scratch root, a directory with copies of those and generated passwd/group/hosts/hostname/nsswitch.conf that
know only the sandbox user (uid/gid 65534) and the name `sandbox`, and the local executor bind-mounts it read-only
over /etc. The Docker executor mounts the generated passwd and group over the image's own.
"""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

from hpceval import scratch

SANDBOX_UID = 65534
PASSWD = f"nobody:x:{SANDBOX_UID}:{SANDBOX_UID}:nobody:/nonexistent:/usr/sbin/nologin\n"
GROUP = f"nogroup:x:{SANDBOX_UID}:\n"
GENERATED = {
    "passwd": PASSWD,
    "group": GROUP,
    "hostname": "sandbox\n",
    "hosts": "127.0.0.1\tlocalhost\n127.0.1.1\tsandbox\n::1\tlocalhost ip6-localhost ip6-loopback\n",
    "nsswitch.conf": "passwd: files\ngroup: files\nshadow: files\nhosts: files\nnetworks: files\nprotocols: files\n"
                     "services: files\n",
}
# Copied from the host when present (files, dirs and links as they are): what toolchains read, nothing that
# identifies the host or its users.
COPIED = (
    "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "ld.so.preload",  # the dynamic linker
    "alternatives",  # /usr/bin/cc -> /etc/alternatives/cc -> /usr/bin/gcc, f95, c++, ...
    "os-release", "lsb-release", "debian_version", "redhat-release", "system-release",  # clang's distro detection
    "OpenCL", "vulkan",  # ICD loaders (SYCL, GPU runtimes)
    "protocols", "services",  # getprotobyname/getservbyname answer without a network
)
LINKS = {"mtab": "/proc/self/mounts"}

_guard = threading.Lock()


def build_etc(dest: Path, source: Path = Path("/etc")) -> Path:
    """Write the synthetic /etc into dest (made or emptied) from the host's `source`; returns dest."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for name in COPIED:
        src = source / name
        if os.path.islink(src):
            os.symlink(os.readlink(src), dest / name)
        elif src.is_dir():
            shutil.copytree(src, dest / name, symlinks=True, ignore_dangling_symlinks=True)
        elif src.is_file():
            shutil.copy2(src, dest / name)
    for name, text in GENERATED.items():
        (dest / name).write_text(text)
    for name, target in LINKS.items():
        os.symlink(target, dest / name)
    for root, _dirs, files in os.walk(dest):
        os.chmod(root, 0o755)
        for name in files:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                os.chmod(path, 0o644)
    return dest


def synthetic_etc() -> Path:
    """This process's synthetic /etc (in its scratch root), built on first use."""
    dest = scratch.root() / "etc"
    with _guard:
        if not (dest / "passwd").is_file():
            tmp = scratch.root() / "etc.new"
            build_etc(tmp)
            if dest.exists():
                shutil.rmtree(dest)
            tmp.rename(dest)
    return dest


def synthetic_file(name: str) -> Path:
    """One generated file of the synthetic /etc (passwd, group, ...), for executors that mount single files."""
    return synthetic_etc() / name
