"""Every module's docstring example runs (they are the first thing a learner reads)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import harness_lib

# Every module, subpackages included (models/, tools/, course/).
MODULES = sorted(m.name for m in pkgutil.walk_packages(harness_lib.__path__, "harness_lib."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0


def test_every_module_has_a_docstring():
    missing = [n for n in MODULES if not (importlib.import_module(n).__doc__ or "").strip()]
    assert missing == []
