"""Text for people and for other tools: points as numbers, control characters made visible,
Markdown and HTML escaped. Shared by the report, its exports, the CI summary and the class summary."""

from __future__ import annotations

import html
import math
import re

# Characters XML 1.0 forbids (C0 controls but tab/newline/return, lone surrogates, U+FFFE/U+FFFF).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
# What a terminal would obey rather than show: every C0 and C1 control but newline and tab
# (escape sequences, carriage returns, bells) and the marks that reorder a line's text.
_MARKS = "\u200e\u200f\u202a-\u202e\u2066-\u2069"  # the marks that reorder a line's text (a character class)
_NOT_FOR_A_TERMINAL = re.compile(f"[\x00-\x08\x0e-\x1f\x7f-\x9f\r{_MARKS}\ud800-\udfff]")  # and lone surrogates
_DIRECTION_MARKS = re.compile(f"[{_MARKS}]")
# GitHub's runner obeys a line of its log that starts with `::` (after blanks) and `##[` anywhere in one
# (workflow commands: a forged `::notice`, `::stop-commands::` hiding the real ones, `::add-mask::`); a
# zero-width space after the first character leaves the text as it reads and the command broken. A `::`
# inside a line (a test's id, file.py::test) is left as it is, to be copied.
_WORKFLOW_COMMAND = re.compile(r"^\s*:(?=:)|#(?=#\[)", re.MULTILINE)  # \s: .NET's TrimStart takes any Unicode blank
# Markdown punctuation that would otherwise start emphasis, links, HTML, code or a table cell.
_MARKDOWN = re.compile(r"([\\`*_\[\]<>|~&])")


def a_few(items, shown: int = 5) -> str:
    """'ana, bo, cy and 2 more': the first ``shown`` items, and how many are left out."""
    names = [str(item) for item in items]
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")


def points(x) -> int | float:
    """Points as ints when they are whole, so reports read 3 rather than 3.0."""
    return int(x) if float(x).is_integer() else round(float(x), 6)


def whole_points(x) -> int:
    """Points as a whole number, rounded down, so that no point is awarded that was not earned (43.5 -> 43);
    a sum's float noise (0.1 + 0.2) goes first, at the 6 decimals a report keeps."""
    return math.floor(round(float(x), 6))


def as_text(value) -> str:
    return "" if value is None else str(value)


def visible(value) -> str:
    """Text with the control characters XML 1.0 cannot carry (and a database may refuse) shown as escapes: \\x00."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", as_text(value))


def _marks_shown(text: str) -> str:
    """``text`` with the marks that reorder a line (U+200E, U+202E, ...) written as escapes: \\u202e."""
    return _DIRECTION_MARKS.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def for_terminal(value) -> str:
    """Text a terminal shows as it is: controls and direction marks written as escapes (\\x1b, \\u202e), and
    no workflow command for the CI log it may be (a zero-width space inside a line's leading `::`, and `##[`)."""

    def escape(match):
        code = ord(match.group())
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    text = as_text(value).replace("\r\n", "\n").replace("\x0b", " ").replace("\x0c", " ")
    return _WORKFLOW_COMMAND.sub(lambda m: m.group() + "\u200b", _NOT_FOR_A_TERMINAL.sub(escape, text))


def one_line_for_terminal(value) -> str:
    """for_terminal on one line: a new line or a tab in it is written as an escape too (an id, a name)."""
    return for_terminal(value).replace("\n", "\\n").replace("\t", "\\t")


def spreadsheet_cell(value) -> str:
    """Text a spreadsheet shows as text, never runs as a formula (CSV injection): a leading = + - @, tab or
    carriage return gets a ' before it. Its control characters and direction marks are written as escapes, as
    for a terminal (\\x1b): a gradebook is read with `cat` too, and a file name can hold them."""
    text = for_terminal(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def markdown(value, *, cell: bool = False) -> str:
    """Text that renders as itself in Markdown: punctuation escaped, direction marks shown as escapes (\\u202e
    would reorder the line's text), lines joined (with <br> in a table cell)."""
    lines = _MARKDOWN.sub(r"\\\1", _marks_shown(visible(value))).splitlines()
    return ("<br>" if cell else " ").join(line.strip() for line in lines)


def code_span(value) -> str:
    """Text as a Markdown code span that survives a table cell (pipes escaped, fence longer than any backtick run)."""
    text = " ".join(_marks_shown(visible(value)).splitlines()).replace("|", "\\|")
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}" if text else ""


def html_text(value) -> str:
    """Text that shows as itself in HTML, in an element or an attribute: ``<>&"'`` escaped, and the
    control characters XML cannot carry and the marks that reorder a line written as escapes (a lone surrogate
    could not be written at all)."""
    return html.escape(_marks_shown(visible(value)), quote=True)  # a mark would reorder the page's line (U+202E)
