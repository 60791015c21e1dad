"""The budgets of a session (:class:`Limits`) and their defaults, defined once.

A foundation: readers cap bytes with these defaults and the session enforces them, so both
import them from here.
"""

from __future__ import annotations

from typing import Any, cast

import attrs


def _positive(instance: Any, attribute: attrs.Attribute[Any], value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ValueError(f"{attribute.name} must be a non-negative integer, got {value!r}")


#: The smallest ``Limits.max_load_chars``: a page must hold some instructions besides the
#: note that says where the rest is.
MIN_LOAD_CHARS = 1_000


def _load_cap(instance: Any, attribute: attrs.Attribute[Any], value: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < MIN_LOAD_CHARS:
        raise ValueError(f"{attribute.name} must be an integer >= {MIN_LOAD_CHARS}, got {value!r}")


#: The spec's guidance for one ``SKILL.md``: under about 500 lines and 5,000 tokens. Past it,
#: discovery and ``skillcore validate`` warn (``SKILL_TOO_LONG``).
GUIDANCE_LINES = 500
GUIDANCE_TOKENS = 5_000
#: Characters (bytes, for ASCII text) a token is estimated at, as tokenizers average on
#: English prose and Markdown.
CHARS_PER_TOKEN = 4
#: The guidance in bytes, what discovery can tell without reading the whole file (20,000).
GUIDANCE_BYTES = GUIDANCE_TOKENS * CHARS_PER_TOKEN
#: Default cap on the instructions one ``load_skill`` delivers (``Limits.max_load_chars``):
#: twice the guidance (40,000 characters, about 10,000 tokens), so a skill within the
#: guidance, or somewhat past it, arrives whole; the rest of a longer one stays readable as a
#: resource, a page of this size at a time.
DEFAULT_MAX_LOAD_CHARS = 2 * GUIDANCE_BYTES
#: Default cap on one binary resource delivered to the model (``Limits.max_binary_bytes``).
DEFAULT_MAX_BINARY_BYTES = 5 * 1024 * 1024


@attrs.frozen
class Limits:
    """Budgets of a session. All are validated on construction and on ``attrs.evolve``."""

    max_loaded: int = attrs.field(default=10, validator=_positive)
    catalog_budget: int = attrs.field(default=16_000, validator=_positive)
    max_resources: int = attrs.field(default=200, validator=_positive)
    max_file_bytes: int = attrs.field(default=10 * 1024 * 1024, validator=_positive)
    max_resource_bytes: int = attrs.field(default=256 * 1024, validator=_positive)
    #: Cap on one binary resource (image, PDF) delivered with ``binary_resources=True``.
    max_binary_bytes: int = attrs.field(default=DEFAULT_MAX_BINARY_BYTES, validator=_positive)
    #: Cap, in characters, on the instructions one ``load_skill`` delivers; the rest of a
    #: longer ``SKILL.md`` is read with the resource tool from the offset the reply names.
    max_load_chars: int = attrs.field(default=DEFAULT_MAX_LOAD_CHARS, validator=_load_cap)


# Defaults callers outside a session need, read from Limits (attrs types a field's default as
# Optional; these fields have one: cast).
#: Default cap on one file read whole (``Limits.max_file_bytes``).
DEFAULT_MAX_FILE_BYTES = cast(int, attrs.fields(Limits).max_file_bytes.default)
#: Default cap on the resources listed for one skill (``Limits.max_resources``).
DEFAULT_MAX_RESOURCES = cast(int, attrs.fields(Limits).max_resources.default)
#: Default cap on one resource read (``Limits.max_resource_bytes``).
DEFAULT_MAX_RESOURCE_BYTES = cast(int, attrs.fields(Limits).max_resource_bytes.default)

#: Longest id (conversation key, turn, revision, call id) a ledger stores as it is. Ids come
#: from models and frameworks and can be any size: a longer one, or one that storage cannot
#: hold (a NUL, a lone surrogate), is stored as a digest no longer than this, so a ledger row
#: stays small whatever the ids (see :func:`skillcore.state.ledger.stored_id`).
MAX_STORED_ID_CHARS = 64

# The bounds of one run of a skill's code (``skillcore.runner.RunLimits`` and the local runner).
#: Wall-clock seconds a run may take before its whole process tree is killed.
DEFAULT_RUN_WALL_SECONDS = 30.0
#: CPU seconds a run may use (``RLIMIT_CPU``).
DEFAULT_RUN_CPU_SECONDS = 30
#: Memory a run may allocate (``RLIMIT_DATA``: heap and private mappings): 512 MiB.
DEFAULT_RUN_MEMORY_BYTES = 512 * 1024 * 1024
#: Processes and threads a run may have at once (a ``pids`` cgroup's ``pids.max``).
DEFAULT_RUN_PROCESSES = 64
#: Largest file a run may write (``RLIMIT_FSIZE``): 64 MiB.
DEFAULT_RUN_FILE_BYTES = 64 * 1024 * 1024
#: Open files a run may hold (``RLIMIT_NOFILE``).
DEFAULT_RUN_OPEN_FILES = 256
#: Bytes of stdout, and of stderr, kept from one run (the rest is read and dropped): 64 KiB.
DEFAULT_RUN_OUTPUT_BYTES = 64 * 1024
#: Output a run may write past what is kept before it is killed (endless output ends, and
#: a chatty script that stops in time still finishes): 16 MiB.
MAX_RUN_DISCARDED_BYTES = 16 * 1024 * 1024
#: Seconds between the polite SIGTERM at a timeout and the SIGKILL of the whole tree.
RUN_KILL_GRACE_SECONDS = 0.5
# -- code a skill brings: hooks and ``!command`` (see docs/scripts.md) ----------------------
#: Characters of one hook's output (a block reason, a note, session-start context) kept.
HOOK_OUTPUT_CHARS = 2_000
#: Characters of hook text (prompt hooks, session-start output) added to one model call.
HOOK_CONTEXT_CHARS = 8_000
#: Bytes of the JSON event a command hook reads on stdin (tool input and output are cut to fit).
HOOK_EVENT_BYTES = 64 * 1024
#: Conversations whose fired ``once`` hooks and pending hook text one process remembers.
HOOK_CONVERSATIONS = 1_024
#: ``!`command` `` placeholders run per skill body (later ones are left as written), the
#: longest command run, and the characters of one command's output kept in the body.
SHELL_COMMANDS_PER_BODY = 8
SHELL_COMMAND_CHARS = 1_000
SHELL_OUTPUT_CHARS = 4_000

#: The most bytes of a skill's files a bridge sends into a host's sandbox for one run.
MAX_BRIDGE_PAYLOAD_BYTES = 8 * 1024 * 1024
#: Seconds a bridge waits for a host's sandbox past a run's wall clock (the sandbox's start
#: and the program's own clean-up) before it gives up on the result.
BRIDGE_GRACE_SECONDS = 30.0

# -- user invocation: ``/name args`` (see docs/portable.md) -----------------------------------
#: Characters of the argument text after ``/name``; a longer invocation is refused whole
#: (``ARGUMENTS_TOO_LONG``), never cut: a cut argument could change its meaning.
MAX_INVOCATION_ARGUMENTS = 4_000
#: Positional arguments (``$0``..``$N``) read from that text; later words are left in
#: ``$ARGUMENTS`` only.
MAX_POSITIONAL_ARGUMENTS = 64
#: Named arguments (``arguments:`` in the frontmatter) read per skill, and their longest name.
MAX_NAMED_ARGUMENTS = 32
MAX_ARGUMENT_NAME = 64
#: Characters substitution may add to a body in all; past it the invocation is refused
#: (``ARGUMENTS_TOO_LONG``): a body repeating ``$ARGUMENTS`` cannot blow up the prompt.
MAX_SUBSTITUTED_CHARS = 64_000
