"""News clean-up shared by every corpus reader and the extraction evaluation.

Wire copy carries furniture that is not part of what a sentence states: datelines
(`LONDON  (Reuters) - `), tickers in parentheses (`( XOM.N )`) or bare after a name (`Acme Group ACME.N said`),
all-capital subheads run into the next sentence (`PRICES UNDER PRESSURE Acme cut prices`), reporter sign-offs
(`(Reporting by ...; Editing by ...)`, `Reuter`), SGML angle brackets around company names
(`<Epitope Inc>`), story references (`<ID:nN25172621>`), and hard line wraps inside paragraphs. `clean_news`
removes the furniture and returns one paragraph per line, so that a line break is always a paragraph (and so a
sentence) boundary and a wrapped line never merges two sentences nor splits one.
"""

from __future__ import annotations

import html
import re
import unicodedata

_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_SPACES_RE = re.compile(r"[ \t\u00a0\u2000-\u200b\u202f\u205f\u3000]+")
# Paragraph breaks: a blank line, or a line break before an indented line (Reuters-21578 style).
_PARAGRAPH_RE = re.compile(r"\n[ \t]*\n\s*|\n(?=[ \t]+\S)")
# Early ding2014 copy runs paragraphs together with two spaces after a sentence end.
_RUN_ON_PARAGRAPH_RE = re.compile(r"(?<=[.!?\"”')])[ \t]{2,}(?=[\"“(]?[A-Z0-9])")
_DATELINE_RE = re.compile(r"^[^()\n]{0,100}?\(\s*Reuters\s*\)\s*[-–—]+\s*")
# `( XOM.N )`, `(IBM.N)`, `( .SPX )`, `( 7203.T )`, `( BARC.L ; LLOY.L )`: an exchange suffix or inner spaces.
_TICKER = r"\.?[A-Z0-9][A-Za-z0-9&\-_]*(?:\.[A-Za-z]{1,4})"
_TICKER_RE = re.compile(rf"\s*\(\s*{_TICKER}(?:\s*[,;/]\s*{_TICKER})*\s*\)|\s*\(\s+\.?[A-Z0-9][A-Z0-9.&\-]*\s+\)")
# A bare ticker: `JEF.N`, `DBKGn.DE`, `7203.T`, `NWSa.N NWS.N`, an index code `.SPX`; a one-letter symbol only on the
# NYSE or Nasdaq (`F.N`), so that `U.S.`, `U.N.` and `E.ON` stay.
_BARE_TICKER_RE = re.compile(
    r"\s*(?<![\w.&'’\-])(?:[A-Z0-9]{2,8}[a-z]?\.[A-Z]{1,2}(?![\w&])(?!\.\w)|[A-Z]\.[NO](?![\w.&])|\.[A-Z]{3,8}(?![\w.&]))")
# Reuters-21578 writes a ticker bare after the company form: "Acme Corp ACME said", "Widget Co WID, which".
_SUFFIX_TICKER_RE = re.compile(
    r"\b((?:Corp|Inc|Co|Ltd|Plc|PLC|Cos|Group|Corporation|Company|Bancorp|Industries)\.?) ([A-Z]{1,5})"
    r"(?=[,;:]|\s+[a-z]|\s*$)")
_NOT_TICKERS = frozenset({"AG", "SA", "NV", "BV", "LP", "LLC", "PLC", "SPA", "AB", "ASA", "KK", "USA", "US", "UK", "CEO",
                          "CFO", "COO", "AND", "OF", "THE", "A", "I"})
# An all-capital subhead glued to the sentence after it, at a paragraph start or after a sentence end: two or more
# capitalised words with at least eight letters between them, then a word in mixed case ("WIDGET DEMAND SOARS Acme sold more").
_SUBHEAD_RE = re.compile(
    r"(^|[.!?][\"”’')]*\s+)((?:[A-Z0-9][A-Z0-9&'’.\-]*,?\s+){1,9}[A-Z0-9][A-Z0-9&'’.\-]*[:,]?)\s+(?=[\"“‘(]?[A-Z][a-z])")
_SIGNOFF_RE = re.compile(
    r"\s*\((?:[^()]|\([^()]*\))*\b(?:[Rr]eporting|[Ee]diting|[Ww]riting|[Cc]ompiled|[Ee]dited)\s+[Bb]y\b"
    r"(?:[^()]|\([^()]*\))*\)\s*$")
