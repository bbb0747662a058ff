"""The page at `/` in a real headless Chromium against a real service on the made-up news fixture.

Each test checks what a person sees (the answer, the evidence, the neighbours, the API's own error message)
and that the browser console stays free of the page's errors. Screenshots go to out/screenshots/.
"""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

import httpx
import pytest

from service.app import create_app
from service.web import STATIC_DIR
from tests.service.live import live_server
from tests.web.conftest import AXE, DATE, KEY, QUESTION, REPORT, Tab, WebBuild, open_tab, web_settings

pytestmark = pytest.mark.browser


def api(web_url: str, path: str, body: dict[str, Any] | None = None, **params: str) -> httpx.Response:
    """The API's own answer, to compare the page with."""
    if body is not None:
        return httpx.post(f"{web_url}{path}", json=body, timeout=30)
    return httpx.get(f"{web_url}{path}", params=params, timeout=30)


def ask_by_text(tab: Tab, question: str, date: str) -> float:
    """Type a question and a date, press Enter; return the seconds until the verdict is on screen."""
    page = tab.page
    page.fill("#q", question)
    page.fill("#date", date)
    page.focus("#q")
    page.evaluate("() => delete document.getElementById('answer').dataset.ms")  # set again once answered
    started = time.perf_counter()
    page.keyboard.press("Enter")
    page.wait_for_selector("#answer[data-ms] #verdict")
    return time.perf_counter() - started


def test_ask_by_text_shows_the_answer_the_reading_and_why(tab: Tab, web_url: str) -> None:
    tab.open()
    expected = api(web_url, "/v1/query", {"text": QUESTION, "date": DATE}).json()
    # The first question of a page costs more (the first parse); report it and a second one.
    first = ask_by_text(tab, QUESTION, DATE)
    again = ask_by_text(tab, QUESTION, DATE)
    page = tab.page
    REPORT["enter to answer (first question)"] = f"{first * 1000:.0f} ms"
    REPORT["enter to answer (again)"] = f"{again * 1000:.0f} ms (page's own clock: {page.get_attribute('#answer', 'data-ms')} ms)"
    assert page.inner_text("#verdict") == "Yes"
    assert page.inner_text("#score-line") == (f"score {expected['score']:.3f} ≥ threshold {expected['threshold']}, "
                                              f"scorer {expected['scorer']}")
    reading = page.inner_text("#reading")
    assert "norvale mining (organization)" in reading and "(buy.1,buy.2)" in reading and "castellan bank" in reading
    # Why: the evidence best first, each sentence with its arguments and predicate words marked.
    items = page.locator("#evidence > li")
    assert items.count() == len(expected["evidence"]) == 2
    best = expected["evidence"][0]
    first_item = items.nth(0)
    assert first_item.locator("blockquote").inner_text() == best["sentence"]
    assert first_item.locator("mark.arg").all_inner_texts() == ["Norvale Mining Corp", "Castellan Bank Ltd"]
    assert first_item.locator("mark.pred").all_inner_texts() == ["acquired"]
    assert f"article {best['article_id']}, {best['date']}" in first_item.inner_text()
    assert first_item.locator(".edge").inner_text().startswith(
        f"edge {best['predicate']} → (buy.1,buy.2), score {best['score']:.3f}, match {best['match']} (")
    meaning = first_item.locator(".match-meaning").inner_text().strip()  # what the match kind means, in words
    assert meaning.startswith("(") and meaning.endswith(")") and len(meaning) > 10
    # The same pair under every graph scorer, as GET /v1/entailment gives it.
    scores = api(web_url, "/v1/entailment", premise=best["predicate"], hypothesis="(buy.1,buy.2)",
                 types="organization#organization").json()["scores"]
    table = first_item.locator(".measures table")
    table.wait_for()
    assert table.locator("tbody th").all_inner_texts() == list(scores)
    assert table.locator("tbody tr").nth(0).locator("td").nth(0).inner_text() == f"{scores[next(iter(scores))]['forward']:.3f}"
    # The address now holds the question: a link to this answer.
    query = parse_qs(urlparse(page.url).query)
    assert query == {"q": [QUESTION], "date": [DATE], "scorer": [expected["scorer"]]}
    tab.shot("ask")
    tab.shot_region("docs-answer", "#ask", "#evidence > li:first-child")
    tab.console.assert_clean()


