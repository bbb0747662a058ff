"""News clean-up rules, each on a sentence written for the test: furniture out, the sentence intact."""

from __future__ import annotations

import pytest

from graph_builder.news import clean_and_list, clean_news, listed_names


@pytest.mark.parametrize(("raw", "clean"), [
    # tickers in parentheses and bare after the name, several in a row, one-letter NYSE symbols, index codes
    ("Acme Corp ( ACME.N ) hired Bolt Group BOLT.O on Monday.", "Acme Corp hired Bolt Group on Monday."),
    ("Widget Holdings WDGa.N WDG.N bought Gizmo AG GIZGn.DE, its rival.",
     "Widget Holdings bought Gizmo AG, its rival."),
    ("Zeta F.N and Omega 7777.T rose as the index .SPX fell.", "Zeta and Omega rose as the index fell."),
    # Reuters-21578's ticker after the company form, but not a legal form or a title
    ("Acme Corp ACME said Widget Co WID, which it owns, grew.", "Acme Corp said Widget Co, which it owns, grew."),
    ("Acme Group AG said Widget Corp CEO John Doe left.", "Acme Group AG said Widget Corp CEO John Doe left."),
    # initialisms and names with a dot are no tickers
    ("The U.S. and the U.N. asked E.ON and J.P. Morgan to act.", "The U.S. and the U.N. asked E.ON and J.P. Morgan to act."),
    # an all-capital subhead glued to the next sentence, at a paragraph start or after a sentence end
    ("Sales rose. WIDGET DEMAND SOARS Acme sold more widgets.", "Sales rose. Acme sold more widgets."),
    ("PRICES UNDER PRESSURE Gizmo cut its prices.", "Gizmo cut its prices."),
    # short capitals that start a sentence are names, not subheads
    ("ACME CEO John Doe said so.", "ACME CEO John Doe said so."),
    ("ZETA AG Chief Executive Jane Roe resigned.", "ZETA AG Chief Executive Jane Roe resigned."),
    # a body written all in capitals has no mixed-case word after the run: left alone
    ("ACME SAID IT WILL SELL ITS GIZMO UNIT.", "ACME SAID IT WILL SELL ITS GIZMO UNIT."),
    # a story reference ends its sentence, with or without a full stop, and leaves no argument behind
    ("Acme set the timing<ID:nN25172621> Widget shares fell.", "Acme set the timing\nWidget shares fell."),
    ("For details see [ID:nN24244742]. Widget rose.", "For details see\nWidget rose."),
    ("Acme said so ID:nPEK67859. Widget rose.", "Acme said so\nWidget rose."),
    # list items glued to the sentence before them, and a lower-case sign-off
    ("Acme fell. - Widget bought Gizmo. * Bolt rose.", "Acme fell.\nWidget bought Gizmo.\nBolt rose."),
    ("Jane Roe, CEO, Acme Inc * John Doe, CEO, Widget Inc", "Jane Roe, CEO, Acme Inc\nJohn Doe, CEO, Widget Inc"),
    # a dateline's dash is no bullet
    ("LONDON  (Reuters) - Acme Corp ( ACME.N ) rose. - Widget fell.", "Acme Corp rose.\nWidget fell."),
    ("Profit rose 5 - 6 pct. Sales - which fell - rose.", "Profit rose 5 - 6 pct. Sales - which fell - rose."),
    ("Acme will be represented by Widget Inc. reuter", "Acme will be represented by Widget Inc."),
    # Reuters-21578's "and" for an ampersand inside a name
    ("S and P cut AT and T. Standard and Poor's agreed.", "S&P cut AT&T. Standard & Poor's agreed."),
    ("The class A and B shares rose. The U.S. and U.K. agreed.", "The class A and B shares rose. The U.S. and U.K. agreed."),
])
def test_clean_news_drops_tickers_and_subheads(raw: str, clean: str) -> None:
    assert clean_news(raw) == clean


@pytest.mark.parametrize(("raw", "clean"), [
    # a trademark footer with its story code, and a copyright footer after the keywords: the article ends before them
    ("Acme bought Widget.\n\nReuters and the Reuterssphere logo are registered trademarks and trademarks of the Reuters "
     "group ofcompanies around the world.nN03237582", "Acme bought Widget."),
    ("Acme bought Widget. Keywords: ACME WIDGET/ (C) Reuters 2007. All rights reserved. Republication or "
     "redistribution ofReuters content is prohibited.", "Acme bought Widget."),
    # contact furniture in double parentheses, over several wrapped paragraphs
    ("Acme bought Widget. ((Multimedia versions of Reuters Top News are now available for:\n\n3000 Xtra: visit "
     "topnews.session.rservices.com\n\nBridgeStation: view story .134 ))", "Acme bought Widget."),
    ("Acme bought Widget. ((Reporting by Jane Roe; Reuters Messaging: jane.roe@reuters.net; +1 646 223 6180))",
     "Acme bought Widget."),
    # "Keywords" and double parentheses are looked for near the end only: a factbox keeps its sections
    ("\n\n".join(["Acme bought Widget. Keywords: MERGERS"] + [f"Widget {k} rose." for k in range(7)]),
     "\n".join(["Acme bought Widget. Keywords: MERGERS"] + [f"Widget {k} rose." for k in range(7)])),
])
def test_clean_news_ends_the_article_before_its_footer(raw: str, clean: str) -> None:
    assert clean_news(raw) == clean


@pytest.mark.parametrize(("raw", "names"), [
    # a ticker in parentheses or bare after the name, with its symbol; the words of a run before it; a possessive
    ("LONDON (Reuters) - Commodities trader Glencore ( GLEN.L ) agreed to buy Swiss-based Xstrata Plc XTA.L.",
     [("glencore", "GLEN"), ("swiss-based xstrata plc", "XTA")]),
    ("Shares in Bank of America Corp ( BAC.N ) and The Walt Disney Co (DIS.N) rose; Spain's Bankia ( BKIA.MC ) fell.",
     [("bank of america corp", "BAC"), ("walt disney co", "DIS"), ("spain's bankia", "BKIA")]),
    # two tickers of one company (the first symbol); an index's code names no company; initialisms are no tickers
    ("Glencore Xstrata ( GLEN.L ; GLEN.HK ) rose while the S&P 500 ( .SPX ) and the U.S. dollar fell.",
     [("glencore xstrata", "GLEN")]),
    # a run never reaches back over the ticker before it
    ("Xstrata XTA.L and Royal Dutch Shell ( RDSa.L ) rose.", [("xstrata", "XTA"), ("royal dutch shell", "RDSA")]),
    # a lower-case word ends the run: nothing, or only the words after it
    ("The index of ( ABC.N ) and the miner ( XYZ.L ) fell.", []),
    ("", []),
])
def test_listed_names_are_the_names_written_before_a_ticker(raw: str, names: list[tuple[str, str]]) -> None:
    assert listed_names(raw) == names
    assert clean_and_list(raw) == (clean_news(raw), names)
