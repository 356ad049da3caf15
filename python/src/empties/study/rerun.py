"""``python -m empties rerun SPEC``: run the groups of an empties plan with inspect_ai's ``eval_set``.

``empties rerun PLAN`` (the Go command) turns a plan of ``empties select``
into a spec and runs this module with the project's Python; users do not call
it directly. For each group of the spec (one eval × route, or one eval for a
Part C plan) it makes the eval's own task from the registry (task name and the
original run's task arguments, its judges included), and runs it with
``eval_set`` in the group's log folder:

* wide and control re-runs: the route's model and generate config (the wide
  arm's max_tokens), the planned sample ids and epochs;
* Part B and Part C: no model under test is called. Each planned sample is
  copied once per reply to grade, with a new id and the reply in its metadata
  (``empties_replay``), and the :func:`empties.replay.replay` solver puts it
  in place of the response; the eval's own scorer and judge grade it.

``eval_set`` is what makes a run resumable: a second invocation over the same
log folder finds the finished logs and runs nothing for them, and retries an
unfinished (killed or cancelled) log with the samples it had completed reused.
Every attempt's log is kept (``retry_cleanup=False``): the calls of an
attempt that was stopped are money spent, and ``empties rerun`` counts them
(a sample reused from an earlier attempt keeps its uuid and counts once).

Stopping. The runner stops where ``empties rerun`` says, and only there:

* A stop request (SIGTERM: ``empties rerun``'s first Ctrl-C, or its death,
  through the parent-death signal it sets on Linux) starts no new group and
  stops the running one the way inspect_ai stops cleanly on a first SIGINT:
  its samples in flight are cancelled (asyncio cancels eval_set's main task),
  the log is written as ``cancelled`` with the finished samples kept, and a
  next run retries the rest. The runner sends itself that SIGINT once;
  further requests change nothing (``empties rerun``'s second Ctrl-C kills
  the runner's process group outright).
* inspect_ai 0.3.285's ``eval_set`` returns ``(True, [])`` when it is
  cancelled, as if nothing were wrong: a group whose eval_set returned no
  log, or a cancelled one, or raised KeyboardInterrupt (a SIGINT sent to the
  runner itself), is a stopped group, and no group starts after it.
* The runner watches its parent (``parent_pid`` of the spec) as a fallback
  for the parent-death signal (another OS, a parent that died before the
  signal was armed): once the parent is gone it stops itself as above and,
  if it has not ended ``orphan_grace`` seconds later, exits at once, so no
  runner outlives empties for long.
* The log folder's lock is the descriptor ``lock_fd`` of the spec, inherited
  from ``empties rerun``: the runner holds the lock for as long as it lives,
  so a second ``empties rerun`` of the folder is refused until it ends, even
  when the first empties is gone. The runner takes the lock on it itself at
  start (a no-op for the holder's own descriptor; a refusal for any other).

The spec is JSON::

    {"format": 1, "harness": "" | "path/to/harness.py", "log_buffer": null | n,
     "lock_fd": null | n, "parent_pid": null | n, "orphan_grace": seconds,
     "groups": [{"index": 1, "label": "...", "log_dir": "...", "task": "inspect_evals/xstest",
                 "task_args": {...}, "model": "openai/gpt-5-mini", "model_args": {...},
                 "model_roles": {"grader": "..." | {"model": ..., "config": ..., ...}},
                 "config": {"max_tokens": 16000, ...}, "epochs": 1, "sample_ids": [...] | null,
                 "replay": [{"id": ..., "new_id": "...", "text": "...", "metadata": {...}}] | null,
                 "metadata": {...}, "tags": [...]}]}

A judge given as a task argument or model role is a model name or, as a log
stores it, ``{"model": NAME, "config": {...}, "base_url": ..., "model_args": {...}}``.

A harness is a Python file for simulated runs (the demo's mockllm models and
scripted judges) and test setups; it may define ``setup(group)`` (a context
manager entered around making and running each group's task) and
``model(name, group, role)`` (a Model to use for a model name, or None for
``get_model(name)``). Progress goes as JSON lines to the file descriptor
``--events-fd`` (default: stderr), one object per group start, finished
sample and group end.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import json
import os
import signal
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator, Mapping
from typing import IO, Any, cast

from inspect_ai import Task, eval_set
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.hooks import Hooks, SampleEnd, hooks
from inspect_ai.log import EvalLog
from inspect_ai.model import GenerateConfig, Model, get_model

from .._inspect import registry_lookup
from .replay import REPLAY_KEY, replay

__all__ = ["run_file", "run_spec"]

SPEC_FORMAT = 1
MODEL_KEYS = ("model", "config", "base_url", "model_args", "args")

_events: IO[str] | None = None


class GroupError(Exception):
    """A group that cannot run (its task is not registered, a planned sample is not in its dataset)."""

_group: dict[str, Any] = {}


def emit(event: str, **fields: Any) -> None:
    """One progress line for ``empties rerun``; nothing once it is gone (the pipe is closed)."""
    global _events
    if _events is None:
        return
    try:
        _events.write(json.dumps({"event": event, **fields}) + "\n")
        _events.flush()
    except OSError:  # BrokenPipeError: empties ended; the run stops (see _Stop) and its logs still count
        _events = None


class _Stop:
    """The stop request (module doc, "Stopping"): set once, from the main thread's signal handler."""

    requested = False
    why = ""
    in_eval = False  # eval_set is running: a SIGINT cancels it cleanly


