"""What a tool result's content parts become as the answer's text."""

from __future__ import annotations

import base64

from mcp_types import (
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from homeclaw_cli.adapters.mcp_client import content_text


def test_text_parts_are_joined() -> None:
    parts = [TextContent(type="text", text="one"), TextContent(type="text", text="two")]
    assert content_text(parts) == "one\ntwo"


def test_an_embedded_text_resource_gives_its_text() -> None:
    body = TextResourceContents(uri="file:///notes.txt", text="resource body")
    assert content_text([EmbeddedResource(type="resource", resource=body)]) == "resource body"


def test_parts_without_text_are_named_not_dropped() -> None:
    png = base64.b64encode(b"\x89PNG0000").decode()
    parts = [
        ImageContent(type="image", data=png, mime_type="image/png"),
        AudioContent(type="audio", data=png, mime_type="audio/wav"),
        EmbeddedResource(
            type="resource",
            resource=BlobResourceContents(uri="file:///a.bin", blob=png, mime_type="x/y"),
        ),
        ResourceLink(type="resource_link", name="report", uri="file:///report.pdf"),
    ]
    assert content_text(parts).splitlines() == [
        "[image/png image, 8 bytes]",
        "[audio/wav audio, 8 bytes]",
        "[x/y resource file:///a.bin, 8 bytes]",
        "[resource link: report file:///report.pdf]",
    ]
