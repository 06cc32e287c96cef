"""The offline stand-in: a model, and the API it talks through, without network or key.

    model.py          `MockModel`: checks like the API, then decides from messages[] alone
    missions.py       how it picks its next action, one small rule per mission of the course
    conversation.py   `check_conversation`, `validate`: what the API refuses in messages[]
    message_rules.py  the checks of each message on its own, and `Problem`
    api_texts.py      the provider's exact English texts, with their French explications
    tools_rules.py    what the API refuses in the `tools` list

The loop (loop.py) calls none of this: a real API checks for itself. The mock calls it
before it "thinks", and the course calls it to say what the API would answer.

>>> from harness_lib.messages import user
>>> MockModel().complete([user("Bonjour")], []).finish_reason
'stop'
"""

from __future__ import annotations

from .conversation import check_conversation, validate
from .message_rules import Problem
from .model import MockModel

__all__ = ["MockModel", "Problem", "check_conversation", "validate"]
