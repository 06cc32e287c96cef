"""The grader of notebook 08 on a corpus of learners' loops: each gets its verdict, and its
explanation names what really went wrong, at the learner's own line.

Each loop is written as a learner types it in the ✏️ cell (the cell's first line is its
comment), compiled under a cell's file name and kept in linecache as IPython does, so the
line numbers are those of the cell.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import nbformat
import pytest
from learner_loops import GOOD, R1, R2, cell, edit, line_of

from harness_lib.course import MISSIONS, grade
from harness_lib.course.grader.missions import EXTRA
from harness_lib.course.grader.solution import loop_solution, loop_to_use
from harness_lib.course.missions.own_loop import reference_loop, without
from harness_lib.course.missions.scenarios import replay
from harness_lib.minimal_loop import boucle as corrige

NAMES = ["lire", "trois-fichiers", "erreur-outil", "format-price", "max-tours"]
NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "08_ecrire_la_boucle.ipynb"
PENCIL = next(c.source for c in nbformat.read(NOTEBOOK, as_version=4).cells
              if c.cell_type == "code" and c.source.startswith("# ✏️"))
SKELETON = PENCIL.split("\n\n\nrapport")[0] + "\n"  # the learner's cell, as shipped
CALL = "complete(messages, definitions)"


# Each loop: its source, the missions it fails (None: every one), and what is said there.
CORRECT = {
    "corrige": GOOD,
    "compteur-while": edit("    for _ in range(max_tours):",
                           "    tour = 0\n    while tour < max_tours:\n        tour += 1"),
    "extend": edit('''        for appel in reponse.tool_calls:
            resultat = run_tool(read_call(appel), outils).content  # exécuter l'outil
            messages.append(tool_result(appel["id"], resultat))  # RULE 2''',
                   '''        messages.extend(tool_result(a["id"],
                                    run_tool(read_call(a), outils).content)
                        for a in reponse.tool_calls)  # RULE 2'''),
    "marques-au-dessus": edit(R1,
                              "        # RULE 1\n        messages.append(reponse.message)"),
    "autre-prompt": edit("[system(SYSTEM_PROMPT), user(mission)]",
                         '[{"role": "system", "content": "Tu es un agent."}, '
                         '{"role": "user", "content": mission}]'),
    "delai": edit("modele.complete(messages, definitions)",
                  "modele.complete(messages, definitions, timeout=30)"),
    "mots-cles": edit("modele.complete(messages, definitions)",
                      "modele.complete(messages=messages, tools=definitions)"),
    "imprime": edit(R1,
                    "        messages.append(reponse.message)  # RULE 1\n"
                    "        print('x' * 100_000)"),
}
FAILURES = "        echecs = 0\n"
STOPS = edit(
    '''            resultat = run_tool(read_call(appel), outils).content  # exécuter l'outil
            messages.append(tool_result(appel["id"], resultat))  # RULE 2''',
             '''            observation = run_tool(read_call(appel), outils)
            messages.append(tool_result(appel["id"], observation.content))  # RULE 2
            echecs = echecs + 1 if observation.is_error else 0
        if echecs >= 3:
            return messages''', edit("    for _ in range(max_tours):",
                                     "    echecs = 0\n    for _ in range(max_tours):"))


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_a_correct_loop_passes_every_mission(name: str) -> None:
    report = grade(cell(CORRECT[name]))
    assert report.ok, report.text()
    assert [r.mission.name for r in report.counted] == NAMES
    assert "même problème" not in report.text()  # never beside a mission that passed
    assert report.text().endswith("5 / 5 missions réussies.")
    assert not report.results[-1].ok and report.results[-1].mission.optional  # ○, not counted


def test_the_reference_loops_pass_and_the_solution_is_the_skeleton_filled() -> None:
    for loop in (reference_loop, corrige):
        report = grade(loop)
        assert report.ok and [r.watched.calls for r in report.counted] == [2, 2, 4, 4, 15]
    kept = [line.split("#")[0].rstrip() for line in SKELETON.splitlines()[1:]
            if "..." not in line]
    solution = [line.split("#")[0].rstrip() for line in GOOD.splitlines()]
    assert all(line in solution for line in kept)  # the skeleton's own lines, unchanged


def test_going_further_the_failures_stop_is_graded_on_its_own_mission() -> None:
    report = grade(cell(STOPS))
    assert report.ok and report.results[-1].ok
    assert report.results[-1].watched.calls == 3
    assert "3 échecs d’affilée" in report.results[-1].explication
    report = grade(cell(edit("echecs >= 3", "echecs >= 2", STOPS)))
    assert report.ok and not report.results[-1].ok
    assert "avant le troisième échec" in report.results[-1].explication


MISTAKES: dict[str, tuple[str, list[str], str]] = {
    # name: (source, missions failed, what the first of them says)
    "dernier-message": (edit(CALL, "complete(messages[-1:], definitions)"),
                        NAMES, "n’envoie qu’une partie de `messages[]` (ligne 6"),
    "liste-inversee": (edit(CALL,
                            "complete(messages[::-1], definitions)"),
                       NAMES, "l’ordre des messages a changé"),
    "regle-1-apres-regle-2": (edit(R1 + '''
        if not reponse.tool_calls:                              # EXIT
            return messages
        for appel in reponse.tool_calls:
            resultat = run_tool(read_call(appel), outils).content  # exécuter l'outil
            messages.append(tool_result(appel["id"], resultat))  # RULE 2''',
        '''        if not reponse.tool_calls:                              # EXIT
            messages.append(reponse.message)
            return messages
        for appel in reponse.tool_calls:
            resultat = run_tool(read_call(appel), outils).content  # exécuter l'outil
            messages.append(tool_result(appel["id"], resultat))  # RULE 2
        messages.append(reponse.message)                        # RULE 1'''),
        NAMES, "RULE 1 est à la mauvaise place"),
    "sans-regle-1": (edit(R1 + "\n", ""),
                     NAMES, "RULE 1 manque"),
    "sans-regle-2": (edit(R2 + "\n", ""),
                     NAMES, "RULE 2 manque"),
    "premiere-demande": (edit('''        for appel in reponse.tool_calls:
            resultat''', '''        appel = reponse.tool_calls[0]
        if True:
            resultat'''), ["trois-fichiers"], "seule la première demande est traitée"),
    "sans-outils": (edit(CALL, "complete(messages, [])"),
                    NAMES, "aucune définition d’outil envoyée"),
    "sans-prompt-systeme": (edit("[system(SYSTEM_PROMPT), user(mission)]", "[user(mission)]"),
                            NAMES, "le prompt système manque"),
    "retire-le-plus-ancien": (edit(R2,
                                   R2 + "\n"
                                   "        messages.pop(0)"),
                              NAMES, "le message 0 de l’appel 1 (un message system) a été retiré"),
    "raccourcit": (edit("        for appel in reponse.tool_calls:",
                        "        for m in messages:\n"
                        "            m[\"content\"] = (m.get(\"content\") or \"\")[:12]\n"
                        "        for appel in reponse.tool_calls:"),
                   NAMES, "raccourci"),
    "sans-exit": (edit('''        if not reponse.tool_calls:                              # EXIT
            return messages
''', ""), NAMES[:4], "il manque EXIT"),
    "sans-limite": (edit("    for _ in range(max_tours):", "    while True:"), ["max-tours"],
                    "appelé le modèle 45 fois sans s’arrêter (ligne 5 : `while True:`) : il "),
    "un-tour-de-trop": (edit("range(max_tours)", "range(max_tours + 1)"), ["max-tours"],
                        "appelé le modèle 16 fois ; avec `max_tours = 15`"),
    "limite-en-dur": (edit("range(max_tours)", "range(10)"), ["max-tours"],
                      "appelé le modèle 10 fois"),
    "mauvais-identifiant": (edit('tool_result(appel["id"], resultat)',
                                 'tool_result("call_1", resultat)'),
                            ["trois-fichiers", "erreur-outil", "format-price", "max-tours"],
                            "deux résultats répondent à call_1"),
    "content-oublie": (edit("run_tool(read_call(appel), outils).content",
                            "run_tool(read_call(appel), outils)"),
                       NAMES, "attend un texte pour `resultat`"),
    "faute-de-frappe": (edit("messages.append(reponse.message)",
                             "messages.append(reponce.message)"),
                        NAMES, "Python ne connaît pas le nom `reponce`. "
                        "Vouliez-vous écrire `reponse` ?"),
    "attribut-content": (edit("messages.append(reponse.message)",
                              "messages.append(reponse.content)"),
                         NAMES, "la réponse du modèle n’a pas d’attribut `content`"),
    "sans-max-tours": (edit("def ma_boucle(mission, modele, outils, max_tours=15):",
                            "def ma_boucle(mission, modele, outils):").replace("max_tours", "15"),
                       NAMES, "doit accepter quatre paramètres"),
    "complete-sans-definitions": (edit(CALL, "complete(messages)"),
                                  NAMES, "il manque le deuxième argument"),
    "complete-trop-d-arguments": (edit(CALL,
                                       "complete(messages, definitions, outils, 3)"),
                                  NAMES, "attend deux arguments"),
    "rend-none": (edit("""            return messages
        for appel""", """            return
        for appel"""), NAMES[:4], "ne rend rien (`None`) après la réponse finale (EXIT)"),
    "rend-le-message": (edit("""            return messages
        for appel""", """            return reponse.message
        for appel"""), NAMES[:4], "rend un objet dict"),
    "exit-inverse": (edit("if not reponse.tool_calls:", "if reponse.tool_calls:"), NAMES,
                     "alors que le modèle demandait encore un outil (read_file) (ligne 8"),
    "reponse-finale-oubliee": (edit(R1,
                                    "        if reponse.tool_calls:\n"
                                    "            messages.append(reponse.message)  # RULE 1"),
                               NAMES[:4], "La réponse finale n’est pas le dernier message"),
    "cle-inconnue": (edit('appel["id"]', 'appel["tool_call_id"]'), NAMES,
                     "KeyError (ligne 12 : `messages.append(tool_result(appel[\"tool_call_id\"]"),
    "erreur-cachee": (edit("resultat = run_tool(read_call(appel), outils).content",
                           "vu = run_tool(read_call(appel), outils)\n"
                           "            resultat = \"vide\" if vu.is_error else vu.content"),
                      ["erreur-outil"], "l’erreur de read_file doit lui revenir"),
    "squelette": (SKELETON, NAMES, "il reste `...` aux lignes 5, 6, 7, 8, 11 et 12"),
    "squelette-presque": (SKELETON.replace("range(...)", "range(max_tours)")
                          .replace("reponse = ...  ", f"reponse = modele.{CALL}")
                          .replace("if ...:", "if not reponse.tool_calls:"),
                          NAMES, "il reste `...` aux lignes 7, 11 et 12"),
}


@pytest.mark.parametrize("name", sorted(MISTAKES))
def test_each_mistake_fails_where_it_should_with_its_reason(name: str) -> None:
    source, failed, said = MISTAKES[name]
    report = grade(cell(source))
    assert not report.ok
    if report.blocked:  # not run at all: said once, for the whole loop
        assert said in report.blocked and failed == NAMES, report.blocked
        return
    assert [r.mission.name for r in report.counted if not r.ok] == failed, report.text()
    first = next(r for r in report.results if r.mission.name == failed[0])
    assert said.lower() in first.explication.lower(), first.explication
    for r, text in report.lines():  # « même problème » only beside a failed mission
        assert r.ok or text == r.explication or "même problème" in text
        assert not (r.ok and "même problème" in text)


def test_the_corpus_is_large_enough() -> None:
    assert len(CORRECT) + len(MISTAKES) + 1 >= 30


def test_the_lines_named_are_the_learners_own() -> None:
    source = MISTAKES["cle-inconnue"][0]
    assert line_of(source, 'appel["tool_call_id"]') == 12
    source = MISTAKES["dernier-message"][0]
    assert line_of(source, "messages[-1:]") == 6
    text = grade(cell(source)).results[0].explication
    assert "(ligne 6\u00a0: `reponse = modele.complete(messages[-1:], definitions)`)" in text
    assert "_Spy" not in text and "WatchedModel" not in text


@pytest.mark.parametrize(("rule", "incident"), [("RULE 1", "missing-call"),
                                                ("RULE 2", "missing-result")])
def test_removing_a_rule_gives_the_real_refusal_of_its_incident(rule: str, incident: str) -> None:
    report = grade(without(rule, cell(GOOD)))
    first = report.results[0]
    assert first.watched.error.message == replay(incident).error.message
    assert f"`{first.watched.error.message}`" in first.explication
    assert first.explication.startswith("Appel 2 refusé par l’API")


@pytest.mark.parametrize("mark", ["# RULE 1", "#RULE1", "# règle 1", "# Règle 1 : la réponse",
                                  "# rule-1"])
def test_without_recognises_the_mark_however_it_is_written(mark: str) -> None:
    inline = edit("# RULE 1", mark)
    above = edit(R1,
                 f"        {mark}\n        messages.append(reponse.message)")
    for source in (inline, above):
        report = grade(without("RULE 1", cell(source)))
        assert "RULE 1 manque" in report.results[0].explication, report.text()


def test_without_says_plainly_when_no_line_is_marked() -> None:
    loop = cell(edit("  # RULE 1", ""))
    with pytest.raises(ValueError, match="aucune ligne marquée « # RULE 1 » dans ma_boucle"):
        without("RULE 1", loop)
    report = grade(loop)
    assert report.ok
    assert loop_to_use(report) is corrige  # the rest of the notebook: the reference loop


def test_without_exit_deletes_the_if_and_its_block_and_keeps_line_numbers() -> None:
    source = edit("        messages.append(tool_result(appel[\"id\"], resultat))  # RULE 2",
                  "        messages.append(tool_result(appel[\"id\"], resultat))  # RULE 2\n"
                  "            messages[0]['x']  # une erreur, pour voir sa ligne")
    report = grade(without("RULE 2", cell(source)))
    assert "KeyError (ligne 13" in report.results[0].explication, report.text()


def test_the_rest_of_the_notebook_uses_the_learners_loop_once_it_passes(capsys: Any) -> None:
    mine = cell(GOOD)
    assert loop_to_use(grade(mine)) is mine
    assert "utilise votre boucle" in capsys.readouterr().out
    assert loop_to_use(grade(cell(SKELETON))) is corrige
    assert "n’est pas encore prête" in capsys.readouterr().out


def test_the_report_is_html_with_a_line_per_mission() -> None:
    page = grade(without("RULE 2"))._repr_html_()
    assert page.count("<li") == len(MISSIONS) + 1 and "✘" in page
    assert "0 / 5 missions réussies." in page
    assert "<code>messages.append(tool_result(appel[&quot;id&quot;], resultat))</code>" in page


def test_printed_output_is_capped_and_said() -> None:
    report = grade(cell(CORRECT["imprime"]), missions=(MISSIONS[0],))
    result = report.results[0]
    assert result.ok and result.watched.guard.output.total == 2 * 100_001
    assert len(result.watched.guard.output.text) == 2_000
    assert re.search(r"a affiché 200\u202f002 caractères\u202f; le correcteur n’en garde que les "
                     r"2\u202f000 premiers", result.printed)
    assert EXTRA.optional


def test_the_notebook_ships_the_skeleton_and_no_solution() -> None:
    """Shift+Enter on the ✏️ cell as shipped grades nothing: there is `...` left to fill."""
    report = grade(cell(SKELETON))
    assert report.blocked and not report.ok and report.results == []
    assert "il reste `...` aux lignes 5, 6, 7, 8, 11 et 12" in report.blocked
    sources = "\n".join(c.source for c in nbformat.read(NOTEBOOK, as_version=4).cells
                         if c.cell_type == "code")  # the table's hints are Markdown
    for line in ("messages.append(reponse.message)", "range(max_tours)",
                 "messages.append(tool_result("):
        assert line not in sources  # the solution is behind « Voir le corrigé », not in a cell
    assert "Voir le corrigé" in loop_solution()._repr_html_()