def test_each_reading_of_a_question_shows_its_own_verdict(tab: Tab, web_url: str) -> None:
    # Three participants: judged on each pair of them, the one that answered first, each with its own score.
    question = "Norvale Mining bought Castellan Bank from its owners."
    expected = api(web_url, "/v1/query", {"text": question, "date": DATE}).json()
    judged = expected["hypothesis"]["judged"]
    assert len(judged) > 1 and judged[0]["answer"]
    tab.open()
    ask_by_text(tab, question, DATE)
    items = tab.page.locator("#readings > li").all_inner_texts()
    assert [item.split(" — ")[0] for item in items] == expected["hypothesis"]["readings"]
    for item, j in zip(items, judged, strict=True):
        verdict = "yes" if j["answer"] else "no"
        items_word = "item" if j["evidence_count"] == 1 else "items"
        assert item.endswith(f"{verdict}, score {j['score']:.3f}, {j['evidence_count']} evidence {items_word}")
    tab.console.assert_clean()


def test_ask_by_triple_with_a_day_from_the_calendar_and_another_scorer(tab: Tab, web_url: str) -> None:
    tab.open()
    page = tab.page
    page.check("input[name=form][value=triple]")
    assert page.is_hidden("#q") and page.is_visible("#s")
    page.fill("#s", "Norvale Mining")
    page.fill("#p", "bought")
    page.fill("#o", "Castellan Bank")
    windows = api(web_url, "/v1/windows").json()["windows"]
    assert page.input_value("#date") == windows[-1]["start"]  # a fresh page starts on the latest news
    page.click("#calendar-box summary")
    page.select_option("#month", "2021-03")
    day = page.locator(f"#calendar button[data-day='{DATE}']")
    window = next(w for w in windows if w["start"] <= DATE <= w["end"])
    assert day.text_content() == (f"4{window['articles']} art. {DATE}: news of {window['start']} .. {window['end']}, "
                                  f"{window['articles']} articles")
    assert page.locator("#calendar button").count() == sum(
        (_days(w["start"], w["end"])) for w in windows)  # every day of every window, none other
    day.click()
    assert page.input_value("#date") == DATE and day.get_attribute("aria-pressed") == "true"
    page.select_option("#scorer", "weeds")
    page.focus("#o")
    page.keyboard.press("Enter")
    page.wait_for_selector("#verdict")
    expected = api(web_url, "/v1/query", {"subject": "Norvale Mining", "predicate": "bought", "object": "Castellan Bank",
                                          "date": DATE, "scorer": "weeds"}).json()
    assert page.inner_text("#score-line").endswith("scorer weeds")
    assert page.inner_text("#score-line").startswith(f"score {expected['score']:.3f}")
    assert page.locator("#evidence > li").count() == len(expected["evidence"])
    assert parse_qs(urlparse(page.url).query) == {"s": ["Norvale Mining"], "p": ["bought"], "o": ["Castellan Bank"],
                                                  "date": [DATE], "scorer": ["weeds"]}
    tab.shot("ask-triple")
    tab.console.assert_clean()


def _days(start: str, end: str) -> int:
    import datetime as dt

    return (dt.date.fromisoformat(end) - dt.date.fromisoformat(start)).days + 1


def test_a_shared_link_shows_the_same_answer(tab: Tab, web_url: str) -> None:
    expected = api(web_url, "/v1/query", {"text": QUESTION, "date": DATE, "scorer": "lin"}).json()
    tab.open("/?" + urlencode({"q": QUESTION, "date": DATE, "scorer": "lin"}))
    page = tab.page
    page.wait_for_selector("#verdict")
    assert page.input_value("#q") == QUESTION and page.input_value("#date") == DATE
    assert page.input_value("#scorer") == "lin"
    assert page.inner_text("#score-line") == f"score {expected['score']:.3f} ≥ threshold {expected['threshold']}, scorer lin"
    assert page.locator("#evidence blockquote").all_inner_texts() == [e["sentence"] for e in expected["evidence"]]
    # The triple form and a walk are links too.
    tab.open("/?" + urlencode({"s": "Maria Olsen", "p": "visited", "o": "Lisbon", "date": "2021-03-02",
                               "walk": "(buy.1,buy.2)", "types": "organization#organization", "measure": "weeds"}))
    page.wait_for_selector("#verdict")
    assert page.is_checked("input[name=form][value=triple]") and page.input_value("#s") == "Maria Olsen"
    assert page.inner_text("#verdict") == "Yes"
    assert page.inner_text("#walk-node") == "(buy.1,buy.2) in the organization#organization graph, measure weeds"
    tab.console.assert_clean()


