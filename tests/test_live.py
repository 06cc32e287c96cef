"""The real thing, against OpenRouter: only on explicit request, never in CI.

    HARNESS_LIVE=1 OPENROUTER_API_KEY=... python -m pytest tests/test_live.py -q

It costs a few hundredths of a cent with the default model. Everything it checks is
also checked offline against the fake server; this proves the provider agrees.
"""

from __future__ import annotations

import os

import pytest

from harness_lib import ApiError, check_conversation, run, workspace_tools
from harness_lib.course.missions.tasks import README_TASK, example_workspace

pytestmark = [
    pytest.mark.live,  # keeps the key in the environment (see tests/conftest.py)
    pytest.mark.skipif(
        os.environ.get("HARNESS_LIVE") != "1" or not os.environ.get("OPENROUTER_API_KEY"),
        reason="test en ligne : HARNESS_LIVE=1 et OPENROUTER_API_KEY pour l’activer",
    ),
]


def test_a_real_model_runs_the_two_turns_of_the_chapter():
    from harness_lib.models.openrouter import OpenRouterModel

    result = run(README_TASK, OpenRouterModel(), workspace_tools(example_workspace("mini")))
    assert result.reason == "answer", result.message
    names = [c["function"]["name"] for m in result.messages for c in m.get("tool_calls") or []]
    assert "read_file" in names
    assert check_conversation(result.messages) == []
    assert any(e.data.get("usage") for e in result.trace.events if e.kind == "reply")


def test_the_provider_refuses_what_check_conversation_refuses():
    from harness_lib.messages import system, tool_result, user
    from harness_lib.models.openrouter import OpenRouterModel

    broken = [system("x"), user(README_TASK), tool_result("call_1", "# Mini")]
    assert check_conversation(broken)
    with pytest.raises(ApiError) as err:
        OpenRouterModel().complete(broken, [])
    assert err.value.status == 400
