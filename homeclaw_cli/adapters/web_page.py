"""Whether a model server's error body is a web page: model servers answer errors in JSON, so
HTML means llm.host points at some other web server (its page is not worth printing)."""

from __future__ import annotations


def is_web_page(body: str) -> bool:
    return body.lstrip().lower().startswith(("<!doctype html", "<html"))