def test_walk_the_graph_both_ways_and_move_by_a_click(tab: Tab, web_url: str) -> None:
    tab.open()
    ask_by_text(tab, QUESTION, DATE)
    page = tab.page
    page.get_by_role("button", name="Walk the graph from (buy.1,buy.2)").click()
    page.wait_for_selector("#walk-node")
    expected = api(web_url, "/v1/predicates/neighbours", predicate="(buy.1,buy.2)", types="organization#organization",
                   limit="12").json()

    def listed(direction: str) -> list[str]:
        return [" ".join(t.split()) for t in page.locator(f"#{direction} li").all_inner_texts()]

    def wanted(edges: list[dict[str, Any]]) -> list[str]:
        return [f"{e['predicate'].split('#')[0]} {e['score']:.3f}" + (" antonym" if e["antonym"] else "")
                for e in edges]

    assert listed("entails") == wanted(expected["entails"]) and listed("entailed-by") == wanted(expected["entailed_by"])
    assert len(expected["entails"]) >= 2 and len(expected["entailed_by"]) >= 2
    # The drawing: the predicate and one box per neighbour shown, one arrow per edge.
    svg = page.locator("svg.neighbourhood")
    assert svg.locator("g.centre text").text_content() == "(buy.1,buy.2)"
    assert svg.locator("g.side").count() == svg.locator("line").count() == \
        len(expected["entails"]) + len(expected["entailed_by"])
    tab.shot("walk")
    tab.shot_region("docs-walk", "#walk", "#walk-body")
    # One click moves to a neighbour; the address follows; Back returns.
    page.locator("#entails button[data-predicate='(take.over.1,take.over.2)']").click()
    page.wait_for_selector("#walk-node code:text-is('(take.over.1,take.over.2)')")
    moved = api(web_url, "/v1/predicates/neighbours", predicate="(take.over.1,take.over.2)",
                types="organization#organization", limit="12").json()
    assert listed("entails") == wanted(moved["entails"])
    assert parse_qs(urlparse(page.url).query)["walk"] == ["(take.over.1,take.over.2)"]
    page.go_back()
    page.wait_for_selector("#walk-node code:text-is('(buy.1,buy.2)')")
    # Every neighbour is a button, so the keyboard walks too.
    page.locator("#entailed-by button").first.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#walk-node code:text-is('(acquire.1,acquire.2)')")
    tab.console.assert_clean()


def test_an_antonym_edge_is_marked_in_the_list_and_the_drawing(tab: Tab, web_url: str) -> None:
    # The fixture's graphs hold no antonyms, so the service's own answer is passed on with one edge flagged as the
    # API flags raise -> lower (tests/service/test_api.py checks the flag itself; this checks what a person sees).
    page = tab.page
    flagged: dict[str, str] = {}

    def flag_first(route: Any) -> None:
        answer = route.fetch().json()
        edge = answer["entails"][0]
        edge["antonym"] = True
        flagged["predicate"] = edge["predicate"].split("#")[0]
        route.fulfill(json=answer)

    page.route("**/v1/predicates/neighbours?*", flag_first)
    tab.open("/?" + urlencode({"walk": "(buy.1,buy.2)", "types": "organization#organization"}))
    page.wait_for_selector("#walk-node")
    items = page.locator("#entails li")
    marked = [i for i in range(items.count()) if items.nth(i).locator(".antonym").count()]
    assert marked == [0] and items.nth(0).inner_text().endswith(" antonym")
    assert "every graph scorer answers 0" in items.nth(0).locator(".antonym").get_attribute("title")
    boxes = page.locator("svg.neighbourhood g.side.antonym")
    assert boxes.count() == 1 and boxes.locator("text").text_content().startswith(flagged["predicate"])
    assert "opposite things" in boxes.locator("title").text_content()
    tab.console.assert_clean()


@pytest.mark.parametrize(("case", "status"), [("no news that day", 404), ("nothing parsed", 400),
                                               ("unknown predicate", 400), ("unknown graph node", 404),
                                               ("unknown scorer", 400)])
