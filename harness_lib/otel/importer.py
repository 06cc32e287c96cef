"""GenAI spans recorded elsewhere (OTLP/JSON) as the course's `Trace`: the player draws them.

Each model-call span (`chat`, `text_completion`, `generate_content`, and any-agent's
`call_llm`) becomes a request and a reply; each `execute_tool` span after it, a tool call
and its result, in the order the spans began. Sizes come from the file, never from a
guess: a run exported by `harness_lib` carries each message's size (`harness.*`); another
agent's carries what the provider counted, `gen_ai.usage.input_tokens` of each call (the
first call's is the starting context; what a later call sent more than the one before it
and its answer is its tools' results, shared equally among them, said in `notes`).

What the file does not hold (the messages' text, the tools' results, the arguments, the
mission) is said in French in `OtelTrace.notes`, and in the placeholder texts.
Bounded: at most `MAX_DRAWN` calls and tools are drawn, the others counted in the notes.

>>> doc = ('{"resourceSpans": [{"scopeSpans": [{"spans": [{"spanId": "a", "name": "chat m",'
...        ' "startTimeUnixNano": "1", "attributes": [{"key": "gen_ai.operation.name",'
...        ' "value": {"stringValue": "chat"}}]}]}]}]}')
>>> [e.kind for e in loads_otlp(doc).events]
['task', 'request', 'reply', 'answer']
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from ..files import read_capped
from ..text import french_number as fr
from .build import Builder, OtelTrace, kind
from .spans import OtlpError, read_spans

__all__ = ["MAX_DRAWN", "MAX_OTLP_BYTES", "OtelTrace", "load_otlp", "loads_otlp",
           "looks_like_otlp"]

MAX_DRAWN = 400  # model calls and tool calls drawn at most: a player of 1 200 steps
# Bigger than a course trace's cap: 100 000 spans of an instrumented agent weigh about 66 MB.
# Reading takes about 6.5 times the file in memory (bench/README.md, « OTLP import »).
MAX_OTLP_BYTES = 100_000_000


def load_otlp(path: str | Path) -> OtelTrace:
    """Read an OTLP/JSON file (capped, regular files only); OtlpError in French otherwise."""
    return loads_otlp(read_capped(Path(path), MAX_OTLP_BYTES), Path(path).name)


def looks_like_otlp(content: str | bytes) -> bool:
    """Whether a file's beginning is OTLP/JSON rather than a course trace (.jsonl)."""
    if isinstance(content, bytes):
        return b'"resourceSpans"' in content[:4096]
    return '"resourceSpans"' in content[:4096]


def loads_otlp(content: str | bytes, name: str = "le fichier") -> OtelTrace:
    """The trace of the GenAI spans in `content` (the trace with the most model calls)."""
    spans = read_spans(content, name)
    kinds = Counter(kind(s) for s in spans)
    calls = [s for s in spans if kind(s) == "call"]
    if not calls:
        raise OtlpError(f"{name} : aucun de ses {fr(len(spans))} spans n’est un appel de modèle "
                        "selon les conventions GenAI (gen_ai.operation.name = chat, ou "
                        "gen_ai.usage.input_tokens) : rien à dessiner.")
    best = Counter(s.trace_id for s in calls).most_common(1)[0][0]
    kept = sorted((s for s in spans if s.trace_id == best and kind(s) in ("call", "tool")),
                  key=lambda s: (s.start, s.index))
    notes = _left_out(kinds, len(spans), sum(1 for s in spans if s.trace_id != best))
    if len(kept) > MAX_DRAWN:
        notes.append(f"Seuls les {fr(MAX_DRAWN)} premiers appels et outils sont dessinés ; "
                     f"{fr(len(kept) - MAX_DRAWN)} autres sont laissés de côté.")
        kept = kept[:MAX_DRAWN]
    root = next((s for s in spans if s.trace_id == best and kind(s) == "agent"), None)
    return Builder(root.attributes if root else {}, notes).build(kept)


def _left_out(kinds: Counter[str], total: int, elsewhere: int) -> list[str]:
    notes = []
    if kinds["other"]:
        notes.append(f"{fr(kinds['other'])} spans sur {fr(total)} n’ont pas d’attribut GenAI "
                     "que le lecteur sait dessiner (requêtes HTTP, étapes d’un framework…) : "
                     "ils sont laissés de côté.")
    if elsewhere:
        notes.append(f"{fr(elsewhere)} spans d’autres traces du fichier sont laissés de côté : "
                     "seule la trace qui a le plus d’appels de modèle est dessinée.")
    return notes
