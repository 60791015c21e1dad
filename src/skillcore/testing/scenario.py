"""The scenario's skill libraries and helpers: the main scenario, relevance, gated tools,
stable prefixes, tenants, and the profiles a profiled adapter's driver serves."""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from skillcore.library import SkillLibrary
from skillcore.limits import Limits
from skillcore.policy import ToolPolicy
from skillcore.runtime import SkillConfig
from skillcore.testing.driver import AdapterDriver, Call

SCENARIO_SKILLS = {
    "alpha-tools": (
        "Alpha restricts tools. Use for alpha tasks.",
        "allowed-tools: Read\n",
        "Alpha instructions: only read.",
    ),
    "beta-open": ("Beta does beta tasks; it restricts nothing.", "", "Beta instructions."),
    "gamma-files": (
        "Gamma has files. Use for gamma tasks.",
        "allowed-tools: Read Bash(ls:*)\n",
        "Gamma instructions: see references/notes.md.",
    ),
}


def write_skill(
    root: Path, name: str, description: str = "", body: str = "", extra: str = ""
) -> Path:
    """Write ``root/name/SKILL.md`` (``extra`` is raw frontmatter lines) and return the
    skill directory. A helper for adapter test suites."""
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    desc = description or f"Use {name} for {name} tasks."
    (d / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {desc}\n{extra}---\n\n{body or f'{name} body.'}\n"
    )
    return d


#: The relevance scenario: a budget that shows a few of :func:`make_relevance_library`'s
#: skills, and two user messages, each about one skill that sorts last in precedence order.
RELEVANCE_BUDGET = 1_500
INVOICE_QUERY = "Is the total on this scanned invoice receipt right?"
ROLLOUT_QUERY = "Roll out the new kubernetes deployment"


def make_relevance_library(root: Path) -> Path:
    """Write 300 skills under ``root`` and return it: ``zz-invoice-check`` and
    ``zz-k8s-rollout`` (the skills of :data:`INVOICE_QUERY` and :data:`ROLLOUT_QUERY`) sort
    last, past :data:`RELEVANCE_BUDGET` in precedence order."""
    for i in range(298):
        write_skill(root, f"helper-{i:03d}", f"Generic helper number {i} for chores.")
    write_skill(root, "zz-invoice-check", "Check totals of scanned invoice receipts.")
    write_skill(root, "zz-k8s-rollout", "Roll out kubernetes deployments safely.")
    return root


#: A small PNG of the scenario (``gamma-files/assets/diagram.png``).
SCENARIO_PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(64))
#: The prompt-prefix scenario: ten model calls of one conversation (nine tool calls that load,
#: use and unload skills of :func:`make_prefix_library`, then an answer, ``None``).
PREFIX_SCRIPT: tuple[Call | None, ...] = (
    Call("load_skill", {"skill_name": "skill-03"}),
    Call("Read", {}),
    Call("load_skill", {"skill_name": "skill-07"}),
    Call("unload_skill", {"skill_name": "skill-03"}),
    Call("search_skills", {"query": "task 11", "path": None}),
    Call("load_skill", {"skill_name": "skill-11"}),
    Call("unload_skill", {"skill_name": "skill-07"}),
    Call("Read", {}),
    Call("unload_skill", {"skill_name": "skill-11"}),
    None,
)


def make_gated_library(root: Path) -> Path:
    """Write the skill-gated tool scenario under ``root`` and return it: ``release`` unlocks
    ``deploy`` through ``metadata.include_tools``, ``ops`` through
    ``metadata.adk_additional_tools`` (and allows ``Read``), ``writer`` unlocks nothing."""
    write_skill(
        root, "release", "Release work.", "Release steps.", "metadata:\n  include_tools: deploy\n"
    )
    write_skill(
        root,
        "ops",
        "Ops work.",
        "Ops steps.",
        "allowed-tools: Read\nmetadata:\n  adk_additional_tools: [deploy]\n",
    )
    write_skill(root, "writer", "Writing.", "Write things.", "allowed-tools: Read Write Edit\n")
    return root


def make_prefix_library(root: Path) -> Path:
    """Write the 20 skills of :data:`PREFIX_SCRIPT` under ``root`` and return it."""
    for i in range(20):
        write_skill(
            root,
            f"skill-{i:02d}",
            f"Skill number {i}: use it for task {i} of the project, with its checklist.",
            f"Step one of task {i}. Step two of task {i}.",
            "allowed-tools: Read\n",
        )
    return root