def test_errors_show_the_apis_message(tab: Tab, web_url: str, case: str, status: int) -> None:
    tab.open()
    page = tab.page
    if case == "unknown graph node":
        page.fill("#walk-predicate", "(zorble.1,zorble.2)")
        page.fill("#walk-types", "organization#organization")
        page.focus("#walk-predicate")
        page.keyboard.press("Enter")
        response = api(web_url, "/v1/predicates/neighbours", predicate="(zorble.1,zorble.2)",
                       types="organization#organization", limit="12")
    elif case == "unknown scorer":
        tab.open("/?" + urlencode({"q": QUESTION, "date": DATE, "scorer": "nonesuch"}))
        response = api(web_url, "/v1/query", {"text": QUESTION, "date": DATE, "scorer": "nonesuch", "top_k": 5})
    else:
        body = {"no news that day": {"text": QUESTION, "date": "2021-04-20"},
                "nothing parsed": {"text": "hello there", "date": DATE},
                "unknown predicate": {"subject": "Norvale Mining", "predicate": "zorbled", "object": "Castellan Bank",
                                      "date": DATE}}[case]
        if "text" in body:
            page.fill("#q", body["text"])
        else:
            page.check("input[name=form][value=triple]")
            for field, name in (("s", "subject"), ("p", "predicate"), ("o", "object")):
                page.fill(f"#{field}", body[name])
        page.fill("#date", body["date"])
        page.click("#ask-button")
        response = api(web_url, "/v1/query", body)
    error = response.json()["error"]
    assert response.status_code == status
    box = page.locator("#error")
    box.wait_for()
    assert box.inner_text() == f"{status} {error['code']}: {error['message']}"
    assert page.is_hidden("#answer")
    tab.shot(f"error-{case.replace(' ', '-')}")
    tab.console.assert_clean(expected_statuses=(status,))


def test_bad_input_in_the_address_is_an_error_on_the_page_never_markup(tab: Tab, web_url: str) -> None:
    dialogs: list[str] = []
    tab.page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    tab.open("/?" + urlencode({"q": QUESTION, "date": "2021-13-45"}))  # not a day: asked for one, nothing sent
    page = tab.page
    assert page.inner_text("#error") == "Give a date (or choose a day in the calendar)."
    assert page.evaluate("document.activeElement.id") == "date"
    hostile = '<img src=x onerror="alert(1)"> <script>alert(2)</script>'
    tab.open("/?" + urlencode({"q": hostile, "date": DATE, "walk": "<b>x</b>", "types": "a#b"}))
    page.wait_for_selector("#error:has-text('found no proposition')")
    expected = api(web_url, "/v1/query", {"text": hostile, "date": DATE}).json()["error"]
    assert page.inner_text("#error") == f"400 {expected['code']}: {expected['message']}"
    assert page.locator("main img, main script, main b").count() == 0 and dialogs == []
    tab.console.assert_clean(expected_statuses=(400, 404))


def test_a_service_that_is_not_ready_says_why(chromium: Any, tmp_path: Any, web_build: WebBuild) -> None:
    settings = web_settings(web_build).model_copy(update={"graphs_dir": tmp_path / "no-graphs"})
    with live_server(create_app(settings)) as (host, port):
        tab = open_tab(chromium, f"http://{host}:{port}")
        tab.open("/?" + urlencode({"q": QUESTION, "date": DATE}))
        page = tab.page
        assert page.get_attribute("body", "data-ready") == "error"
        assert page.inner_text("#error").startswith("503 not_ready: the service is not ready: the entailment graphs "
                                                    "failed to load")
        assert page.input_value("#q") == QUESTION  # the question is kept, to ask again later
        tab.shot("error-not-ready")
        tab.console.assert_clean(expected_statuses=(503,))
        page.context.close()


