"""The fast frontmatter scanner returns exactly what libyaml's safe loader returns, or declines.

Differential properties over generated frontmatter (every scalar style, quoting, comments,
block scalars, lists, nested mappings, flow lists, anchors, tags, CRLF, tabs, duplicates);
``HYPOTHESIS_PROFILE=long`` runs many more examples.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from skillcore.model import SkillLocation
from skillcore.parse.document import split_frontmatter
from skillcore.parse.fast import scan_frontmatter
from skillcore.parse.frontmatter import parse_skill_file

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
ROOT = Path(__file__).resolve().parents[3]


def _check(text: str) -> None:
    """Either the scanner declines, or it returns the loader's value (types included)."""
    fast = scan_frontmatter(text)
    try:
        expected = yaml.load(text, Loader=_Loader)
    except Exception:
        assert fast is None, f"scanner accepted text the loader rejects: {text!r} -> {fast!r}"
        return
    if fast is not None:
        # repr: True == 1 == 1.0 in Python, and order matters downstream.
        assert repr(fast) == repr(expected), text


# -- generated frontmatter ------------------------------------------------------------------

_ATOMS = [
    "a",
    "b",
    "Read",
    "x y",
    "yes",
    "No",
    "on",
    "OFF",
    "true",
    "null",
    "Null",
    "~",
    "0",
    "1",
    "012",
    "0x1F",
    "0b101",
    "1_000",
    "-1",
    "-5x",
    "-0x1F",
    "-1_000",
    "-12:30",
    "-2001-01-01",
    "-1.5",
    "+2",
    "1.0",
    "1.",
    ".5",
    "1e3",
    "1.5e+3",
    ".inf",
    "-.Inf",
    ".nan",
    "1:30",
    "190:20:30",
    "2024-01-02",
    "2024-1-2",
    "2024-13-45",
    "2001-12-14t21:59:43.10-05:00",
    "2001-12-14 21:59:43.10",
    "=",
    "<<",
    "1.0.0",
    "http://x.y/z",
    "a:b",
    "a: b",
    "a:",
    "a #c",
    "a#c",
    "#c",
    "- a",
    "-a",
    "?",
    "? a",
    ":a",
    "[a]",
    "[a, b]",
    "{a: b}",
    "&x a",
    "*x",
    "!!str 1",
    "!!int 3",
    "!x y",
    "|",
    ">",
    "|-",
    ">-",
    "|+",
    ">2",
    "%x",
    "@x",
    "`x",
    "'q'",
    "'it''s'",
    "'a",
    '"d"',
    '"e\\n"',
    '"a',
    "'a' b",
    '"a" #c',
    "'a'#c",
    "a\\b",
    "ünï",
    "日本",
    "\u2028",
    "\x85",
    "\ufeff",
    "\x07",
    "\t",
    "a\tb",
    "   ",
    "",
    ",",
    "a, b",
    "[]",
    "[ ]",
    "[a,]",
    "[,]",
    "[\"a\", 'b']",
    "[a, [b]]",
    "[a b, c]",
    "[a #c]",
    "[a: b]",
    "[-1]",
    "[yes, 1, 1.5, ~]",
    '["a,b"]',
    "[a] x",
    "[a] #c",
    "x" * 25,
    "9" * 25,
    "9" * 19,
]
atoms = st.one_of(
    st.sampled_from(_ATOMS),
    st.text(alphabet=st.sampled_from(list("ab019 :#-'\"\\[]{},.&*!|>?%@`~\tü\r")), max_size=8),
)
keys = st.one_of(
    st.sampled_from(
        [
            "name",
            "description",
            "license",
            "metadata",
            "allowed-tools",
            "allowed_tools",
            "Name",
            "triggers",
            "yes",
            "null",
            "1",
            "<<",
            "a b",
            "k.x",
            "'q'",
            '"d"',
            "x:",
            "-k",
            "_k",
        ]
    ),
    st.from_regex(r"[a-z_][a-z0-9_-]{0,4}", fullmatch=True),
)
indents = st.sampled_from(["", " ", "  ", "    ", "\t"])
comments = st.sampled_from(["", " # c", "  #c", "#c", " #", "\t# c"])


