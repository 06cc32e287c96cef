"""What grades a loop, kept out of its reach: whatever the loop changed is put back, and said.

A graded loop runs in the grader's own Python: it could rebind `grade.verdict`, a mission's
check, the MockModel's `complete`, `time.monotonic`… `Seal()`, made before the loop runs,
notes every binding of the harness's modules (their names, the attributes of their classes,
the code and defaults of their functions, the fields of their frozen dataclasses) and the
standard library's functions the grader relies on. `seal.audit()` puts back whatever differs
and returns it as a cut (`Tampered`): the spy calls it at each of the loop's calls and once
the loop is out, so that nothing changed runs in the grading, nor in the next one.

What no in-process check can see: a change reached through `gc`, `ctypes` or a closure's
cells (the spy's own state), a changed builtin, a thread of the loop's that keeps changing
things after the grading. Only a separate process would keep those out.

>>> from harness_lib.course.grader import grade as g
>>> seal, verdict = Seal(), g.verdict
>>> g.verdict = None
>>> str(seal.audit()), g.verdict is verdict, seal.audit()
('la boucle a modifié le correcteur (grade.verdict).', True, None)
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import partial
from operator import attrgetter
from types import FunctionType, ModuleType
from typing import Any

from ..missions.guard import Cut

STDLIB = {"time": ("monotonic", "perf_counter", "time", "sleep"),
          "signal": ("signal", "setitimer", "getitimer", "getsignal", "pthread_sigmask"),
          "sys": ("settrace", "setprofile", "gettrace", "getprofile", "_getframe", "exit"),
          "json": ("dumps", "loads"), "threading": ("Thread", "current_thread"),
          "builtins": ("isinstance", "getattr", "hasattr", "vars", "len", "type", "sorted", "id",
                       "map", "list")}
CODE = ("__code__", "__defaults__", "__kwdefaults__")
# What Python itself adds: to a class on its first copy (copyreg), to a module that warns
CACHES = {"__slotnames__", "__warningregistry__"}


class Tampered(Cut):
    """Raised into a loop that changed the grader's (or the model's) code: put back."""

    reason = "exception"  # a code the course already says in French (run_notes.STOP_REASONS)

    def __init__(self, names: list[str]) -> None:
        self.names = names
        super().__init__(f"la boucle a modifié le correcteur ({', '.join(names)}).")


class Seal:
    """The bindings a loop must leave alone, noted once (see the module's doc)."""

    def __init__(self) -> None:
        self.modules = {n: m for n, m in list(sys.modules.items()) if _ours(n)}
        self.kept: list[Kept] = []  # whole: additions too
        for name, module in self.modules.items():
            self._note(name.removeprefix("harness_lib.").split(".")[-1], module)
        for name, attributes in STDLIB.items():
            module = sys.modules.get(name)
            if module is not None:
                self._keep(name, module, {a: getattr(module, a) for a in attributes
                                          if hasattr(module, a)}, False)
        # The audit runs copies of this module's functions, with their own copy of its
        # names: a loop that rebinds `_restore` or swaps `_audit.__code__` changes nothing.
        env = {**globals(), **REAL}
        for function in (_audit, _restore, _ours, _same):
            env[function.__name__] = FunctionType(function.__code__, env, function.__name__)
        self.audit: Callable[[], Tampered | None] = partial(env["_audit"], self.modules,
                                                             self.kept)

    def _note(self, label: str, module: ModuleType) -> None:
        self._keep(label, module, dict(vars(module)))
        for value in list(vars(module).values()):
            if isinstance(value, type) and value.__module__ == module.__name__:
                self._keep(value.__name__, value, dict(vars(value)))
                for inner in list(vars(value).values()):
                    self._function(f"{value.__name__}.", getattr(inner, "__func__", inner))
            elif hasattr(value, "__dataclass_fields__") and not isinstance(value, type):
                self._keep(type(value).__name__, value, dict(vars(value)))
            elif isinstance(value, tuple):
                for item in value:
                    if hasattr(item, "__dataclass_fields__") and not isinstance(item, type):
                        self._keep(type(item).__name__, item, dict(vars(item)))
            self._function(f"{label}.", value)

    def _function(self, prefix: str, value: object) -> None:
        if isinstance(value, FunctionType) and _ours(value.__module__ or ""):
            self._keep(prefix + value.__name__, value, {a: getattr(value, a) for a in CODE},
                       False)

    def _keep(self, label: str, owner: object, saved: dict[str, Any], whole: bool = True
              ) -> None:
        # Each value's identity (`id`), in order: the audit compares these lists first, in C,
        # and reads an entry key by key only when they differ. The values saved stay alive
        # here, so no other object can take their ids meanwhile.
        self.kept.append((label, owner, saved, whole, list(saved), list(map(id, saved.values()))))


# One entry: what is noted, its owner, its bindings then, whether additions count, then the
# bindings' names and identities for the quick comparison.
Kept = tuple[str, object, dict[str, Any], bool, list[str], list[int]]
# The builtins the audit's copies use, as they were when the grader was imported (before any
# loop ran): a loop that rebinds `builtins.id` does not blind this grading's audit.
REAL = {"id": id, "map": map, "list": list, "len": len, "vars": vars, "attrgetter": attrgetter,
        "isinstance": isinstance, "sorted": sorted, "set": set, "type": type, "object": object}


def _audit(modules: dict[str, ModuleType], kept: list[Kept]) -> Tampered | None:
    """Put back every binding the loop changed; a `Tampered` naming them, or None."""
    changed = [name for name, module in modules.items() if sys.modules.get(name) is not module]
    for name in changed:
        sys.modules[name] = modules[name]
    for label, owner, saved, whole, names, ids in kept:
        if not _same(owner, whole, names, ids):
            changed += [f"{label}.{key}" for key in _restore(owner, saved, whole)]
    return Tampered(sorted(set(changed))) if changed else None


def _same(owner: object, whole: bool, names: list[str], ids: list[int]) -> bool:
    """Whether `owner` still binds the same objects to the same names (in C, by identity:
    an object equal to the one it replaced is a change all the same)."""
    if whole:
        now = vars(owner)
        return len(now) == len(names) and list(map(id, now.values())) == ids \
            and list(now) == names
    try:
        found = attrgetter(*names)(owner) if names else ()
    except AttributeError:
        return False
    return list(map(id, found if len(names) > 1 else (found,))) == ids


def _ours(name: str) -> bool:
    return name == "harness_lib" or name.startswith("harness_lib.")


def _restore(owner: object, saved: dict[str, Any], whole: bool) -> list[str]:
    """The keys of `owner` that differ from `saved`, each put back; `whole`: those added
    too (a module added by an import is no change)."""
    now = vars(owner) if whole else {a: getattr(owner, a, None) for a in saved}
    changed = [k for k, v in saved.items() if k not in now or now[k] is not v]
    added = [k for k, v in now.items()
             if whole and k not in saved and not isinstance(v, ModuleType) and k not in CACHES]
    put = type.__setattr__ if isinstance(owner, type) else object.__setattr__
    drop = type.__delattr__ if isinstance(owner, type) else object.__delattr__
    for key in changed:
        if isinstance(owner, ModuleType):
            vars(owner)[key] = saved[key]
        else:
            put(owner, key, saved[key])  # type: ignore[arg-type]
    for key in added:
        if isinstance(owner, ModuleType):
            del vars(owner)[key]
        else:
            drop(owner, key)  # type: ignore[arg-type]
    return [*changed, *added]
