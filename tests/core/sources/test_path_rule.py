"""One path rule: readers and the session's resource requests give the same reason, as a value."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from skillcore.paths import PathProblem, normalise_relpath, path_problem
from skillcore.sources.errors import ReadError
from skillcore.sources.reader import safe_relpath

PATHS = st.text(alphabet=st.sampled_from(list("ab./\\:\x00\x1f ..é")), max_size=12)


@given(PATHS)
def test_readers_and_the_rule_agree(path: str) -> None:
    problem = path_problem(path)
    if problem is None:
        assert safe_relpath(path) == normalise_relpath(path)
        assert ".." not in safe_relpath(path).split("/")
    else:
        with pytest.raises(ReadError) as info:
            safe_relpath(path)
        assert info.value.problem is problem
        assert info.value.message.startswith(problem.value)


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("", PathProblem.EMPTY),
        ("../x", PathProblem.OUTSIDE),
        ("a/../../x", PathProblem.OUTSIDE),
        ("/etc/passwd", PathProblem.ABSOLUTE),
        ("C:/x", PathProblem.ABSOLUTE),
        ("s3://b/k", PathProblem.ABSOLUTE),
        ("a\\b", PathProblem.BACKSLASH),
        ("a\x00b", PathProblem.BACKSLASH),
        ("a\nb", PathProblem.CONTROL),
        ("./", PathProblem.DIRECTORY),
        ("x" * 2000, PathProblem.TOO_LONG),
        ("a\udcffb", PathProblem.NOT_UNICODE),
        ("references/notes.md", None),
    ],
)
def test_each_reason(path: str, problem: PathProblem | None) -> None:
    assert path_problem(path) is problem