_BARE_SIGNOFF_RE = re.compile(r"^\s*(?:\(?\s*)?(?:Additional\s+)?(?:[Rr]eporting|[Ee]diting|[Ww]riting)\s+[Bb]y\b.*$")
_REUTER_SIGNOFF_RE = re.compile(r"\s*\b(?:Reuter|reuter|REUTER)\s*$")
# A story reference (`<ID:nN25172621>`, `[ID:nL04695113]`) often ends a sentence without a full stop: it becomes a
# paragraph break (with the stop after it, if any).
_STORY_ID_RE = re.compile(r"\s*(?:<ID:[^<>\s]{1,40}>|\[ID:[^\[\]\s]{1,40}\]|\bID:n[A-Za-z0-9]{5,20}\b)\s*[.;]?\s*")
# A list item glued to the text before it ("... its debt. - BC Partners bought ...", "... Micron Technology Inc * Anne
# Mulcahy, CEO, Xerox"): the bullet becomes a paragraph break (a dash only after a sentence end).
_BULLET_RE = re.compile(r"(?<=[.!?])[ \t]+-[ \t]+(?=[\"“(]?[A-Z0-9])|[ \t]+[*•][ \t]+(?=[\"“(]?[A-Z0-9])"
                        r"|^[ \t]*[-*•][ \t]+", re.MULTILINE)
# Reuters-21578 writes an ampersand as "and": "S and P", "AT and T", "Standard and Poor's" are one name each.
_AND_NAME_RE = re.compile(r"(?<![Cc]lass )(?<![Ss]eries )\b([A-Z]{1,2}) and ([A-Z]{1,2})\b(?!\.[A-Za-z]|['’])"
                          r"|\b(Standard) and (Poor's)")
# A copyright or trademark footer, keywords, and contact furniture in double parentheses (2006-2008 copy): the rest of
# the article from it on is not news ("Keywords: RETAIL WALMART (C) Reuters 2006. All rights reserved. Republication
# ...", "Reuters and the Reuterssphere logo are registered trademarks ... around the world.nN03237582", "((Reporting by
# X; Reuters Messaging: ...; +1 646 223 6180))", "((Multimedia versions of Reuters Top News are now available for:").
_FOOTER_RE = re.compile(r"\s*(?:\(C\)\s*Reuters\s+\d{4}\b|Reuters and the Reuters\s?sphere logo are registered"
                        r"|Keywords:\s+[A-Z]|\(\(\s*(?:Multimedia|[Rr]eporting|[Ee]diting|[Ww]riting|[Cc]ompiled)\b).*$",
                        re.S)
FOOTER_PARAGRAPHS = 6  # a footer is looked for in the last paragraphs only (a wrapped one spans several)
_ANGLE_RE = re.compile(r"<([^<>\n]{1,100})>")
_STRAY_ANGLE_RE = re.compile(r"\s*[<>]+\s*")


# A company's name as the copy writes it right before its ticker: a run of capitalised words, joined by "of", "de",
# "and" or "&" ("Bank of America ( BAC.N )", "Xstrata XTA.L"), lower-cased by `listed_names`.
_LISTED_TICKER_RE = re.compile(
    rf"\s*\(\s*(?!\.){_TICKER}(?:\s*[,;/]\s*{_TICKER})*\s*\)|\s+[A-Z0-9]{{2,8}}[a-z]?\.[A-Z]{{1,2}}(?![\w&])(?!\.\w)")
_NAME_WORD = r"[A-Z][\w&'’.\-]*"
_NAME_RUN_RE = re.compile(rf"(?<![\w&'’.\-])({_NAME_WORD}(?:\s+(?:of|de|du|del|der|and|&|{_NAME_WORD}))*)$")
_SYMBOL_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9&\-_]*")  # a ticker's symbol, before its exchange
_LEADING_WORDS = frozenset({"the", "a", "an", "and", "but", "shares", "while"})