def test_the_key_is_asked_once_and_never_shown(chromium: Any, web_build: WebBuild) -> None:
    with live_server(create_app(web_settings(web_build, api_key=KEY))) as (host, port):
        base = f"http://{host}:{port}"
        tab = open_tab(chromium, base, bypass_csp=True)  # for axe on the key's form
        sent: list[str | None] = []
        tab.page.on("request", lambda r: sent.append(r.headers.get("x-api-key")) if "/v1/" in r.url else None)
        tab.page.goto(base + "/?" + urlencode({"q": QUESTION, "date": DATE}))
        page = tab.page
        page.wait_for_selector("#key-section:not([hidden])")
        assert page.evaluate("document.activeElement.id") == "key"
        assert "missing or wrong API key" in page.inner_text("#key-message")
        page.fill("#key", "a-wrong-key-of-enough-length")
        with page.expect_response(lambda r: "/v1/" in r.url and r.status == 401):
            page.keyboard.press("Enter")
        page.wait_for_selector("#key-section:not([hidden])")
        assert "missing or wrong API key" in page.inner_text("#key-message")
        assert [v for v in axe_violations(page) if v["impact"] in ("serious", "critical")] == []
        tab.shot("key")
        page.fill("#key", KEY)
        page.keyboard.press("Enter")
        page.wait_for_selector("#verdict")
        assert page.is_hidden("#key-section") and page.inner_text("#verdict") == "Yes"
        # Asked once: a reload in the same tab reads the key from sessionStorage.
        page.reload()
        page.wait_for_selector("#verdict")
        assert page.is_hidden("#key-section")
        # Sent as a header with each call, never in an address or in the page's HTML.
        assert sent.count(KEY) >= 4 and all(KEY not in url for url in tab.console.requests)
        assert KEY not in page.content() and KEY not in page.url
        assert KEY not in httpx.get(base + "/", timeout=10).text
        tab.console.assert_clean(expected_statuses=(401,))
        page.context.close()


def test_every_control_is_reachable_by_keyboard(tab: Tab) -> None:
    tab.open("/?" + urlencode({"q": QUESTION, "date": DATE, "walk": "(buy.1,buy.2)", "types": "organization#organization"}))
    page = tab.page
    page.wait_for_selector("#verdict")
    page.click("#calendar-box summary")
    controls = page.evaluate("""() => [...document.querySelectorAll('a[href], button, input, select, summary')]
        .filter(e => e.offsetParent !== null && !e.disabled)
        .filter(e => !(e.type === 'radio' && !e.checked))
        .map(e => e.id || e.dataset.day || e.dataset.predicate || e.textContent.trim())""")
    reached: list[str] = []
    page.locator("body").focus()
    for _ in range(len(controls) + 10):
        page.keyboard.press("Tab")
        reached.append(page.evaluate("""() => { const e = document.activeElement;
            return e.id || e.dataset.day || e.dataset.predicate || e.textContent.trim(); }"""))
    missing = [c for c in controls if c not in reached]
    assert missing == [], missing
    assert {"q", "date", "scorer", "ask-button", "walk-predicate", "walk-types", "walk-measure", DATE} <= set(reached)
    tab.console.assert_clean()


def axe_violations(page: Any) -> list[dict[str, Any]]:
    """Run axe-core on the page as it is (its context must bypass the page's CSP to inject it)."""
    page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    return page.evaluate("async () => { const r = await axe.run(document); return r.violations.map(v => "  # type: ignore[no-any-return]
                         "({id: v.id, impact: v.impact, nodes: v.nodes.length})); }")


def test_no_serious_accessibility_violation(chromium: Any, web_url: str) -> None:
    # axe is injected as a script: this context bypasses the page's Content Security Policy to allow it.
    tab = open_tab(chromium, web_url, bypass_csp=True)
    tab.open("/?" + urlencode({"q": QUESTION, "date": DATE, "walk": "(buy.1,buy.2)", "types": "organization#organization"}))
    page = tab.page
    page.wait_for_selector("#verdict")
    page.wait_for_selector(".measures table")
    page.click("#calendar-box summary")
    result = axe_violations(page)
    REPORT["axe-core 4.14.1"] = (", ".join(f"{v['id']} ({v['impact']}, {v['nodes']})" for v in result)
                                 or "no violations")
    serious = [v for v in result if v["impact"] in ("serious", "critical")]
    assert serious == [], json.dumps(serious)
    tab.console.assert_clean()
    page.context.close()


def test_nothing_leaves_the_host_and_the_page_is_light(tab: Tab, web_url: str) -> None:
    responses: list[Any] = []
    tab.page.on("response", lambda r: responses.append(r) if "/v1/" not in r.url else None)
    tab.open()
    ask_by_text(tab, QUESTION, DATE)
    fetched = [url for url in tab.console.requests if not url.startswith("data:")]
    assert fetched and all(url.startswith(web_url + "/") for url in fetched), fetched
    sizes = {r.url: len(r.body()) for r in responses if not r.url.startswith("data:")}
    weight = sum(sizes.values())
    REPORT["page weight"] = f"{weight / 1024:.1f} KB in {len(sizes)} files ({', '.join(sorted(urlparse(u).path for u in sizes))})"
    assert weight == sum(p.stat().st_size for p in STATIC_DIR.iterdir() if p.is_file())
    assert weight < 200 * 1024
    tab.console.assert_clean()

