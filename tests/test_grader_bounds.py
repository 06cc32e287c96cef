"""Hostile loops: the grader stops each one by a limit it names, and never raises.

Infinite, sleeping, recursing, swallowing the cut, raising huge or unreadable errors,
printing megabytes, returning odd values: each is graded with small limits, and the
test asserts which limit cut it (never how long it took). After each, the kernel's
state is as before: stdout, the SIGALRM handler, the timer, the trace function.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from learner_loops import GOOD, cell, edit, kernel_unchanged

from harness_lib.course import MISSIONS, grade
from harness_lib.course.missions.guard import NOTE_NO_SIGNAL, TimeUp
from harness_lib.course.missions.logbook import TooManyCalls

ONE = (MISSIONS[0],)


@pytest.fixture(autouse=True)
def kernel_left_usable() -> Iterator[None]:
    with kernel_unchanged():
        yield


def cut_by_time(source: str, **limits: Any) -> Any:
    report = grade(cell(source), **{"seconds": 0.3, "missions": ONE, **limits})
    result = report.results[0]
    assert not result.ok and isinstance(result.watched.crash, TimeUp), report.text()
    return result


HOSTILE_TIME = {
    "tourne-sans-appeler": ("    for _ in range(max_tours):", "    while True:\n        pass\n"
                            "    for _ in range(max_tours):", "sans avoir appelé le modèle"),
    "dort": ("        reponse = modele.complete", "        import time; time.sleep(30)\n"
             "        reponse = modele.complete", "elle attendait\u00a0: `time.sleep`"),
    "avale-tout": ("    for _ in range(max_tours):",
                   "    while True:\n        try:\n            import time; time.sleep(0.05)\n"
                   "        except:\n            pass\n    for _ in range(max_tours):",
                   "Elle a rattrapé l’arrêt (`except`)"),
    "avale-tout-deux-fois": ("    for _ in range(max_tours):",
                             "    while True:\n        try:\n            try:\n"
                             "                import time; time.sleep(0.01)\n"
                             "            except:\n                pass\n"
                             "        except BaseException:\n            pass\n"
                             "    for _ in range(max_tours):", "sans avoir appelé le modèle"),
    "imprime-sans-fin": ("    for _ in range(max_tours):", "    while True:\n"
                         "        try:\n            print('x' * 1_000_000)\n"
                         "        except:\n            pass\n    for _ in range(max_tours):",
                         "sans avoir appelé le modèle"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_TIME))
def test_a_loop_that_never_ends_is_cut_by_the_missions_time_limit(name: str) -> None:
    old, new, said = HOSTILE_TIME[name]
    result = cut_by_time(edit(old, new))
    assert result.watched.crash.seconds == 0.3 and not result.watched.crash.whole
    assert "Votre boucle tournait encore au bout de 0,3 s" in result.explication
    assert said in result.explication, result.explication


def test_printing_megabytes_is_capped() -> None:
    result = cut_by_time(edit(*HOSTILE_TIME["imprime-sans-fin"][:2]))
    output = result.watched.guard.output
    assert output.total > 1_000_000 and len(output.text) == 2_000
    assert "le correcteur n’en garde que les 2\u202f000 premiers" in result.printed


def test_the_whole_grading_has_its_own_limit_and_says_what_was_not_run() -> None:
    source = edit(*HOSTILE_TIME["dort"][:2])
    report = grade(cell(source), seconds=5, total=0.3, missions=MISSIONS[:2])
    first, second = report.results
    assert isinstance(first.watched.crash, TimeUp) and first.watched.crash.whole
    assert "Le temps total de la correction (0,3 s) est écoulé" in first.explication
    assert second.watched is None and "Non lancée" in second.explication


def calling_forever(handler: str) -> str:
    """A loop with no limit that catches what each turn raises with `handler`."""
    return edit("    for _ in range(max_tours):", "    while True:\n        try:\n"
                "            reponse = modele.complete(messages, definitions)\n"
                "            messages.append(reponse.message)\n"
                "            for appel in reponse.tool_calls:\n"
                "                r = run_tool(read_call(appel), outils).content\n"
                "                messages.append(tool_result(appel['id'], r))\n"
                f"        {handler}\n    for _ in range(max_tours):")


def test_a_swallowed_call_limit_is_still_enforced_then_cut_by_time() -> None:
    # 45 calls each running a tool (bash, in its sandbox) come first even on a loaded machine;
    # the time limit only ends the swallowing loop that follows.
    source = calling_forever("except BaseException:\n            pass")
    report = grade(cell(source), seconds=8, missions=(MISSIONS[4],))
    watched = report.results[0].watched
    assert isinstance(watched.crash, TooManyCalls) and watched.calls == 45
    assert watched.guard.cuts > 1  # refused at every call after the 45th
    assert "a ensuite rattrapé cet arrêt" in report.results[0].explication


def test_except_exception_does_not_catch_the_cut() -> None:
    source = calling_forever("except Exception as erreur:\n            print(erreur)")
    report = grade(cell(source), seconds=8, missions=(MISSIONS[4],))
    watched = report.results[0].watched
    assert isinstance(watched.crash, TooManyCalls) and watched.guard.cuts == 1
    assert "45 fois sans s’arrêter" in report.results[0].explication


def test_recursion_is_explained() -> None:
    source = edit("    messages = [system", "    return ma_boucle(mission, modele, outils, "
                  "max_tours)\n    messages = [system")
    text = grade(cell(source), missions=ONE).results[0].explication
    assert text.startswith("RecursionError (ligne 3") and "s’appelle elle-même" in text


class Unreadable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("non")


@pytest.mark.parametrize(("raised", "said"), [
    ("ValueError('x' * 10_000_000)", "Votre boucle a levé ValueError (ligne 11"),
    ("Illisible()", "(message illisible)"),
    ("SystemExit(3)", "a appelé `exit()`"),
])
def test_a_raising_loop_is_explained_shortly(raised: str, said: str) -> None:
    source = edit("        reponse = modele.complete(messages, definitions)",
                  f"        raise {raised}")
    loop = cell(source.replace("def ma_boucle", "class Illisible(Exception):\n"
                               "    def __str__(self):\n        raise RuntimeError('non')\n\n\n"
                               "def ma_boucle"))
    report = grade(loop, missions=ONE)
    assert said in report.results[0].explication and len(report.text()) < 2_000


# What the loop returns instead of `messages`, and whether that is still messages[]: a list
# (or dict) subclass whose methods fail holds the right messages, read as plain data.
RETURNED = {
    "un-generateur": ("(m for m in messages)", False),
    "un-nombre": ("42", False),
    "un-objet-hostile": ("type('H', (), {'__eq__': lambda s, o: 1 / 0, '__iter__': None})()",
                         False),
    "une-liste-hostile": ("type('L', (list,), {'__iter__': lambda s: 1 / 0, '__getitem__': "
                          "lambda s, i: 1 / 0, '__len__': lambda s: -1})(messages)", True),
    "des-messages-hostiles": ("[type('D', (dict,), {'__eq__': lambda s, o: 1 / 0, "
                              "'get': lambda s, *a: 1 / 0})(m) for m in messages]", True),
    "une-liste-qui-se-contient": ("(lambda l: l.append(l) or l)(list(messages))", False),
}


@pytest.mark.parametrize("name", sorted(RETURNED))
def test_odd_return_values_never_make_the_grader_raise(name: str) -> None:
    source = edit("""            return messages
        for appel""", f"""            return {RETURNED[name][0]}
        for appel""")
    report = grade(cell(source), missions=ONE)
    assert report.results[0].ok is RETURNED[name][1] and report.results[0].explication
    assert "Traceback" not in report.text() and report._repr_html_()


def test_many_messages_are_graded(monkeypatch: Any) -> None:
    """5 000 messages in one run: graded (linear in the messages; timing is in bench/)."""
    source = edit("    messages = [system(SYSTEM_PROMPT), user(mission)]",
                  "    messages = [system(SYSTEM_PROMPT)] + "
                  "[user(f'note {i}') for i in range(5_000)] + [user(mission)]")
    report = grade(cell(source), missions=ONE)
    assert report.ok and len(report.results[0].watched.run.messages) == 5_005


def test_without_signals_a_spinning_loop_is_still_cut_and_the_learner_is_told() -> None:
    """In another thread (as in Pyodide: no signal), each line of the loop checks the clock."""
    done: list[Any] = []
    loop = cell(edit(*HOSTILE_TIME["tourne-sans-appeler"][:2]))
    worker = threading.Thread(target=lambda: done.append(grade(loop, seconds=0.3,
                                                                missions=ONE)))
    worker.start()
    worker.join(timeout=60)
    [report] = done
    assert isinstance(report.results[0].watched.crash, TimeUp)
    assert NOTE_NO_SIGNAL in report.notes and NOTE_NO_SIGNAL in report.text()


def test_the_grader_after_a_hostile_loop_grades_a_good_one() -> None:
    cut_by_time(edit(*HOSTILE_TIME["avale-tout"][:2]))
    assert grade(cell(GOOD), missions=ONE).ok


class Garbage:
    """An object in a reference cycle whose __del__ takes a while: the garbage collector
    runs it in the middle of whatever code is running, the learner's loop included."""

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        sum(range(20_000))  # a few ms of Python outside the loop's and the harness's code


def test_a_cut_never_lands_in_a_destructor_the_garbage_collector_runs(monkeypatch) -> None:
    lost: list[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", lost.append)  # « Exception ignored in… »
    loop = cell(edit("    for _ in range(max_tours):", "    import gc\n    while True:\n"
                     "        try:\n            Garbage()\n            gc.collect()\n"
                     "        except BaseException:\n            pass\n"
                     "    for _ in range(max_tours):"))
    loop.__globals__["Garbage"] = Garbage  # the cell's own name, as if defined above it
    report = grade(loop, seconds=0.5, missions=ONE)
    assert isinstance(report.results[0].watched.crash, TimeUp)
    assert lost == []  # every cut was raised in the loop's own lines, none in a __del__
