"""README's examples run."""

import doctest
import os


def test_readme_examples_run():
    path = os.path.join(os.path.dirname(__file__), "..", "README.md")
    result = doctest.testfile(path, module_relative=False)
    assert result.attempted >= 5 and result.failed == 0
