"""The shell of every HTML page the kit writes (the class report, each student's feedback): one file that
opens with no network, and a Content-Security-Policy that forbids every script and every outside resource.

The pages are full of text students control (their ids, their messages, their code): it is escaped
(grader.report.text.html_text), and the policy is the second wall, so that a slip in the escaping still
runs nothing and loads nothing. Styles are the page's own, inline; plots are inline SVG.
"""

from __future__ import annotations

from grader.report.text import html_text

# No script of any kind, no outside resource (font, image, frame, fetch), no form, no <base>:
# only the page's own inline styles. (frame-ancestors is not obeyed in a meta element: left out.)
CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

BASE_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 80em; padding: 0 1em; color: #222; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; }
"""


def html_page(title: str, body: str, style: str = "") -> str:
    """A whole page: ``title`` is escaped here, ``body`` is HTML its caller escaped, ``style`` the page's CSS."""
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">',
            '<meta name="referrer" content="no-referrer">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{html_text(title)}</title>",
            f"<style>{BASE_STYLE}{style}</style>",
            "</head>",
            "<body>",
            body,
            "</body>",
            "</html>",
            "",
        ]
    )
