"""The tools the model sees: specs, the toolkit, replies, binary resources, preload and
redelivery."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skillcore._faces import face

if TYPE_CHECKING:
    from skillcore.tools import replies
    from skillcore.tools.binary import BinaryPayload
    from skillcore.tools.calls import ToolResult
    from skillcore.tools.forks import ForkRequest, Forks
    from skillcore.tools.invoke import InvocationResult, expand_message
    from skillcore.tools.preview import preview_decision
    from skillcore.tools.reinjection import DeliveryIndex, Reinjection, load_replies
    from skillcore.tools.replies import ERROR_PREFIX
    from skillcore.tools.scripts import Approve, to_isolation
    from skillcore.tools.specs import DEFAULT_ENUM_LIMIT, ArgumentError, ToolSpec, parse_json_object
    from skillcore.tools.toolkit import DEFAULT_SUGGESTIONS, NOTE_SUGGESTIONS, SkillToolkit

__getattr__, __dir__, __all__ = face(
    __name__,
    {
        "DEFAULT_ENUM_LIMIT": "skillcore.tools.specs",
        "DEFAULT_SUGGESTIONS": "skillcore.tools.toolkit",
        "ERROR_PREFIX": "skillcore.tools.replies",
        "NOTE_SUGGESTIONS": "skillcore.tools.toolkit",
        "Approve": "skillcore.tools.scripts",
        "ArgumentError": "skillcore.tools.specs",
        "BinaryPayload": "skillcore.tools.binary",
        "DeliveryIndex": "skillcore.tools.reinjection",
        "InvocationResult": "skillcore.tools.invoke",
        "expand_message": "skillcore.tools.invoke",
        "ForkRequest": "skillcore.tools.forks",
        "Forks": "skillcore.tools.forks",
        "Reinjection": "skillcore.tools.reinjection",
        "SkillToolkit": "skillcore.tools.toolkit",
        "ToolResult": "skillcore.tools.calls",
        "ToolSpec": "skillcore.tools.specs",
        "load_replies": "skillcore.tools.reinjection",
        "parse_json_object": "skillcore.tools.specs",
        "preview_decision": "skillcore.tools.preview",
        "replies": "skillcore.tools.replies",
        "to_isolation": "skillcore.tools.scripts",
    },
)