@st.composite
def entries(draw: st.DrawFn) -> str:
    key = draw(keys)
    kind = draw(st.integers(0, 5))
    if kind == 0:  # key: scalar
        return f"{key}:{draw(st.sampled_from([' ', '  ', '']))}{draw(atoms)}{draw(comments)}\n"
    if kind == 1:  # block list
        ind = draw(indents)
        items = draw(st.lists(atoms, max_size=4))
        return f"{key}:{draw(comments)}\n" + "".join(
            f"{draw(st.sampled_from([ind, ind, ' ']))}-{draw(st.sampled_from([' ', '  ', '']))}"
            f"{a}{draw(comments)}\n"
            for a in items
        )
    if kind == 2:  # nested mapping
        ind = draw(indents)
        pairs = draw(st.lists(st.tuples(keys, atoms), max_size=4))
        return f"{key}:\n" + "".join(
            f"{draw(st.sampled_from([ind, ind, ind + ' ']))}{k}: {v}{draw(comments)}\n"
            for k, v in pairs
        )
    if kind == 3:  # block scalar
        header = draw(st.sampled_from(["|", ">", "|-", ">-", "|+", ">+", "|2", "> #c", "|1-"]))
        ind = draw(st.sampled_from([" ", "  ", "   "]))
        lines = draw(
            st.lists(
                st.one_of(
                    atoms,
                    st.just(""),
                    st.sampled_from(["  deeper", " x ", "#not a comment", "---", "a: b"]),
                ),
                max_size=4,
            )
        )
        body = "".join(f"{ind if ln else draw(st.sampled_from(['', ' ']))}{ln}\n" for ln in lines)
        return f"{key}: {header}\n{body}"
    if kind == 4:  # anchors, tags, flow, multi-line plain
        return draw(
            st.sampled_from(
                [
                    f"{key}: &a x\n",
                    f"{key}: *a\n",
                    f"{key}: !!str 5\n",
                    f"{key}: {{a: 1}}\n",
                    f"{key}: [a,\n  b]\n",
                    f"{key}: first\n  second\n",
                    f"{key}: 'one\n  two'\n",
                    f'{key}: "one\n  two"\n',
                    f"? {key}\n: v\n",
                    "--- \n",
                    "...\n",
                    "%YAML 1.1\n",
                ]
            )
        )
    # comments and blank lines between entries
    return draw(st.sampled_from(["\n", "# comment\n", "  # indented comment\n", "   \n", "\r\n"]))


@st.composite
def frontmatters(draw: st.DrawFn) -> str:
    text = "".join(draw(st.lists(entries(), min_size=0, max_size=7)))
    if draw(st.booleans()) and text:
        text = text.replace("\n", "\r\n")
    if draw(st.integers(0, 9)) == 0:
        text = text.rstrip("\n")  # no final line break
    return text


@settings(
    settings.get_profile("skillcore"),
    max_examples=max(400, settings.get_profile("skillcore").max_examples),
)
@given(frontmatters())
@example("name: a\ndescription: >-\n  one\n  two\n")
@example("a: |\n  x")
@example("name:\n   ")
@example("a: |\nb: 1\n")
@example("k:\n- a\n- b\n")
@example("a: 'x'#c\n")
@example("a: x\r\nb: y\r\n")
@example("v: 2024-13-45\n")
@example("Name: x\nname: y\n")
@example("n: " + "9" * 120 + "\n")
def test_scanner_equals_libyaml_or_declines(text: str) -> None:
    _check(text)


@settings(settings.get_profile("skillcore"))
@given(st.text(alphabet=st.sampled_from(list("ab: -#'\"|>[],\n ~1.&*!\t")), max_size=40))
def test_scanner_on_arbitrary_text(text: str) -> None:
    _check(text)


def test_scanner_reads_the_common_shapes() -> None:
    """A test that cannot fail is a defect: the fast path must accept the usual frontmatter."""
    text = (
        "name: pdf-tools\n"
        "description: >-\n  Extract tables\n  from PDFs.\n"
        "license: Apache-2.0\n"
        'version: "1.2"\n'
        "priority: 5\n"
        "allowed-tools: Read Bash(git:*)\n"
        "triggers: [pdf, 'tables', \"extract\"]\n"
        'file_patterns:\n  - "*.pdf"\n  - docs/**/*.pdf\n'
        "metadata:\n  author: team\n  reviewed: 2024-01-02\n"
    )
    fast = scan_frontmatter(text)
    assert fast is not None
    assert repr(fast) == repr(yaml.load(text, Loader=_Loader))
    assert fast["description"] == "Extract tables from PDFs."


