"""Checks that hostile names put into an HTML page or e-mail came out as text, not markup."""

from __future__ import annotations

from html.parser import HTMLParser

# Each would run if it became markup: an image's error handler, an SVG's load handler, a script
# element closing the one a page had open.
IMG = '<img src=x onerror="window.__xss=1">'
SVG = '"><svg onload=window.__xss=1>'
SCRIPT = "</script><script>window.__xss=1</script>"
PAYLOADS = (IMG, SVG, SCRIPT)


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.handlers: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.handlers += [f"<{tag} {name}>" for name, _ in attrs if name.startswith("on")]

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def assert_shown_as_text(html: str, texts: tuple[str, ...] | list[str]) -> None:
    """Every text is in the page as text, and the page has no element or handler they brought."""
    page = _Page()
    page.feed(html)
    page.close()
    assert page.handlers == [], f"event handler attributes: {page.handlers}"
    assert "script" not in page.tags, "a <script> element"
    assert "svg" not in page.tags, "an <svg> element"
    shown = "".join(page.text)
    for text in texts:
        assert text in shown, f"{text!r} is not shown as text"