def listed_names(raw: str) -> list[tuple[str, str]]:
    """The names the copy marks as listed companies, lower-cased, each with its ticker's symbol (the part before the
    exchange, upper-cased): the capitalised words right before a ticker (`Glencore ( GLEN.L )`, `Xstrata XTA.L`, `Bank
    of America Corp ( BAC.N )` -> (`glencore`, `GLEN`), (`xstrata`, `XTA`), (`bank of america corp`, `BAC`)). An
    index's code (`( .SPX )`) names no company. The words before the name may be part of the run ("Swiss-based
    Xstrata"), and a place may stand before a ticker ("traded in Frankfurt ( AAPL.F )"): the typing pass sorts these
    out, by the words and by whether the run keeps one symbol."""
    text = _SPACES_RE.sub(" ", unescape(raw).replace("\n", " "))
    found: list[tuple[str, str]] = []
    after = 0  # a run never reaches back over the ticker before it
    for match in _LISTED_TICKER_RE.finditer(text):
        run = _NAME_RUN_RE.search(text, max(after, match.start() - 120), match.start())
        after = match.end()
        if run is None:
            continue
        words = run.group(1).split()
        while words and words[0].lower() in _LEADING_WORDS:
            words = words[1:]
        symbol = _SYMBOL_RE.search(match.group(0))
        if words and symbol is not None:
            name = " ".join(words).lower().removesuffix("'s").removesuffix("’s")
            found.append((name, symbol.group(0).upper()))
    return found


def clean_and_list(raw: str) -> tuple[str, list[tuple[str, str]]]:
    """`clean_news` of the copy, and its `listed_names`."""
    return clean_news(raw), listed_names(raw)


def unescape(raw: str) -> str:
    """Decode SGML/HTML entities, drop control characters and apply Unicode NFC."""
    return unicodedata.normalize("NFC", _CONTROL_RE.sub("", html.unescape(raw.replace("\r\n", "\n"))))


def paragraphs(text: str) -> list[str]:
    """Split raw wire copy into paragraphs and join the hard-wrapped lines inside each."""
    out: list[str] = []
    for block in _PARAGRAPH_RE.split(text):
        for part in _RUN_ON_PARAGRAPH_RE.split(block):
            joined = _SPACES_RE.sub(" ", part.replace("\n", " ")).strip()
            if joined:
                out.append(joined)
    return out


def _drop_suffix_ticker(match: re.Match[str]) -> str:
    return match.group(0) if match.group(2) in _NOT_TICKERS else match.group(1)


def _drop_subhead(match: re.Match[str]) -> str:
    letters = sum(ch.isalpha() for ch in match.group(2))
    return match.group(1) if letters >= 8 else match.group(0)


def _ampersand(match: re.Match[str]) -> str:
    if match.group(1):
        return f"{match.group(1)}&{match.group(2)}"  # "S&P", "AT&T"
    return f"{match.group(3)} & {match.group(4)}"     # "Standard & Poor's"


def _clean_paragraph(paragraph: str) -> str:
    paragraph = _AND_NAME_RE.sub(_ampersand, paragraph)
    paragraph = _ANGLE_RE.sub(r"\1", paragraph)
    paragraph = _STRAY_ANGLE_RE.sub(" ", paragraph)
    paragraph = _TICKER_RE.sub("", paragraph)
    paragraph = _BARE_TICKER_RE.sub("", paragraph)
    paragraph = _SUFFIX_TICKER_RE.sub(_drop_suffix_ticker, paragraph)
    paragraph = _SUBHEAD_RE.sub(_drop_subhead, paragraph)
    return _SPACES_RE.sub(" ", paragraph).strip()


def clean_news(raw: str) -> str:
    """Return wire copy without datelines, tickers, sign-offs or hard wraps, one paragraph per line."""
    paras = paragraphs(_BULLET_RE.sub("\n\n", _STORY_ID_RE.sub("\n\n", unescape(raw))))
    if paras:
        paras[0] = _DATELINE_RE.sub("", paras[0], count=1)
    for n in range(max(0, len(paras) - FOOTER_PARAGRAPHS), len(paras)):
        footer = _FOOTER_RE.search(paras[n])
        if footer is not None:
            paras = [*paras[:n], paras[n][:footer.start()]]
            break
    cleaned: list[str] = []
    for n, para in enumerate(paras):
        last = n == len(paras) - 1
        if last:
            para = _REUTER_SIGNOFF_RE.sub("", para)
            while True:
                stripped = _SIGNOFF_RE.sub("", para)
                if stripped == para:
                    break
                para = stripped
        if _BARE_SIGNOFF_RE.match(para) and n >= len(paras) - 3:
            continue
        para = _clean_paragraph(para)
        if para:
            cleaned.append(para)
    return "\n".join(cleaned)