def request_stop(why: str) -> None:
    """Start no new group and cancel the running one, once."""
    if _Stop.requested:
        return
    _Stop.requested, _Stop.why = True, why
    emit("stopping", why=why)
    if _Stop.in_eval:
        # handled by asyncio.Runner's SIGINT handler inside eval_set: the main task is cancelled,
        # inspect_ai writes the log as cancelled with its finished samples (outside the event loop,
        # KeyboardInterrupt, which run_spec takes as the same stop)
        signal.raise_signal(signal.SIGINT)


def _on_sigterm(signum: int, frame: Any) -> None:
    request_stop("asked to stop (SIGTERM)")


def _watch_parent(parent: int, grace: float) -> None:
    """The fallback of the parent-death signal: stop once the parent is gone; exit after grace."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os.kill(os.getpid(), signal.SIGTERM)  # the handler runs in the main thread: request_stop
    time.sleep(grace)
    os._exit(130)


def _hold_lock(fd: int) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        raise SystemExit(f"rerun: the log folder's lock (descriptor {fd}) is not this runner's: {e}; "
                         "run the plan with empties rerun, which takes it") from None


@hooks(name="empties_rerun_progress", description="progress of empties rerun (only inside python -m empties rerun)")
class _Progress(Hooks):
    def enabled(self) -> bool:
        return _events is not None and bool(_group)

    async def on_sample_end(self, data: SampleEnd) -> None:
        s = data.sample
        _group["done"] = _group.get("done", 0) + 1
        emit("sample", group=_group.get("index"), id=s.id, epoch=s.epoch, done=_group["done"],
             error=s.error.message if s.error else None)


# ---------------------------------------------------------------------------
# harness
# ---------------------------------------------------------------------------


class Harness:
    """The optional hooks of a harness file."""

    def __init__(self, path: str) -> None:
        self.module: types.ModuleType | None = None
        if path:
            spec = importlib.util.spec_from_file_location("empties_rerun_harness", path)
            if spec is None or spec.loader is None:
                raise SystemExit(f"rerun: harness {path}: not a Python file")
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module
            spec.loader.exec_module(module)
            self.module = module

    def setup(self, group: Mapping[str, Any]) -> contextlib.AbstractContextManager[Any]:
        fn = getattr(self.module, "setup", None)
        return cast(contextlib.AbstractContextManager[Any], fn(group)) if fn else contextlib.nullcontext()

    def model(self, name: str, group: Mapping[str, Any], role: str) -> Model | None:
        fn = getattr(self.module, "model", None)
        return cast(Model | None, fn(name, group, role)) if fn else None


# ---------------------------------------------------------------------------
# models, task, dataset
# ---------------------------------------------------------------------------


def is_model_config(v: Any) -> bool:
    """A judge as a log stores a Model task argument or a model role."""
    return isinstance(v, dict) and isinstance(v.get("model"), str) and set(v) <= set(MODEL_KEYS)


def resolve_model(v: Any, group: Mapping[str, Any], role: str, harness: Harness) -> Any:
    """A model name or stored model config as a Model (the harness's if it has one for the name)."""
    if isinstance(v, str):
        return harness.model(v, group, role) or v
    if not is_model_config(v):
        return v
    own = harness.model(v["model"], group, role)
    if own is not None:
        return own
    config = GenerateConfig(**{k: x for k, x in (v.get("config") or {}).items() if x is not None})
    args = v.get("model_args") or v.get("args") or {}
    return get_model(v["model"], config=config, base_url=v.get("base_url"), memoize=False, **args)


def task_args(args: Mapping[str, Any], group: Mapping[str, Any], harness: Harness) -> dict[str, Any]:
    """The task arguments with every stored judge model made a Model (lists of them too)."""
    out: dict[str, Any] = {}
    for k, v in args.items():
        if is_model_config(v):
            out[k] = resolve_model(v, group, k, harness)
        elif isinstance(v, list) and v and all(is_model_config(x) for x in v):
            out[k] = [resolve_model(x, group, k, harness) for x in v]
        else:
            out[k] = v
    return out


def make_task(group: Mapping[str, Any], harness: Harness) -> Task:
    name = group["task"]
    fn = registry_lookup("task", name)
    if fn is None:
        raise GroupError(f"no task {name!r} is registered "
                         "(is the package that defines it installed in this environment?)")
    task = cast(Callable[..., Task], fn)(**task_args(group.get("task_args") or {}, group, harness))
    replays = group.get("replay")
    if replays is not None:
        task.dataset = replay_dataset(task, replays, group["label"])
    return task


def replay_dataset(task: Task, replays: list[Mapping[str, Any]], label: str) -> MemoryDataset:
    """One copy of a planned sample per reply to grade: its new id, the reply in its metadata."""
    by_id: dict[str, Sample] = {}
    for s in task.dataset:
        by_id.setdefault(str(s.id), s)
    out: list[Sample] = []
    for r in replays:
        orig = by_id.get(str(r["id"]))
        if orig is None:
            raise GroupError(f"the task's dataset has no sample {r['id']!r} (group {label})")
        c = orig.model_copy(deep=True)
        c.id = r["new_id"]
        c.metadata = {**(orig.metadata or {}), **(r.get("metadata") or {}), REPLAY_KEY: r["text"]}
        out.append(c)
    ds = task.dataset
    return MemoryDataset(out, name=getattr(ds, "name", None), location=getattr(ds, "location", None),
                         shuffled=False)


# ---------------------------------------------------------------------------
# running
# ---------------------------------------------------------------------------


def run_group(group: dict[str, Any], harness: Harness, log_buffer: int | None) -> tuple[bool, list[EvalLog]]:
    replaying = group.get("replay") is not None
    fields = GenerateConfig.model_fields
    config = {k: v for k, v in (group.get("config") or {}).items() if v is not None and k in fields}
    with harness.setup(group):
        # no model under test for a Part C replay: none/none, which raises if it is ever called
        model = resolve_model(group["model"], group, "model_under_test", harness) if group.get("model") else "none/none"
        roles = {r: resolve_model(m, group, r, harness) for r, m in (group.get("model_roles") or {}).items()}
        task = make_task(group, harness)
        ok, logs = eval_set(
            [task],
            log_dir=group["log_dir"],
            model=model,
            model_args=(group.get("model_args") or {}) if isinstance(model, str) else {},
            model_roles=cast(Any, roles) or None,
            solver=replay() if replaying else None,
            sample_id=None if replaying else group.get("sample_ids"),
            epochs=group.get("epochs") or None,
            metadata=group.get("metadata") or None,
            tags=group.get("tags") or None,
            display="none",
            log_level="error",
            score_display=False,
            log_format="eval",
            log_buffer=log_buffer,
            # every attempt's log stays: a stopped attempt's calls were paid for (module doc)
            retry_cleanup=False,
            # no control server: its uvicorn takes SIGINT and SIGTERM for itself while the eval
            # runs (inspect_ai._control.server), so a stop request would wait for the eval to end
            ctl_server=False,
            **config,
        )
    return ok, logs


STOPPED = 130  # the exit code of a run that stopped on request: its groups' logs keep what finished


def run_spec(spec: Mapping[str, Any]) -> int:
    if spec.get("format") != SPEC_FORMAT:
        raise SystemExit(f"rerun: spec format {spec.get('format')!r}, this package reads {SPEC_FORMAT}")
    _Stop.requested, _Stop.why = False, ""
    if spec.get("lock_fd") is not None:
        _hold_lock(int(spec["lock_fd"]))
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)
    if spec.get("parent_pid"):
        threading.Thread(target=_watch_parent, args=(int(spec["parent_pid"]), float(spec.get("orphan_grace") or 60)),
                         daemon=True, name="empties-rerun-parent").start()
    harness = Harness(spec.get("harness") or "")
    failed = 0
    for group in spec["groups"]:
        if _Stop.requested:
            emit("stopped", group=group["index"], why=_Stop.why)
            return STOPPED
        _group.clear()
        _group.update(index=group["index"], done=0)
        t0 = time.monotonic()
        emit("group_start", group=group["index"], label=group["label"], log_dir=group["log_dir"])
        interrupted, ok = False, False
        logs: list[EvalLog] = []
        try:
            _Stop.in_eval = True
            ok, logs = run_group(group, harness, spec.get("log_buffer"))
        except KeyboardInterrupt:
            interrupted = True
        except Exception as e:  # one group's failure does not stop the others
            failed += 1
            emit("group_end", group=group["index"], ok=False, error=f"{type(e).__name__}: {e}",
                 run=_group["done"], seconds=time.monotonic() - t0)
            continue
        finally:
            _Stop.in_eval = False
            done = _group.get("done", 0)
            _group.clear()
        status = [log.status for log in logs]
        # eval_set returns (True, []) when it was cancelled (module doc)
        if interrupted or _Stop.requested or not logs or "cancelled" in status:
            emit("group_end", group=group["index"], ok=False, stopped=True, status=status or ["cancelled"],
                 run=done, logs=[log.location for log in logs],
                 error=_Stop.why or "interrupted (SIGINT)", seconds=time.monotonic() - t0)
            _Stop.requested, _Stop.why = True, _Stop.why or "interrupted (SIGINT)"
            continue
        total = sum((log.results.total_samples if log.results else 0) for log in logs)
        completed = sum((log.results.completed_samples if log.results else 0) for log in logs)
        errors = [log.error.message for log in logs if log.error]
        if not ok:
            failed += 1
        emit("group_end", group=group["index"], ok=ok, status=status, run=done, samples=total,
             completed=completed, logs=[log.location for log in logs], error="; ".join(errors) or None,
             seconds=time.monotonic() - t0)
    if _Stop.requested:
        return STOPPED
    return 1 if failed else 0


@contextlib.contextmanager
def _events_to(fd: int | None) -> Iterator[None]:
    global _events
    stream = os.fdopen(fd, "w", buffering=1, encoding="utf-8") if fd is not None else sys.stderr
    _events = stream
    try:
        yield
    finally:
        _events = None
        if fd is not None:
            stream.close()


def run_file(path: str, events_fd: int | None) -> int:
    """Run the spec in the file ``path``, with progress lines to ``events_fd`` (default stderr)."""
    with open(path, encoding="utf-8") as f:
        spec = json.load(f)
    with _events_to(events_fd):
        try:
            return run_spec(spec)
        except KeyboardInterrupt:  # a SIGINT sent to the runner itself between two groups
            emit("stopped", why="interrupted (SIGINT)")
            return STOPPED
