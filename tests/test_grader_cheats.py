"""Cheating loops: each is graded ✘ (or cut within its limit), with the kernel alive, and
nothing a loop changed survives into the next grading.

A loop runs in the grader's own Python: it can invent the model's history, reach for the
spy's insides, rebind the grader's functions, silence SIGALRM or quit Python. The tests
assert outcomes (✘, which cut, what is said, what is back in place), never durations.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import warnings
from collections.abc import Iterator

import pytest
from learner_loops import GOOD, R1, R2, cell, edit, kernel_unchanged, line_of

from harness_lib.course import MISSIONS, grade
from harness_lib.course.grader import compare, missions, seal
from harness_lib.course.grader import grade as grade_module
from harness_lib.course.grader.report import Report
from harness_lib.course.missions.guard import TimeUp
from harness_lib.course.missions.spy import WatchedModel
from harness_lib.mock import MockModel

ONE = (MISSIONS[0],)
HEAD = "def ma_boucle(mission, modele, outils, max_tours=15):\n"


@pytest.fixture(autouse=True)
def kernel_left_usable() -> Iterator[None]:
    """After each loop the kernel is as before (learner_loops.kernel_unchanged)."""
    with kernel_unchanged():
        yield


def no_tick(report: Report) -> None:
    assert not report.ok and not any(r.ok for r in report.counted), report.text()
    assert "Traceback" not in report.text()


INVENTED = HEAD + '''    messages = [system(SYSTEM_PROMPT), user(mission)]
    definitions = [outil.schema() for outil in outils]
    appel = {"id": "call_1", "type": "function",
             "function": {"name": "read_file", "arguments": '{"path": "README.md"}'}}
    messages.append({"role": "assistant", "content": None, "tool_calls": [appel]})
    messages.append(tool_result("call_1", RESULTAT))
    reponse = modele.complete(messages, definitions)
    messages.append(reponse.message)
    return messages
'''


@pytest.mark.parametrize("result", ["run_tool(read_call(appel), outils).content",
                                    "'# Mini harness\\nUne boucle, des outils.'"])
def test_an_invented_history_is_refused_at_call_1(result: str) -> None:
    source = INVENTED.replace("RESULTAT", result)
    report = grade(cell(source))
    no_tick(report)
    text = report.results[0].explication
    assert text.startswith("Appel 1\u00a0:") and "jamais produit" in text, text
    invented = line_of(source, '"role": "assistant"')
    assert f"(ligne {invented}\u00a0:" in text, text  # the line that invents, not the call's


def test_a_result_the_loop_wrote_itself_is_refused() -> None:
    source = edit("resultat = run_tool(read_call(appel), outils).content",
                  "resultat = '# Mini harness : une boucle, des outils.'")
    report = grade(cell(source), missions=ONE)
    text = report.results[0].explication
    assert not report.ok and text.startswith("Appel 2\u00a0:"), text
    assert "aucun outil" in text and f"ligne {line_of(source, 'Mini harness')}" in text, text


FAKE = ("type('Faux', (), {'complete': lambda *a: __import__('harness_lib').models.Completion("
        "{'role': 'assistant', 'content': 'Mini harness, docs/'})})()")
def test_a_tool_of_the_loop_s_own_is_no_tool_run() -> None:
    """The loop swaps read_file for its own function, which answers what the mission wants."""
    source = edit("    definitions =", "    import dataclasses\n"
                  "    outils = [dataclasses.replace(o, function=lambda **a: '# Mini harness')\n"
                  "              for o in outils]\n    definitions =")
    report = grade(cell(source), missions=ONE)
    assert not report.ok and "aucun outil" in report.results[0].explication, report.text()


SPY = {  # what the loop does to its model, and what the report says
    "remplace-le-modele": (f"modele.model = {FAKE}", "ne se modifie pas"),
    "compteur-a-15": ("modele.book.calls = 15", "pas d’attribut `book`"),
    "par-object": ("object.__setattr__(modele, 'model', None)", "AttributeError"),
    "par-vars": ("vars(modele)['book'] = None", "TypeError"),
}


@pytest.mark.parametrize("name", sorted(SPY))
def test_the_spy_s_insides_are_out_of_the_loop_s_reach(name: str) -> None:
    cheat, said = SPY[name]
    source = edit("    definitions =", f"    {cheat}\n    definitions =")
    report = grade(cell(source))
    no_tick(report)
    assert said in report.results[0].explication, report.text()


def test_a_reply_changed_in_place_changes_nothing_the_grader_reads() -> None:
    """The model asked for read_file; the loop turns its reply into the expected answer."""
    source = edit(R1, "        reponse.message.pop('tool_calls', None)\n"
                  "        reponse.message['content'] = 'Mini harness, dans docs/'\n" + R1)
    no_tick(grade(cell(source)))


PATCHES = {  # rebinding the grader's (or the model's) code from inside the loop
    "verdict": "g.verdict = lambda *a, **k: None",
    "code-de-verdict": "g.verdict.__code__ = (lambda *a, **k: None).__code__",
    "missions": "[object.__setattr__(m, 'done', lambda *a: None) for m in gm.MISSIONS]",
    "liste-des-missions": "gm.MISSIONS = ()",
    "comparaison": "c.first_fault = lambda *a: None",
    "rapport": "R.ok = property(lambda self: True)",
    "modele-simule": "M.complete = lambda self, *a, **k: FINAL",
    "espion": "W.complete = lambda self, *a, **k: FINAL",
    "le-sceau-lui-meme": "s._audit.__code__ = (lambda *a: None).__code__; s._restore = None; "
                         "g.verdict = lambda *a, **k: None",
    # The audit compares identities (`id`) first: an `id` that gives the new verdict the old
    # one's identity must not hide the patch.
    "l-identite": "import builtins; real, old, new = builtins.id, g.verdict, lambda *a, **k: None; "
                  "builtins.id = lambda o: real(old) if o is new else real(o); g.verdict = new",
}
IMPORTS = ("    import harness_lib.course.grader.grade as g\n"
           "    from harness_lib.course.grader import missions as gm, compare as c\n"
           "    from harness_lib.course.grader.report import Report as R\n"
           "    from harness_lib.mock import MockModel as M\n"
           "    from harness_lib.models import Completion\n"
           "    from harness_lib.course.missions.spy import WatchedModel as W\n"
           "    import harness_lib.course.grader.seal as s\n"
           "    FINAL = Completion({'role': 'assistant', 'content': 'Mini harness'})\n")


@pytest.mark.parametrize("name", sorted(PATCHES))
def test_a_loop_that_patches_the_grader_gets_no_tick_and_the_patch_does_not_last(
        name: str) -> None:
    before = (grade_module.verdict, grade_module.verdict.__code__, compare.first_fault,
              missions.MISSIONS, [m.done for m in MISSIONS], Report.ok, MockModel.complete,
              WatchedModel.complete, seal._audit.__code__, seal._restore, id)
    source = edit(R2 + "\n", "", edit("    definitions =",
                                      f"{IMPORTS}    {PATCHES[name]}\n    definitions ="))
    report = grade(cell(source))
    no_tick(report)
    assert "a modifié" in report.results[0].explication, report.text()
    assert (grade_module.verdict, grade_module.verdict.__code__, compare.first_fault,
            missions.MISSIONS, [m.done for m in MISSIONS], Report.ok, MockModel.complete,
            WatchedModel.complete, seal._audit.__code__, seal._restore, id) == before
    later = grade(cell(edit(R2 + "\n", "")))  # a loop without RULE 2, graded after
    no_tick(later)
    assert "RULE 2 manque" in later.results[0].explication


def test_a_patch_made_after_the_last_call_is_caught_too() -> None:
    source = edit("            return messages\n        for appel",
                  f"{IMPORTS.replace('    ', '            ')}"
                  "            g.verdict = lambda *a, **k: None\n"
                  "            return messages\n        for appel")
    report = grade(cell(edit(R2 + "\n", "", source)), missions=ONE)
    no_tick(report)
    assert grade(cell(edit(R2 + "\n", "")), missions=ONE).results[0].ok is False


SILENCED = {  # what the loop does to SIGALRM before spinning
    "son-propre-gestionnaire": "signal.signal(signal.SIGALRM, lambda *a: None)",
    "ignore": "signal.signal(signal.SIGALRM, signal.SIG_IGN)",
    "minuterie-annulee": "signal.setitimer(signal.ITIMER_REAL, 0)",
    "signal-bloque": "signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])",
}
SPINS = {
    "tourne": "    while True:\n        pass\n",
    "avale-tout": "    while True:\n        try:\n            while True:\n                pass\n"
                  "        except:\n            pass\n",
}


@pytest.mark.parametrize("spin", sorted(SPINS))
@pytest.mark.parametrize("name", sorted(SILENCED))
def test_a_loop_that_silences_sigalrm_is_still_cut(name: str, spin: str) -> None:
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    source = edit("    for _ in range(max_tours):", f"    import signal\n    {SILENCED[name]}\n"
                  f"{SPINS[spin]}    for _ in range(max_tours):")
    report = grade(cell(source), seconds=0.3, missions=ONE)
    result = report.results[0]
    assert not result.ok and isinstance(result.watched.crash, TimeUp), report.text()
    assert "Votre boucle tournait encore au bout de 0,3 s" in result.explication
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == mask
    assert grade(cell(GOOD), missions=ONE).ok  # and the next grading is cut by SIGALRM again


EXITS = {
    "os._exit": ("import os; os._exit(0)", "`os._exit()`"),
    "os.abort": ("import os; os.abort()", "`os.abort()`"),
    "posix._exit": ("import posix; posix._exit(3)", "`os._exit()`"),
    "sys.exit": ("import sys; sys.exit(0)", "`exit()`"),
}


@pytest.mark.parametrize("name", sorted(EXITS))
def test_quitting_python_is_a_cut_said_in_french_and_the_kernel_lives(name: str) -> None:
    before = (os._exit, os.abort, sys.exit)
    code, said = EXITS[name]
    source = edit("        reponse = modele.complete", f"        {code}\n"
                  "        reponse = modele.complete")
    report = grade(cell(source))
    no_tick(report)
    text = report.results[0].explication
    assert said in text and f"(ligne {line_of(source, code)}" in text, text
    assert (os._exit, os.abort, sys.exit) == before


@pytest.mark.parametrize("sent", ["[messages[-1]]", "messages[-1:]", "[dernier]"])
def test_a_context_not_resent_is_blamed_on_the_send_line(sent: str) -> None:
    source = edit("        reponse = modele.complete(messages, definitions)",
                  "        dernier = messages[-1]\n"
                  f"        reponse = modele.complete({sent}, definitions)")
    text = grade(cell(source), missions=ONE).results[0].explication
    assert f"(ligne {line_of(source, 'modele.complete(')}\u00a0: `reponse = modele.complete(" \
        in text, text
    assert "n’envoie qu’une partie de `messages[]`" in text and "commence par" not in text


def test_counts_agree_in_french() -> None:
    source = edit("        reponse = modele.complete", "        print(end='x')\n"
                  "        reponse = modele.complete")
    result = grade(cell(source), missions=ONE).results[0]
    assert "2 appels au modèle, 1 demande d’outil et son résultat" in result.explication
    assert "a affiché 2 caractères" in result.printed
    one = edit("        reponse = modele.complete", "        print(end='x' if _ == 0 else '')\n"
               "        reponse = modele.complete")
    assert "a affiché 1 caractère." in grade(cell(one), missions=ONE).results[0].printed


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")  # SystemExit
def test_a_thread_the_loop_leaves_running_is_ended_and_its_patches_undone() -> None:
    before = grade_module.verdict
    patcher = ("    import threading, time\n    import harness_lib.course.grader.grade as g\n"
               "    def patch():\n        while True:\n"
               "            g.verdict = lambda *a, **k: None\n            time.sleep(0.001)\n"
               "    threading.Thread(target=patch, daemon=True, name='patcher').start()\n")
    source = edit(R2 + "\n", "", edit("    definitions =", f"{patcher}    definitions ="))
    report = grade(cell(source), missions=MISSIONS[:2])
    no_tick(report)
    assert "a modifié" in report.results[0].explication, report.text()
    assert not any(t.name == "patcher" for t in threading.enumerate())
    assert grade_module.verdict is before
    assert "RULE 2 manque" in grade(cell(edit(R2 + "\n", "")), missions=ONE).results[0].explication


def test_a_child_the_loop_forks_still_exits_for_real() -> None:
    """os._exit is a cut in the loop's process only: a forked child really ends (else it would
    go on running the grader)."""
    source = edit("        reponse = modele.complete", "        import os\n"
                  "        pid = os.fork()\n        if pid == 0:\n            os._exit(7)\n"
                  "        assert os.waitpid(pid, 0)[1] >> 8 == 7\n"
                  "        reponse = modele.complete")
    assert grade(cell(source), missions=ONE).ok


def test_what_python_adds_by_itself_is_no_tampering() -> None:
    """A first copy (copyreg's __slotnames__) or a first warning (__warningregistry__) in
    the harness's code during a grading is Python's doing, not the loop's."""
    from harness_lib.course.missions import logbook
    from harness_lib.course.missions.logbook import Logbook

    kept = seal.Seal()
    try:
        with warnings.catch_warnings(record=True):
            warnings.simplefilter("default")
            exec("import warnings; warnings.warn('une première fois')", vars(logbook))
        type.__setattr__(Logbook, "__slotnames__", [])
        assert kept.audit() is None
        logbook.MAX = 3  # a real change, said and put back
        assert str(kept.audit()) == "la boucle a modifié le correcteur (logbook.MAX)."
        assert not hasattr(logbook, "MAX")
    finally:
        vars(logbook).pop("__warningregistry__", None)
        if "__slotnames__" in vars(Logbook):
            type.__delattr__(Logbook, "__slotnames__")
