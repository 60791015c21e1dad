"""Instructions a conversation lost: loaded skills whose load reply the model no longer
receives are repeated in the system prompt (the re-read documents are cached, failures are
not). Whether it receives one is decided by skillcore's own call ids
(:meth:`SkillSession.delivered`), found cheaply by :class:`DeliveryIndex`, over replies shown
to answer a call of the load tool (:func:`load_replies`)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Hashable, Iterable, Sequence
from functools import partial
from typing import Any

from skillcore._recent import Recent
from skillcore.model import SkillDocument, SkillMetadata
from skillcore.sources import ReadError
from skillcore.state import MAX_TURN_CALLS, SkillSession
from skillcore.tools import replies
from skillcore.tools.toolkit import SkillToolkit

#: How many re-read skill documents are kept.
DEFAULT_CACHE_SIZE = 64


class Reinjection:
    """Finds loaded skills whose instructions are gone and renders the block that repeats
    them (:func:`skillcore.tools.replies.reinjection`). Thread-safe; one per adapter instance."""

    def __init__(self, toolkit: SkillToolkit, cache_size: int = DEFAULT_CACHE_SIZE) -> None:
        self.toolkit = toolkit
        self.cache_size = cache_size
        self._lock = threading.Lock()
        self._docs: Recent[SkillMetadata, SkillDocument] = Recent(lambda: self.cache_size)
        self._replies: Recent[tuple[object, ...], str] = Recent(lambda: self.cache_size)

    def missing(
        self,
        session: SkillSession,
        seen: Collection[str],
        only: Collection[str] | None = None,
    ) -> list[SkillMetadata]:
        """Loaded skills not among ``seen`` (those whose delivery the model still receives:
        :meth:`SkillSession.delivered` or :meth:`DeliveryIndex.visible`); ``only``: just
        those of these names (e.g. the toolkit's :attr:`preset` skills)."""
        names = session.loaded_names
        if only is not None:
            names = tuple(n for n in names if n in only)
        metas = (session.catalog.get(n) for n in names if n not in seen)
        return [m for m in metas if m is not None]

    def text(self, session: SkillSession, missing: list[SkillMetadata]) -> str:
        """The block repeating ``missing`` skills' instructions ("" when none is missing)."""
        return self._render(session, {m.name: self._read(m) for m in missing})

    async def atext(self, session: SkillSession, missing: list[SkillMetadata]) -> str:
        """Async :meth:`text` (documents are read without blocking the event loop)."""
        return self._render(session, {m.name: await self._aread(m) for m in missing})

    def _render(self, session: SkillSession, docs: dict[str, SkillDocument | ReadError]) -> str:
        if not docs:
            return ""
        bodies = {
            n: d if isinstance(d, ReadError) else self._reply(session, d) for n, d in docs.items()
        }
        return replies.reinjection(self.toolkit.names, bodies)

    def _reply(self, session: SkillSession, doc: SkillDocument) -> str:
        """The load reply repeated for ``doc`` (memoised: the same every model call until the
        document, the skill's loaded entry or what it unlocks changes)."""
        key = (doc, session.loaded_skill(doc.name), session.gated_by(doc.name))
        with self._lock:
            text = self._replies.get(key)
        if text is None:
            text = self.toolkit.load_reply(session, doc)
            with self._lock:
                self._replies.set(key, text)
        return text

    def _cached(self, meta: SkillMetadata) -> SkillDocument | None:
        with self._lock:
            return self._docs.get(meta)

    def _read(self, meta: SkillMetadata) -> SkillDocument | ReadError:
        doc = self._cached(meta)
        if doc is not None:
            return doc
        try:
            return self._remember(meta, self.toolkit.library.read_document(meta))
        except ReadError as exc:  # not cached: the file may come back
            return exc

    async def _aread(self, meta: SkillMetadata) -> SkillDocument | ReadError:
        doc = self._cached(meta)
        if doc is not None:
            return doc
        try:
            return self._remember(meta, await self.toolkit.library.aread_document(meta))
        except ReadError as exc:
            return exc

    def _remember(self, meta: SkillMetadata, doc: SkillDocument) -> SkillDocument:
        with self._lock:
            self._docs.set(meta, doc)
        return doc


#: A tool reply as an adapter reads it from one of its framework's history items:
#: ``(call id, content)`` pairs (see :meth:`SkillSession.delivered`).
Replies = Callable[[Any], Iterable[tuple[str | None, object]]]

#: The tool calls a history item makes, as ``(call id, tool name)`` pairs (a LangChain
#: ``AIMessage``, a Chat Completions assistant message, a Responses ``function_call``).
Calls = Callable[[Any], Iterable[tuple[str | None, str]]]

#: How far back (in history items) the call a reply answers is looked for: a reply follows
#: its call's item, with at most the other replies of that turn between them.
MAX_CALL_DISTANCE = MAX_TURN_CALLS + 1


def answers_load(history: Sequence[Any], at: int, call_id: str, calls: Calls, load: str) -> bool:
    """Whether the reply with ``call_id`` at position ``at`` answers a call of the tool
    ``load``: the nearest earlier item that makes a call with this id makes only ``load``
    calls with it. Models repeat ids, so another tool's reply can carry the load's id; a call
    not found (or an id two different tools share in one item) proves nothing."""
    for i in range(at - 1, max(at - 1 - MAX_CALL_DISTANCE, -1), -1):
        names = [name for c, name in calls(history[i]) if c == call_id]
        if names:
            return all(name == load for name in names)
    return False


def load_replies(
    history: Sequence[Any], replies: Replies, calls: Calls, load: str
) -> list[tuple[str | None, object]]:
    """The replies in ``history`` (oldest first) that answer a call of the tool ``load``
    (:func:`answers_load`), newest first: what :meth:`SkillSession.delivered` reads. One
    pass, for adapters that read a whole history anyway."""
    latest: dict[str, tuple[int, list[str]]] = {}
    out: list[tuple[str | None, object]] = []
    for i, item in enumerate(history):
        for call_id, content in replies(item):
            seen = latest.get(call_id) if isinstance(call_id, str) else None
            near = seen is not None and i - seen[0] <= MAX_CALL_DISTANCE
            if near and seen is not None and all(name == load for name in seen[1]):
                out.append((call_id, content))
        made: dict[str, list[str]] = {}
        for call_id, name in calls(item):
            if isinstance(call_id, str):
                made.setdefault(call_id, []).append(name)
        latest.update((c, (i, names)) for c, names in made.items())
    out.reverse()
    return out


#: Conversations whose history positions are remembered (least recently used dropped first).
DEFAULT_CONVERSATIONS = 1024


class _Seen:
    """What one conversation's history looked like at its last check: its length, its last
    item (and that item's stable key), and where each delivery found so far sits."""

    __slots__ = ("anchor", "anchor_key", "found", "length")

    def __init__(
        self, length: int, anchor: object, anchor_key: object, found: dict[str, int]
    ) -> None:
        self.length, self.anchor, self.anchor_key, self.found = length, anchor, anchor_key, found


class DeliveryIndex:
    """Which loaded skills' instructions the model still sees, per model call, at a cost that
    does not grow with the conversation (:meth:`SkillSession.delivered` decides; this only
    remembers where it found things).

    Per conversation it keeps the history's length at the last check, its last item and the
    position of each recorded delivery it found. The next check verifies those positions
    (the same call id, the reply still opening with the skill's instructions) and reads
    only the items added since. A history that no longer extends the remembered one (after
    compaction, trimming or a restore; or another process) is read in full once, newest
    first, stopping when every delivery is found. A wrong guess can only make the answer
    "not seen" (instructions sent once more), never "seen" for a reply that is not there:
    every reply counted is checked at its position on every call. Thread-safe.
    """

    def __init__(self, max_conversations: int = DEFAULT_CONVERSATIONS) -> None:
        self.max_conversations = max_conversations
        self._lock = threading.Lock()
        self._seen: Recent[Hashable, _Seen] = Recent(lambda: self.max_conversations)
        #: Full reads of a history (for tests and benchmarks: one per compaction).
        self.full_reads = 0

    def hidden(
        self,
        session: SkillSession,
        history: Sequence[Any],
        replies: Replies,
        *,
        conversation: Hashable,
        key: Callable[[Any], object] | None = None,
        calls: Calls | None = None,
    ) -> frozenset[str]:
        """Loaded skills whose instructions the model does not see in ``history``."""
        names = session.loaded_names
        if not names:
            return frozenset()
        return frozenset(names) - self.visible(
            session, history, replies, conversation=conversation, key=key, calls=calls
        )

    def visible(
        self,
        session: SkillSession,
        history: Sequence[Any],
        replies: Replies,
        *,
        conversation: Hashable,
        key: Callable[[Any], object] | None = None,
        calls: Calls | None = None,
    ) -> frozenset[str]:
        """Loaded skills whose recorded delivery is in ``history`` (the items the model
        receives, oldest first). ``replies(item)``: the item's tool replies as ``(call id,
        content)``; ``key(item)``: a value that identifies an item across copies (a message
        id), so a history rebuilt from a checkpoint still extends the remembered one;
        ``calls(item)``: its tool calls, so only replies to load calls count
        (:func:`answers_load`; omit it only when ``replies`` yields nothing else)."""
        wanted = session.deliveries
        if not wanted:
            return frozenset()
        ids = {name: call_id for call_id, name in wanted.items()}
        n = len(history)
        proven = partial(_proven, history, replies, calls, wanted, session.names.load)

        with self._lock:
            seen = self._seen.get(conversation)
        found: dict[str, int] = {}
        start = 0
        if seen is not None and seen.length <= n and _extends(history, seen, key):
            start = seen.length
            for call_id, at in seen.found.items():
                name = wanted.get(call_id)
                if name is None:
                    continue
                if at < n and name in session.delivered(proven(at)):
                    found[call_id] = at
                else:  # moved or edited: read everything again
                    found, start = {}, 0
                    break
        if start == 0 and n:
            self.full_reads += 1
        for i in range(n - 1, start - 1, -1):
            if len(found) == len(wanted):
                break
            pairs = proven(i)
            if not pairs:
                continue
            for name in session.delivered(pairs):
                call_id = ids[name]
                if call_id not in found:
                    found[call_id] = i
        last = history[-1] if n else None
        record = _Seen(n, last, key(last) if key is not None and n else None, found)
        with self._lock:
            self._seen.set(conversation, record)
        return frozenset(wanted[c] for c in found)


def _proven(
    history: Sequence[Any],
    replies: Replies,
    calls: Calls | None,
    wanted: Collection[str],
    load: str,
    at: int,
) -> list[tuple[str | None, object]]:
    """The replies of item ``at`` under a recorded delivery id that answer a load call."""
    pairs: list[tuple[str | None, object]] = [
        (c, b) for c, b in replies(history[at]) if isinstance(c, str) and c in wanted
    ]
    if calls is None or not pairs:
        return pairs
    return [p for p in pairs if answers_load(history, at, str(p[0]), calls, load)]


def _extends(history: Sequence[Any], seen: _Seen, key: Callable[[Any], object] | None) -> bool:
    """True when ``history`` looks like the remembered one plus items added after it."""
    if seen.length == 0:
        return True
    item = history[seen.length - 1]
    if item is seen.anchor:
        return True
    return key is not None and seen.anchor_key is not None and key(item) == seen.anchor_key


__all__ = [
    "DEFAULT_CACHE_SIZE",
    "DEFAULT_CONVERSATIONS",
    "MAX_CALL_DISTANCE",
    "Calls",
    "DeliveryIndex",
    "Reinjection",
    "Replies",
    "answers_load",
    "load_replies",
]