@pytest.mark.parametrize(
    "text",
    [
        "a: &x 1\nb: *x\n",  # anchors and aliases
        "a: !!str 1\n",  # tags
        "a: {b: 1}\n",  # flow mappings
        "a: one\n  two\n",  # multi-line plain scalar
        "a: 1\na: 2\n",  # duplicate key: the full loader reports it
        "allowed-tools: Read\nallowed_tools: Bash\n",  # one field, two spellings
        'a: "x\\ty"\n',  # escapes
        "a:\tb\n",  # tabs
        "n: " + "9" * 30 + "\n",  # long integer: the full loader caps it
        "a: b: c\n",  # invalid YAML
    ],
)
def test_scanner_declines_what_it_does_not_handle(text: str) -> None:
    assert scan_frontmatter(text) is None
    _check(text)


def _corpus() -> list[Path]:
    files = sorted((ROOT / "examples" / "skills").glob("*/SKILL.md"))
    assert files
    return files


def test_scanner_on_the_example_skills() -> None:
    accepted = 0
    for path in _corpus():
        text, _, terminated = split_frontmatter(path.read_text(encoding="utf-8"))
        assert text is not None and terminated
        _check(text)
        accepted += scan_frontmatter(text) is not None
    assert accepted == len(_corpus())


def test_scanner_on_the_synthetic_benchmark_library(tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import synth
    finally:
        sys.path.remove(str(ROOT / "bench"))
    root = synth.make_library(tmp_path / "lib", 200)
    files = sorted(root.glob("*/SKILL.md"))
    assert len(files) == 200
    for path in files:
        text, _, _ = split_frontmatter(path.read_text(encoding="utf-8"))
        assert text is not None
        assert scan_frontmatter(text) is not None, path
        _check(text)


def test_parse_results_are_the_same_with_and_without_the_fast_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """End to end: metadata and diagnostics do not depend on which path parsed the YAML."""
    import skillcore.parse.frontmatter as parsing

    texts = [p.read_bytes() for p in _corpus()] + [
        b"---\nname: x\ndescription: d\nallowed-tools: Read\nallowed_tools: Bash\n---\n",
        b"---\nname: Bad Name\ndescription: yes\nmetadata:\n  k: 1\n---\n",
        b"---\nname: x\ndescription: >-\n  a\n  b\ntriggers: [a, 1, ~]\n---\n",
    ]
    loc = SkillLocation("s", "x", "/x")

    def parse_all() -> list[object]:
        return [
            parse_skill_file(t, directory_name="x", location=loc, path="x/SKILL.md") for t in texts
        ]

    fast = parse_all()
    monkeypatch.setattr(parsing, "scan_frontmatter", lambda text: None)
    assert parse_all() == fast


_chunks = st.sampled_from(
    [
        b"---\n", b"---\r\n", b"...\n", b"--- x\n", b"----\n", b"name: a\n", b"description: d\n",
        b"body\n", b"\x00", b"\xff", "\u00e9".encode(), b"\r", b"\n", b"  ---\n", b"-", b"\xc3",
    ]
)  # fmt: skip


@settings(settings.get_profile("skillcore"))
@given(st.lists(_chunks, max_size=12), st.booleans())
@example([b"---\n", b"name: a\n", b"description: d\n", b"---\n", b"\x00"], False)
@example([b"---\n", b"name: a\n", b"description: d\n", b"---\n", b"\xff"], True)
def test_scans_keep_only_the_frontmatter_without_changing_the_parse(
    chunks: list[bytes], complete: bool
) -> None:
    from skillcore.sources.local_entry import frontmatter_prefix

    head = b"".join(chunks)
    if not head.startswith(b"---"):
        head = b"---\nname: a\n" + head
    loc = SkillLocation("s", "a", "/a")

    def parse(data: bytes, headings: tuple[str, ...] | None = None) -> object:
        return parse_skill_file(
            data,
            directory_name="a",
            location=loc,
            path="a/SKILL.md",
            complete=complete,
            headings=headings,
        )

    assert parse(*frontmatter_prefix(head, complete)) == parse(head)


def test_a_negative_priority_stays_on_the_fast_path() -> None:
    """``priority: -5`` (lower ranks first) is common frontmatter: the scanner must not hand
    it to the full loader."""
    assert scan_frontmatter("name: x\npriority: -5\n") == {"name": "x", "priority": -5}
