"""Binary resources: the MIME sniffer, the payload in ToolResult, caps, confinement, opt-in."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skillcore import Limits, OutcomeCode, SkillConfig, SkillLibrary, SkillToolkit
from skillcore.testing import write_skill
from skillcore.tools.binary import ALLOWED_TYPES, SNIFF_BYTES, BinaryPayload, sniff

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + bytes(range(256))
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(64)
GIF = b"GIF89a\x01\x00\x01\x00\x00\x00\x00" + bytes(16)
WEBP = b"RIFF\x24\x00\x00\x00WEBPVP8 " + bytes(32)
PDF = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n"
UNKNOWN = b"PK\x03\x04" + bytes(64)  # a zip: binary, not an allowed type

KNOWN = [
    (PNG, "image/png"),
    (JPEG, "image/jpeg"),
    (GIF, "image/gif"),
    (b"GIF87a" + bytes(8), "image/gif"),
    (WEBP, "image/webp"),
    (PDF, "application/pdf"),
]


@pytest.mark.parametrize(("data", "mime"), KNOWN)
def test_sniff_known_types(data: bytes, mime: str) -> None:
    assert sniff(data) == mime


@pytest.mark.parametrize(
    "data",
    [b"", b"\x89PNG", b"\x89PNG\x00\x01\x02", b"RIFF\x00\x00\x00\x00WAVE", UNKNOWN, b"hello"],
)
def test_sniff_rejects_partial_and_other_signatures(data: bytes) -> None:
    assert sniff(data) is None


@settings(settings.get_profile("skillcore"))
@given(st.binary(max_size=64), st.binary(max_size=64))
def test_sniff_fuzz_never_raises_and_reads_only_the_head(data: bytes, tail: bytes) -> None:
    """Any bytes: None or an allowed type, decided by the first SNIFF_BYTES bytes alone."""
    got = sniff(data)
    assert got is None or got in ALLOWED_TYPES
    if len(data) >= SNIFF_BYTES:
        assert sniff(data[:SNIFF_BYTES] + tail) == got
    assert sniff(bytearray(data)) == got


class _Probe(bytes):
    """Bytes that record which slices are asked for."""

    asked: list[slice]

    def __getitem__(self, key):  # type: ignore[override]
        self.asked.append(key)
        return super().__getitem__(key)


@settings(settings.get_profile("skillcore"))
@given(st.binary(min_size=SNIFF_BYTES, max_size=4096))
def test_sniff_fuzz_reads_a_bounded_head(data: bytes) -> None:
    """However long the input, the sniffer looks at SNIFF_BYTES bytes at most."""
    probe = _Probe(data)
    probe.asked = []
    sniff(probe)
    assert probe.asked and all(
        isinstance(k, slice) and k.start in (None, 0) and k.stop <= SNIFF_BYTES for k in probe.asked
    ), probe.asked


@settings(settings.get_profile("skillcore"))
@given(st.sampled_from(KNOWN), st.binary(max_size=32))
def test_sniff_fuzz_known_prefix_wins_over_any_tail(known: tuple[bytes, str], tail: bytes) -> None:
    data, mime = known
    assert sniff(data[:SNIFF_BYTES] + tail) == mime


def test_payload_encodings() -> None:
    p = BinaryPayload("s", "assets/a.png", "image/png", b"\x01\x02")
    assert p.size == 2 and p.is_image and p.filename == "a.png"
    assert p.base64() == "AQI=" and p.data_url() == "data:image/png;base64,AQI="
    assert not BinaryPayload("s", "doc.pdf", "application/pdf", b"").is_image
    assert "\\x01" not in repr(p)  # bytes stay out of logs and reprs


# -- through the toolkit -------------------------------------------------------------------


@pytest.fixture
def lib(tmp_path: Path) -> SkillLibrary:
    d = write_skill(tmp_path / "skills", "pics", "Pictures.", "See assets.")
    (d / "assets").mkdir()
    for name, data in {
        "logo.png": PNG,
        "photo.jpg": JPEG,
        "anim.gif": GIF,
        "pic.webp": WEBP,
        "guide.pdf": PDF,
        "archive.zip": UNKNOWN,
        "fake.png": UNKNOWN,  # named like an image, it is not one
        "png-named.txt": PNG,  # an image whatever its name says
        "big.png": PNG + bytes(300 * 1024),  # over the text cap, within the binary cap
        "huge.png": PNG + bytes(6 * 1024 * 1024),  # over the binary cap
        "big.md": "x" * (300 * 1024),  # text over the text cap
    }.items():
        path = d / "assets" / name
        path.write_bytes(data) if isinstance(data, bytes) else path.write_text(data)
    return SkillLibrary([tmp_path / "skills"])


def _read(
    lib: SkillLibrary, path: str, *, binary: bool = True, limits: Limits | None = None, aio=False
):
    toolkit = SkillToolkit(lib, binary_resources=binary)
    session = toolkit.call(lib.session(limits), "load_skill", {"skill_name": "pics"}).session
    args = {"skill_name": "pics", "path": path}
    if aio:
        return asyncio.run(toolkit.acall(session, "load_skill_resource", args))
    return toolkit.call(session, "load_skill_resource", args)


@pytest.mark.parametrize("aio", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize(
    ("path", "mime", "data"),
    [
        ("assets/logo.png", "image/png", PNG),
        ("assets/photo.jpg", "image/jpeg", JPEG),
        ("assets/anim.gif", "image/gif", GIF),
        ("assets/pic.webp", "image/webp", WEBP),
        ("assets/guide.pdf", "application/pdf", PDF),
        ("assets/png-named.txt", "image/png", PNG),
    ],
)
def test_allowed_binary_is_delivered_as_payload(
    lib: SkillLibrary, path: str, mime: str, data: bytes, aio: bool
) -> None:
    r = _read(lib, path, aio=aio)
    assert r.code is OutcomeCode.RESOURCE_READ and r.ok
    assert r.binary == BinaryPayload("pics", path, mime, data)
    # The text tells the model what it got: name, type and size.
    assert path in r.text and mime in r.text and f"{len(data)} bytes" in r.text
    assert "attached" in r.text


def test_off_by_default_binary_stays_refused(lib: SkillLibrary) -> None:
    assert SkillToolkit(lib).binary_resources is False
    r = _read(lib, "assets/logo.png", binary=False)
    assert r.code is OutcomeCode.BINARY_RESOURCE and r.binary is None
    assert SkillConfig().binary_resources is False
    assert SkillConfig(binary_resources=True).toolkit(lib).binary_resources is True


@pytest.mark.parametrize("path", ["assets/archive.zip", "assets/fake.png"])
def test_unknown_binary_is_refused_even_when_enabled(lib: SkillLibrary, path: str) -> None:
    r = _read(lib, path)
    assert r.code is OutcomeCode.BINARY_RESOURCE and r.binary is None and r.terminal
    assert "binary file" in r.text


@pytest.mark.parametrize("aio", [False, True], ids=["sync", "async"])
def test_image_over_the_text_cap_within_the_binary_cap(lib: SkillLibrary, aio: bool) -> None:
    r = _read(lib, "assets/big.png", aio=aio)
    assert r.code is OutcomeCode.RESOURCE_READ and r.binary is not None
    assert r.binary.size == len(PNG) + 300 * 1024


@pytest.mark.parametrize("aio", [False, True], ids=["sync", "async"])
def test_over_the_binary_cap_is_too_large(lib: SkillLibrary, aio: bool) -> None:
    r = _read(lib, "assets/huge.png", aio=aio)
    assert r.code is OutcomeCode.TOO_LARGE and r.binary is None
    assert f"over the {Limits().max_binary_bytes}-byte limit" in r.text
    small = Limits(max_binary_bytes=1024)
    r = _read(lib, "assets/big.png", limits=small, aio=aio)
    assert r.code is OutcomeCode.TOO_LARGE and r.binary is None


def test_binary_cap_below_the_text_cap_still_applies(lib: SkillLibrary) -> None:
    r = _read(lib, "assets/logo.png", limits=Limits(max_binary_bytes=10))
    assert r.code is OutcomeCode.TOO_LARGE and r.binary is None
    assert "over the 10-byte limit for binary files" in r.text


def test_text_over_the_text_cap_stays_too_large(lib: SkillLibrary) -> None:
    r = _read(lib, "assets/big.md")
    assert r.code is OutcomeCode.TOO_LARGE and r.binary is None
    assert f"over the {Limits().max_resource_bytes}-byte limit" in r.text


def test_text_resources_are_unchanged(lib: SkillLibrary, tmp_path: Path) -> None:
    d = tmp_path / "skills" / "pics" / "notes.md"
    d.write_text("hello")
    on, off = _read(lib, "notes.md"), _read(lib, "notes.md", binary=False)
    assert on == off and on.binary is None and "hello" in on.text


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("../outside.png", OutcomeCode.PATH_REJECTED),
        ("/etc/outside.png", OutcomeCode.PATH_REJECTED),
        ("assets/escape.png", OutcomeCode.PATH_REJECTED),
    ],
)
def test_confinement_is_the_same_for_binary(
    lib: SkillLibrary, tmp_path: Path, path: str, code: OutcomeCode
) -> None:
    outside = tmp_path / "skills" / "outside.png"
    outside.write_bytes(PNG)
    os.symlink(outside, tmp_path / "skills" / "pics" / "assets" / "escape.png")
    r = _read(lib, path)
    assert r.binary is None and r.code is code, r


def test_event_reports_the_size(lib: SkillLibrary) -> None:
    from skillcore.testing import EventRecorder

    with EventRecorder() as rec:
        _read(lib, "assets/logo.png")
    reads = [e for e in rec.events if e.name.startswith("resource.")]
    assert reads and reads[-1].fields.get("size") == len(PNG), reads
