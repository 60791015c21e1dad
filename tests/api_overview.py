"""The readable overview at the top of docs/api.md, generated from the docstrings.

docs/api.md ends with the ``::: name`` directives the documentation site renders; readers who
open the page where it is stored see them as raw text. The overview above them lists the same
names, section by section, each with the first sentence of its docstring and its source file,
so the page reads without the site build. ``tests/test_docs.py`` checks it is current;
``python tests/api_overview.py`` rewrites it.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "api.md"
BEGIN = "<!-- overview: generated from the docstrings by tests/api_overview.py; do not edit -->"
END = "<!-- end of the overview -->"
REFERENCE = "## Full reference (rendered by the documentation site)"

_ROLE = re.compile(r":(?:class|meth|func|attr|data|mod|exc|obj):`~?([^`]+)`")


def _resolve(dotted: str) -> object:
    """The object a directive names (a module, or an attribute of one)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def summary(obj: object) -> str:
    """The first sentence of ``obj``'s docstring, as plain Markdown on one line."""
    doc = inspect.getdoc(obj) or ""
    para = " ".join(doc.split("\n\n", 1)[0].split())
    para = _ROLE.sub(lambda m: f"`{m[1].rsplit('.', 1)[-1]}`", para)
    para = para.replace("``", "`").replace("|", "\\|")
    para = re.sub(r"::$", ".", para)  # a reST literal-block marker
    end = re.search(r"(?<![ .][a-z]\.[a-z])(?<!e\.g)(?<!i\.e)\.(\s|$)", para)
    return para[: end.start() + 1] if end else para


def source_file(obj: object) -> str:
    """The file that defines ``obj``, relative to the repository root ("" when it is
    defined elsewhere, e.g. a type alias of a standard library type)."""
    target = obj if inspect.ismodule(obj) else inspect.unwrap(obj)  # type: ignore[arg-type]
    try:
        path = Path(inspect.getsourcefile(target) or "")  # type: ignore[arg-type]
    except TypeError:  # an instance (a constant): where its type is defined
        path = Path(inspect.getsourcefile(type(target)) or "")
    path = path.resolve()
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else ""


def sections(reference: str) -> list[tuple[str, list[str]]]:
    """``(heading, [dotted names])`` of the directives below the reference heading."""
    found: list[tuple[str, list[str]]] = []
    for line in reference.splitlines():
        if line.startswith("### "):
            found.append((line[4:].strip(), []))
        elif line.startswith("::: ") and found:
            found[-1][1].append(line[4:].strip())
    return found


def overview(reference: str) -> str:
    """The generated overview for the directives in ``reference``."""
    out = [BEGIN, ""]
    for heading, names in sections(reference):
        out += [f"## {heading}", "", "| name | what it is | source |", "| --- | --- | --- |"]
        for name in names:
            obj = _resolve(name)
            out.append(f"| `{name}` | {summary(obj)} | `{source_file(obj)}` |")
            if inspect.ismodule(obj) and name.count(".") == 0:  # a package: its public names
                for member in getattr(obj, "__all__", ()):
                    item = getattr(obj, member)
                    where = source_file(item)
                    if where:  # not a type alias of the standard library
                        out.append(f"| `{name}.{member}` | {summary(item)} | `{where}` |")
        out.append("")
    out.append(END)
    return "\n".join(out)


def render(page: str) -> str:
    """``page`` with its overview regenerated."""
    head, _, rest = page.partition(BEGIN)
    _, _, tail = rest.partition(END)
    reference = tail[tail.index(REFERENCE) :]
    return head + overview(reference) + tail


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    PAGE.write_text(render(PAGE.read_text()))