@attrs.frozen
class PrefixStats:
    """How much of a conversation's model requests a provider prompt cache could reuse."""

    #: Model calls measured.
    calls: int
    #: Characters of the system text every call shares (its common prefix).
    system_common: int
    #: Length of the first call's system text.
    system_length: int
    #: Characters each request shares with the one before it, summed (what a prefix cache
    #: reuses), and the most it could share (the earlier requests' lengths, summed).
    reused: int
    reusable: int


def _common(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def prefix_stats(systems: Sequence[str], requests: Sequence[str]) -> PrefixStats:
    """Measure ``systems`` (the system text of each model call, in order) and ``requests``
    (each call's whole request serialized as text, system first)."""
    common = min((_common(systems[0], t) for t in systems), default=0)
    pairs = list(itertools.pairwise(requests))
    return PrefixStats(
        len(systems),
        common,
        len(systems[0]) if systems else 0,
        sum(_common(a, b) for a, b in pairs),
        sum(len(a) for a, _ in pairs),
    )


def make_scenario_library(root: Path) -> Path:
    """Write the conformance skill library under ``root`` and return its path."""
    skills = root / "conformance-skills"
    if skills.exists():
        shutil.rmtree(skills)
    for name, (desc, extra, body) in SCENARIO_SKILLS.items():
        d = skills / name
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: {desc}\n{extra}---\n\n{body}\n"
        )
    (skills / "gamma-files" / "references").mkdir()
    (skills / "gamma-files" / "references" / "notes.md").write_text("Gamma notes: 42.\n")
    (skills / "gamma-files" / "assets").mkdir()
    (skills / "gamma-files" / "assets" / "logo.bin").write_bytes(b"\x89PNG\x00\x01\x02")
    (skills / "gamma-files" / "assets" / "diagram.png").write_bytes(SCENARIO_PNG)
    return skills


def make_tenant_libraries(root: Path) -> dict[str, Path]:
    """Two tenants' skill folders under ``root``, for profile tests: ``acme`` holds
    ``acme-report`` (allowed-tools: Read) and ``handbook``; ``beta`` holds ``beta-deploy`` and
    its own ``handbook`` (same name, other instructions: a loaded skill must not carry over)."""
    acme, beta = root / "acme", root / "beta"
    write_skill(
        acme, "acme-report", "Acme quarterly reports.", "ACME-REPORT-BODY", "allowed-tools: Read\n"
    )
    write_skill(acme, "handbook", "The company handbook.", "ACME-HANDBOOK-BODY")
    write_skill(beta, "beta-deploy", "Beta deployments.", "BETA-DEPLOY-BODY")
    write_skill(beta, "handbook", "The company handbook.", "BETA-HANDBOOK-BODY")
    return {"acme": acme, "beta": beta}


SCENARIO_PROFILE = "scenario"


def scenario_config(
    driver: AdapterDriver, limits: Limits, policy: ToolPolicy, **extra: Any
) -> SkillConfig:
    """The adapter options of the scenario for :meth:`AdapterDriver.start`: ``limits``,
    ``policy``, the driver's ``prompt_mode`` and :attr:`~AdapterDriver.options`, and
    ``extra`` (an adapter's own, such as ``tool_name_prefix``)."""
    return SkillConfig(
        limits=limits,
        allowed_tools_policy=policy.mode,
        always_allowed_tools=policy.always_allowed,
        tool_aliases=policy.aliases,
        unrestricted_skills=policy.unrestricted_skills,
        prompt_mode=driver.prompt_mode,
        **driver.options,
        **extra,
    )


def scenario_profiles(
    driver: AdapterDriver, library: SkillLibrary, limits: Limits, policy: ToolPolicy
) -> dict[str, tuple[SkillLibrary, SkillConfig]]:
    """The profiles a driver of a profiled adapter serves for :meth:`AdapterDriver.start`:
    the scenario (``library`` with :func:`scenario_config`) as :data:`SCENARIO_PROFILE`,
    which every run selects, beside an ``"other"`` profile over no skills, so every check
    goes through the selection."""
    config = scenario_config(driver, limits, policy)
    return {SCENARIO_PROFILE: (library, config), "other": (SkillLibrary([]), config)}
