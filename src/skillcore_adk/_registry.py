"""``LibrarySkillRegistry``: ADK's ``SkillRegistry`` interface backed by a skillcore library.

Lets users of ADK's *native* ``SkillToolset(registry=...)`` read skills from anything skillcore
reads (local folders, ``s3://``, ``git://``, ``zip://``, several sources with precedence).
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterable
from typing import Any

from google.adk.skills import Frontmatter, Resources, Script, Skill, SkillRegistry
from pydantic import ValidationError, field_validator

from skillcore import (
    ReadError,
    ResourceKind,
    SkillDocument,
    SkillLibrary,
    SkillMetadata,
    SkillSource,
    ValidationMode,
    search_skills,
)
from skillcore.runtime import parse_tool_list, reference_properties

logger = logging.getLogger("skillcore_adk")
# The library convention: a NullHandler, the application decides what is printed.
logger.addHandler(logging.NullHandler())

_KIND_FIELD = {
    ResourceKind.REFERENCE: "references",
    ResourceKind.ASSET: "assets",
    ResourceKind.SCRIPT: "scripts",
}


class _LibraryFrontmatter(Frontmatter):
    """ADK frontmatter that trusts skillcore's validation of names and lengths.

    skillcore already validated the skill in the library's mode (lenient accepts, with a
    diagnostic, names and descriptions ADK's strict model would reject), so a skill the
    catalog lists is never unusable through ADK. ADK's own registries relax names the same way.
    """

    @field_validator("name")
    @classmethod
    def _validate_name(cls, v: str) -> str:
        if not v:
            raise ValueError("name must not be empty")
        return v

    @field_validator("description")
    @classmethod
    def _validate_description(cls, v: str) -> str:
        if not v:
            raise ValueError("description must not be empty")
        return v

    @field_validator("compatibility")
    @classmethod
    def _validate_compatibility(cls, v: str | None) -> str | None:
        return v


#: ``metadata`` keys ADK reads with a type of their own (skillcore keeps metadata as text).
ADK_TOOLS_KEY = "adk_additional_tools"
ADK_INJECT_STATE_KEY = "adk_inject_state"


def adk_metadata(meta: SkillMetadata) -> dict[str, Any]:
    """A skill's ``metadata`` with the types ADK expects: ``adk_additional_tools`` a list of
    tool names (read as every adapter reads gated tools,
    :func:`skillcore.policy.gating.parse_tool_list`),
    ``adk_inject_state`` a bool. A value that cannot be typed is left out and logged, so the
    skill stays usable (and unlocks nothing it does not clearly name)."""
    data: dict[str, Any] = dict(meta.metadata)
    tools = data.get(ADK_TOOLS_KEY)
    if tools is not None:
        found = parse_tool_list(tools)
        for problem in found.problems:
            logger.warning("skill %r: metadata.%s: %s", meta.name, ADK_TOOLS_KEY, problem)
        data[ADK_TOOLS_KEY] = list(found.names)
    inject = data.get(ADK_INJECT_STATE_KEY)
    if inject is not None:
        flag = {"true": True, "false": False}.get(inject.strip().lower())
        if flag is None:
            logger.warning(
                "skill %r: metadata.%s must be true or false, got %r; left out",
                meta.name,
                ADK_INJECT_STATE_KEY,
                inject[:40],
            )
            del data[ADK_INJECT_STATE_KEY]
        else:
            data[ADK_INJECT_STATE_KEY] = flag
    return data


def to_frontmatter(meta: SkillMetadata) -> Frontmatter:
    """ADK ``Frontmatter`` for a skill's metadata. Raises ``ValueError`` if ADK rejects it."""
    data = reference_properties(meta)  # the spec's fields, as the reference reads them
    data["metadata"] = adk_metadata(meta)
    try:
        return _LibraryFrontmatter.model_validate(data)
    except ValidationError as exc:
        raise ValueError(
            f"skill {meta.name!r} cannot be expressed as ADK frontmatter: {exc}"
        ) from exc


