"""The caps of a ``SKILL.md`` frontmatter, each defined once.

=============================  ===========  ====================================================
what                           value        when exceeded
=============================  ===========  ====================================================
frontmatter size               65,536 B     skill skipped (``YAML_TOO_COMPLEX``)
bytes to read for frontmatter  65,600 B     ``FRONTMATTER_HEAD_BYTES``: a head this long holds
                                            any frontmatter under the size cap
nesting depth                  32           skill skipped (``YAML_TOO_COMPLEX``)
expanded size (aliases)        131,072      characters plus one per collection item, counted
                                            on the node graph before any value is built;
                                            skill skipped (``YAML_TOO_COMPLEX``)
integer literal                100 chars    skill skipped (``YAML_ERROR``)
name                           64 / 128     spec limit (warning; error in strict) / unusable
description                    1,024 /      spec limit (warning; error in strict) / truncated
                               16,384       (lenient) / error (strict); kept as written,
                                            rendering shortens (see ``skillcore.catalog.render``)
compatibility                  500 / 1,024  spec limit (warning) / truncated
license, argument-hint         1,024        truncated (lenient) / error (strict)
version                        128          truncated (lenient) / error (strict)
metadata key / value           128 / 1,024  truncated (lenient) / error (strict)
metadata entries               100          first 100 kept (lenient) / error (strict)
body headings                  16 / 120 /   headings kept / characters each (cut) / bytes
                               4,096        at the start of the body read for them
list item                      256          triggers, file-patterns, dependencies: item dropped;
                                            allowed-tools entry: the whole list unreadable
list items                     100          first 100 kept; allowed-tools: unreadable
hooks                          16 / 8 / 32  matcher groups per event / handlers per group /
                               4,096 / 256  handlers per skill (first kept, rest dropped) /
                                            characters of a command or prompt / of a matcher
                                            (longer: the entry is dropped)
hook timeout                   1..600 s     clamped into the range
=============================  ===========  ====================================================

(The expansion and integer caps live in :mod:`skillcore.parse.reader_common`, which the YAML loader
shares.)
"""

from __future__ import annotations

#: The spec's name limit (a warning in lenient mode) and the longest name usable at all.
MAX_NAME = 64
MAX_NAME_USABLE = 2 * MAX_NAME
#: The spec's description limit: longer is a warning (an error in strict mode). The text is
#: kept whole; only a catalog entry folds and shortens it (``skillcore.catalog.render``).
MAX_DESCRIPTION = 1024
#: The longest description kept at all (a bound on memory and on search work); longer text is
#: truncated in lenient mode.
MAX_DESCRIPTION_STORED = 16 * 1024
#: The spec's compatibility limit (a warning); ``MAX_TEXT`` truncates.
MAX_COMPATIBILITY = 500
#: Hard cap of every other kept text value (license, compatibility, argument-hint, metadata
#: values); longer text is truncated in lenient mode and refused in strict mode.
MAX_TEXT = 1024
MAX_VERSION = 128
MAX_METADATA_KEY = 128
MAX_METADATA_ENTRIES = 100
#: Each trigger, file pattern, dependency and allowed-tools entry.
MAX_LIST_ITEM = 256
#: Items of each list field (triggers, file-patterns, dependencies, allowed-tools).
MAX_LIST_ITEMS = 100
#: Frontmatter larger than this is refused before parsing.
MAX_FRONTMATTER_BYTES = 64 * 1024
#: How many bytes of a ``SKILL.md`` to read so that any frontmatter under the cap fits whole,
#: whatever the size of the body: BOM, ``---`` lines with CRLF and trailing blanks included.
FRONTMATTER_HEAD_BYTES = MAX_FRONTMATTER_BYTES + 64
#: Section headings kept from a skill's body for search (``skillcore.parse.headings``): how
#: many, how long each (longer is cut), and how many bytes at the start of the body are read
#: for them (measured: the first 4 KiB and 16 headings find as much as 16 KiB and 32).
MAX_HEADINGS = 16
MAX_HEADING_CHARS = 120
MAX_HEADINGS_SCANNED = 4 * 1024
#: ``hooks``: matcher groups per event, handlers per group and per skill, characters of a
#: command or prompt and of a matcher, and the range of a handler's ``timeout`` (seconds).
MAX_HOOK_GROUPS = 16
MAX_HOOK_HANDLERS = 8
MAX_HOOKS_PER_SKILL = 32
MAX_HOOK_TEXT = 4096
MAX_HOOK_MATCHER = 256
MIN_HOOK_TIMEOUT = 1
MAX_HOOK_TIMEOUT = 600
#: Bracket / indentation nesting deeper than this is refused before parsing.
MAX_NESTING = 32