class LibrarySkillRegistry(SkillRegistry):
    """A ``google.adk.skills.SkillRegistry`` over a :class:`skillcore.SkillLibrary`.

    ``SkillToolset(registry=LibrarySkillRegistry(["s3://team/skills", "./skills"]))``.
    ``search_skills`` ranks the catalog (names, descriptions, triggers, file patterns);
    ``get_skill`` reads the skill's ``SKILL.md`` and its ``references/``, ``assets/`` and
    ``scripts/`` files (each capped at ``max_resource_bytes``; larger or unreadable files are
    left out and logged), concurrently.
    """

    def __init__(
        self,
        sources: SkillLibrary | SkillSource | str | os.PathLike[str] | Iterable[SkillSource | str],
        *,
        validation_mode: ValidationMode | str = ValidationMode.LENIENT,
        max_resource_bytes: int = 1024 * 1024,
        search_limit: int = 10,
        refresh_on_search: bool = False,
    ) -> None:
        if isinstance(sources, SkillLibrary):
            self.library = sources
        else:
            self.library = SkillLibrary(sources, mode=validation_mode)
        self.max_resource_bytes = max_resource_bytes
        self.search_limit = search_limit
        self.refresh_on_search = refresh_on_search
        self._discovered = False

    async def _catalog_ready(self, refresh: bool = False) -> None:
        if refresh or not self._discovered:
            await self.library.arefresh()
            self._discovered = True

    async def get_skill(self, *, name: str) -> Skill:
        """The whole skill: frontmatter, instructions and resources. Raises ``LookupError`` if
        there is no such skill, ``ValueError`` if it cannot be read."""
        await self._catalog_ready()
        meta = self.library.catalog.get(name)
        if meta is None or meta.disable_model_invocation:
            raise LookupError(f"no skill named {name!r} in {self._where()}")
        try:
            document = await self.library.aread_document(meta)
        except ReadError as exc:
            raise ValueError(f"cannot read skill {name!r}: {exc.message}") from None
        return Skill(
            frontmatter=to_frontmatter(meta),
            instructions=document.body,
            resources=await self._resources(document),
        )

    async def _resources(self, document: SkillDocument) -> Resources:
        meta = document.metadata
        reader = self.library.reader(meta.location.source)
        wanted = [r for r in document.resources if r.kind in _KIND_FIELD]

        async def read(path: str) -> bytes | None:
            try:
                return await reader.aread_file(
                    meta.location.directory, path, self.max_resource_bytes
                )
            except ReadError as exc:
                logger.warning("skill %r: leaving out %s: %s", meta.name, path, exc.message)
                return None

        contents = await asyncio.gather(*(read(r.path) for r in wanted))
        fields: dict[str, dict[str, Any]] = {"references": {}, "assets": {}, "scripts": {}}
        for resource, data in zip(wanted, contents):
            if data is None:
                continue
            field = _KIND_FIELD[resource.kind]
            key = resource.path.split("/", 1)[1]  # ADK keys are relative to the sub-folder
            text = _text_or_none(data)
            if field == "scripts":
                if text is not None:
                    fields["scripts"][key] = Script(src=text)
            else:
                fields[field][key] = text if text is not None else data
        return Resources(**fields)

    async def search_skills(self, *, query: str) -> list[Frontmatter]:
        """Frontmatter of the best matches for ``query`` (skills ADK cannot express are skipped)."""
        await self._catalog_ready(self.refresh_on_search)
        out: list[Frontmatter] = []
        # ADK's search tool has one argument; a file name in it also matches file patterns.
        path = query.strip() if "." in query or "/" in query else None
        for hit in search_skills(self.library.catalog, query, path, limit=self.search_limit):
            try:
                out.append(to_frontmatter(hit.skill))
            except ValueError as exc:
                logger.warning("%s", exc)
        return out

    def search_tool_description(self) -> str | None:
        """Tells the model how search ranks, so keyword queries are used."""
        return (
            "Searches the skill library by keywords (matched against skill names, "
            "descriptions and trigger phrases) or by a file name such as report.csv "
            "(matched against the skills' file patterns). Returns the best matches first."
        )

    def _where(self) -> str:
        return ", ".join(s.label for s in self.library.sources) or "the library"


def _text_or_none(data: bytes) -> str | None:
    if b"\x00" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
