// egqa's page: plain JavaScript over the JSON API (/v1/...), no library, nothing loaded from elsewhere.
// State lives in the address (?q=&date=&scorer=, or ?s=&p=&o=&date=, and ?walk=&types=&measure=), so a link
// reproduces what it shows. The API key, when the service asks for one, lives in sessionStorage only.
"use strict";

const KEY_STORE = "egqa.apiKey";
const NEIGHBOURS = 12;
const $ = (id) => document.getElementById(id);

/** An error the API answered with: its status, code and message. */
class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const state = { graphs: null, windows: [], keyWaiters: [], lastAsk: null };

// -- small DOM helpers -------------------------------------------------------------------------------------
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

function svgEl(tag, attrs, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, String(value));
  for (const child of children) node.append(child instanceof Node ? child : String(child));
  return node;
}

// An edge between predicates that say opposite things of the same arguments (docs/api.md, neighbours).
const ANTONYM_MEANING = "antonym: the two predicates say opposite things of the same arguments, so every graph scorer answers 0 for this edge";
const fmt = (x) => (typeof x === "number" ? x.toFixed(3) : String(x));
// What each match kind of a piece of evidence means (docs/metrics-and-scorers.md).
const MATCH_MEANINGS = {
  exact: "the proposition's own predicate",
  typed: "an edge of the typed graph",
  fuzzy: "an edge of the same predicate under other modifiers",
  smoothed: "through the nearest graph nodes of an unseen premise",
  backoff: "the mean over the other type pairs' graphs",
  untyped: "an edge of the untyped graph, where the typed graphs scored nothing",
  act: "a planned or possible act, read as the act at a discount: it ranks, it never answers yes alone",
  antonym: "it says the opposite: scored 0",
  reversed: "the same predicate with the arguments the other way around: scored 0",
  lm_cosine: "how alike the sentence and the proposition read",
  lm_backoff: "no edge scored; sentence likeness ranks it, it never answers yes",
  none: "no edge",
};
const setStatus = (text) => { $("status").textContent = text; };

function showError(error) {
  const box = $("error");
  box.replaceChildren();
  if (error instanceof ApiError && error.status === 0) { // the page's own check, before anything is sent
    box.append(el("p", { text: error.message }));
  } else if (error instanceof ApiError) {
    box.append(el("p", {}, el("strong", { text: `${error.status} ` }), el("code", { text: error.code }), `: ${error.message}`));
  } else {
    box.append(el("p", { text: `The service did not answer: ${error.message}` }));
  }
  box.hidden = false;
}

function clearError() {
  $("error").hidden = true;
  $("error").replaceChildren();
}

// -- the API -----------------------------------------------------------------------------------------------
function waitForKey(message) {
  const section = $("key-section");
  section.hidden = false;
  $("key").value = "";
  $("key-message").textContent = `401: ${message}`;
  setStatus("");
  $("key").focus();
  return new Promise((resolve) => state.keyWaiters.push(resolve));
}

/** Call the API; on 401 ask for the key once (all waiting calls share the answer) and try again. */
async function api(path, body) {
  for (;;) {
    const headers = { Accept: "application/json" };
    const key = sessionStorage.getItem(KEY_STORE);
    if (key) headers["X-API-Key"] = key;
    const init = { headers };
    if (body !== undefined) {
      init.method = "POST";
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (exc) {
      throw new Error(`${exc.message || exc} (is the service running?)`);
    }
    let payload = null;
    try {
      payload = await response.json();
    } catch (exc) {
      payload = null;
    }
    if (response.ok) return payload;
    const detail = payload && payload.error ? payload.error : { code: "http_error", message: response.statusText };
    if (response.status === 401) {
      sessionStorage.removeItem(KEY_STORE);
      await waitForKey(detail.message);
      continue;
    }
    throw new ApiError(response.status, detail.code, detail.message);
  }
}

// -- the address -------------------------------------------------------------------------------------------
function readAddress() {
  const p = new URLSearchParams(location.search);
  const get = (name) => (p.get(name) || "").trim();
  return { q: get("q"), s: get("s"), p: get("p"), o: get("o"), date: get("date"), scorer: get("scorer"),
           walk: get("walk"), types: get("types"), measure: get("measure") };
}

function writeAddress(updates) {
  const p = new URLSearchParams(location.search);
  for (const [name, value] of Object.entries(updates)) {
    if (value) p.set(name, value);
    else p.delete(name);
  }
  const next = `${location.pathname}?${p.toString()}`;
  if (next !== `${location.pathname}${location.search}`) history.pushState(null, "", next);
}

// -- ask ---------------------------------------------------------------------------------------------------
function askForm() {
  return document.querySelector('input[name="form"]:checked').value;
}

function setAskForm(which) {
  document.querySelector(`input[name="form"][value="${which}"]`).checked = true;
  $("text-fields").hidden = which !== "text";
  $("triple-fields").hidden = which !== "triple";
}

function fillAskForm(a) {
  setAskForm(a.s || a.p || a.o ? "triple" : "text");
  $("q").value = a.q;
  $("s").value = a.s;
  $("p").value = a.p;
  $("o").value = a.o;
  if (a.date) $("date").value = a.date; // an address without one keeps the day already chosen
  if (a.scorer) chooseScorer(a.scorer);
  markCalendar();
}

function chooseScorer(name) {
  const select = $("scorer");
  if (![...select.options].some((o) => o.value === name)) {
    select.append(el("option", { value: name, text: `${name} (not offered by this service)` }));
  }
  select.value = name;
}

function askRequest() {
  const date = $("date").value;
  const scorer = $("scorer").value;
  if (askForm() === "text") {
    return { address: { q: $("q").value.trim(), s: "", p: "", o: "", date, scorer },
             body: { text: $("q").value.trim(), date, scorer, top_k: 5 } };
  }
  const [s, p, o] = ["s", "p", "o"].map((id) => $(id).value.trim());
  return { address: { q: "", s, p, o, date, scorer }, body: { subject: s, predicate: p, object: o, date, scorer, top_k: 5 } };
}

function missingInput(body) {
  if ("text" in body && !body.text) return ["q", "Write the question as a sentence."];
  if (!("text" in body)) {
    for (const [id, name] of [["s", "subject"], ["p", "predicate"], ["o", "object"]]) {
      if (!body[name]) return [id, `Give the ${name}.`];
    }
  }
  if (!body.date) return ["date", "Give a date (or choose a day in the calendar)."];
  return null;
}

async function ask(pushAddress) {
  clearError();
  const { address, body } = askRequest();
  const missing = missingInput(body);
  if (missing) {
    showError(new ApiError(0, "incomplete_question", missing[1]));
    $(missing[0]).focus();
    return;
  }
  if (!body.scorer) delete body.scorer;
  if (pushAddress) writeAddress(address);
  const started = performance.now();
  setStatus("Asking…");
  $("ask-button").disabled = true;
  try {
    const answer = await api("/v1/query", body);
    renderAnswer(answer);
    const ms = performance.now() - started;
    $("answer").dataset.ms = ms.toFixed(1);
    setStatus(`Answered in ${Math.round(ms)} ms.`);
    renderWhy(answer);
  } catch (error) {
    $("answer").hidden = true;
    $("why").hidden = true;
    setStatus("");
    showError(error);
  } finally {
    $("ask-button").disabled = false;
  }
}

function typesOf(h) {
  return `${h.subject_type}#${h.object_type}`;
}

function renderAnswer(a) {
  const h = a.hypothesis;
  const bar = el("div", { class: "scorebar", role: "img",
                          "aria-label": `score ${fmt(a.score)} against threshold ${a.threshold}` });
  const fill = el("div", { class: "fill" });
  fill.style.width = `${Math.min(100, Math.max(0, a.score * 100))}%`;
  const mark = el("div", { class: "threshold" });
  mark.style.left = `${Math.min(100, Math.max(0, a.threshold * 100))}%`;
  bar.append(fill, mark);
  const walkButton = el("button", { type: "button", class: "link", text: `Walk the graph from ${h.predicate}`,
                                    onclick: () => walkTo(h.predicate, typesOf(h), null, true) });
  $("answer-body").replaceChildren(
    el("p", { id: "verdict-line" },
      el("span", { id: "verdict", class: `verdict ${a.answer ? "yes" : "no"}`, text: a.answer ? "Yes" : "No" }),
      el("span", { id: "score-line" }, `score ${fmt(a.score)} ${a.answer ? "≥" : "<"} threshold ${a.threshold}, scorer `,
        el("code", { text: a.scorer }))),
    bar,
    el("p", {}, `News of ${a.days.start} .. ${a.days.end}${a.days.start === a.window.start && a.days.end === a.window.end
      ? ` (window ${a.window.id})` : ` (around the date; its window ${a.window.id})`}; `,
      `${a.evidence_count} evidence item${a.evidence_count === 1 ? "" : "s"} about these two arguments.`),
    el("h3", { text: "How the question was read" }),
    el("dl", { class: "reading", id: "reading" },
      el("dt", { text: "subject" }), el("dd", {}, h.subject, el("span", { class: "muted", text: ` (${h.subject_type})` })),
      el("dt", { text: "predicate" }), el("dd", {}, el("code", { text: h.predicate }),
        h.predicate_text ? el("span", { class: "muted", text: ` “${h.predicate_text}”` }) : null),
      el("dt", { text: "object" }), el("dd", {}, h.object, el("span", { class: "muted", text: ` (${h.object_type})` })),
      el("dt", { text: "types from" }), el("dd", { text: h.types_from }),
      h.names.length ? [el("dt", { text: "names" }), el("dd", { text: h.names.join("; ") })] : null,
      h.readings.length > 1 ? [el("dt", { text: "readings" }), el("dd", {}, el("ul", { id: "readings" }, readingItems(h)))] : null),
    el("p", {}, walkButton, " · ", el("a", { href: location.href, id: "share", text: "link to this answer" })),
  );
  $("answer").hidden = false;
}

/** Each reading of the question with its own verdict, score and evidence count (`judged`), the answering one first. */
function readingItems(h) {
  const judged = h.judged && h.judged.length === h.readings.length ? h.judged : null;
  return h.readings.map((r, i) => el("li", {}, r, judged ? el("span", {
    class: "muted",
    text: ` — ${judged[i].answer ? "yes" : "no"}, score ${judged[i].score.toFixed(3)}, ` +
      `${judged[i].evidence_count} evidence item${judged[i].evidence_count === 1 ? "" : "s"}`,
  }) : null));
}

/** The sentence as text nodes and <mark>s: the arguments' words, then the predicate's words. */
function highlighted(sentence, args, predicateText) {
  const spans = [];
  const lower = sentence.toLowerCase();
  for (const arg of args) {
    const needle = (arg || "").toLowerCase();
    if (needle.length < 2) continue;
    for (let i = lower.indexOf(needle); i >= 0; i = lower.indexOf(needle, i + needle.length)) {
      spans.push([i, i + needle.length, "arg"]);
    }
  }
  for (const word of (predicateText || "").split(/\s+/)) {
    if (word.length < 2) continue;
    const pattern = new RegExp(`\\b${word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`, "gi");
    for (const m of sentence.matchAll(pattern)) spans.push([m.index, m.index + m[0].length, "pred"]);
  }
  spans.sort((x, y) => x[0] - y[0] || y[1] - x[1]);
  const out = [];
  let at = 0;
  for (const [start, end, kind] of spans) {
    if (start < at) continue; // overlaps a span already marked
    if (start > at) out.push(sentence.slice(at, start));
    out.push(el("mark", { class: kind, text: sentence.slice(start, end) }));
    at = end;
  }
  out.push(sentence.slice(at));
  return out;
}

function renderWhy(a) {
  const h = a.hypothesis;
  const body = $("why-body");
  if (!a.evidence.length) {
    body.replaceChildren(el("p", { text: a.evidence_count
      ? "Evidence was found but not returned (top_k is 0)."
      : "No sentence of these days is about these two arguments, so nothing supports the proposition." }));
    $("why").hidden = false;
    return;
  }
  const items = a.evidence.map((e) => {
    const measures = el("div", { class: "measures" }, el("p", { class: "muted", text: "Scores under the other measures: loading…" }));
    loadMeasures(measures, e.predicate, h.predicate, typesOf(h), a.scorer);
    return el("li", { class: "evidence-item" },
      el("blockquote", {}, highlighted(e.sentence, [e.subject_text || e.subject, e.object_text || e.object], e.predicate_text)),
      el("p", { class: "muted" }, `article ${e.article_id}, ${e.date}`, e.aligned ? "" : " (arguments in the other order)"),
      el("p", { class: "edge" }, "edge ", el("code", { text: e.predicate }), " → ", el("code", { text: h.predicate }),
        `, score ${fmt(e.score)}, match `, el("strong", { class: "match", text: e.match }),
        MATCH_MEANINGS[e.match] ? el("span", { class: "match-meaning muted", text: ` (${MATCH_MEANINGS[e.match]})` }) : null,
        " ",
        el("button", { type: "button", class: "link", text: `walk from ${e.predicate}`,
                       onclick: () => walkTo(e.predicate, typesOf(h), null, true) })),
      measures);
  });
  body.replaceChildren(el("p", { class: "muted", text: "Best first; each sentence with its arguments and its predicate's words marked." }),
                       el("ol", { class: "evidence", id: "evidence" }, items));
  $("why").hidden = false;
}

async function loadMeasures(box, premise, hypothesis, types, scorer) {
  const query = new URLSearchParams({ premise, hypothesis, types });
  try {
    const out = await api(`/v1/entailment?${query}`);
    const rows = Object.entries(out.scores).map(([name, s]) => el("tr", { class: name === scorer ? "current" : null },
      el("th", { scope: "row", text: name }), el("td", { class: "num", text: fmt(s.forward) }),
      el("td", { text: s.forward_match }), el("td", { class: "num", text: fmt(s.backward) })));
    box.replaceChildren(el("table", {},
      el("caption", { text: "The same pair under every graph scorer" }),
      el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "scorer" }), el("th", { scope: "col", text: "premise → hypothesis" }),
        el("th", { scope: "col", text: "match" }), el("th", { scope: "col", text: "hypothesis → premise" }))),
      el("tbody", {}, rows)));
  } catch (error) {
    box.replaceChildren(el("p", { class: "muted", text: `Scores under the other measures: ${error.message}` }));
  }
}

// -- the calendar of windows -------------------------------------------------------------------------------
function isoDay(d) {
  return d.toISOString().slice(0, 10);
}

function newsDays() {
  const days = new Map();
  for (const w of state.windows) {
    for (let d = new Date(`${w.start}T00:00:00Z`); isoDay(d) <= w.end; d.setUTCDate(d.getUTCDate() + 1)) {
      days.set(isoDay(d), w);
    }
  }
  return days;
}

function buildCalendar() {
  const months = [...new Set(state.windows.flatMap((w) => [w.start.slice(0, 7), w.end.slice(0, 7)]))].sort();
  const select = $("month");
  select.replaceChildren(...months.map((m) => el("option", { value: m, text: m })));
  const chosen = $("date").value.slice(0, 7);
  if (months.includes(chosen)) select.value = chosen;
  drawMonth();
}

function drawMonth() {
  const month = $("month").value;
  const tbody = document.querySelector("#calendar tbody");
  tbody.replaceChildren();
  if (!month) return;
  const days = newsDays();
  const first = new Date(`${month}-01T00:00:00Z`);
  const offset = (first.getUTCDay() + 6) % 7; // Monday first
  let row = el("tr");
  for (let i = 0; i < offset; i++) row.append(el("td"));
  for (let d = new Date(first); isoDay(d).slice(0, 7) === month; d.setUTCDate(d.getUTCDate() + 1)) {
    const day = isoDay(d);
    const w = days.get(day);
    const cell = el("td", { class: w ? "news" : null });
    if (w) {
      cell.append(el("button", { type: "button", "data-day": day, "aria-pressed": "false",
        onclick: () => { $("date").value = day; markCalendar(); $("q").focus(); } },
        String(d.getUTCDate()), el("small", { text: `${w.articles} art.` }),
        el("span", { class: "sr-only", text: ` ${day}: news of ${w.start} .. ${w.end}, ${w.articles} articles` })));
    } else {
      cell.textContent = String(d.getUTCDate());
    }
    row.append(cell);
    if (row.children.length === 7) {
      tbody.append(row);
      row = el("tr");
    }
  }
  if (row.children.length) {
    while (row.children.length < 7) row.append(el("td"));
    tbody.append(row);
  }
  markCalendar();
}

function markCalendar() {
  for (const b of document.querySelectorAll("#calendar button")) {
    b.setAttribute("aria-pressed", String(b.dataset.day === $("date").value));
  }
}

// -- walk the graph ----------------------------------------------------------------------------------------
/** A graph node `(buy.1,buy.2)#organization_1#organization_2` as predicate, types and whether its slots are swapped. */
function parseNode(node) {
  const parts = node.split("#");
  const b = parts.pop();
  const a = parts.pop();
  const strip = (t) => t.replace(/_[12]$/, "");
  return { predicate: parts.join("#"), types: `${strip(a)}#${strip(b)}`, swapped: a.endsWith("_2") };
}

async function walkTo(predicate, types, measure, pushAddress) {
  clearError();
  $("walk-predicate").value = predicate;
  $("walk-types").value = types;
  if (measure) $("walk-measure").value = measure;
  const chosen = $("walk-measure").value;
  if (!predicate || !types) {
    showError(new ApiError(0, "incomplete_walk", "Give a predicate and its types (e.g. person#location)."));
    return;
  }
  if (pushAddress) writeAddress({ walk: predicate, types, measure: chosen });
  const query = new URLSearchParams({ predicate, types, limit: String(NEIGHBOURS) });
  if (chosen) query.set("measure", chosen);
  try {
    const out = await api(`/v1/predicates/neighbours?${query}`);
    renderWalk(out);
    if (pushAddress) $("walk-title").scrollIntoView({ block: "start" });
  } catch (error) {
    $("walk-body").replaceChildren();
    showError(error);
  }
}

function neighbourList(title, id, edges, arrow) {
  return el("div", {},
    el("h3", { id: `${id}-title`, text: title }),
    edges.length
      ? el("ul", { id, "aria-labelledby": `${id}-title` }, edges.map((e) => {
        const n = parseNode(e.predicate);
        const label = `${n.predicate}${n.swapped ? " (arguments swapped)" : ""}`;
        return el("li", {}, n.swapped
          ? el("code", { text: label })
          : el("button", { type: "button", class: "node", "data-predicate": n.predicate, text: label,
                           title: `${arrow} ${n.predicate}: walk there`,
                           onclick: () => walkTo(n.predicate, n.types, null, true) }),
          ` ${fmt(e.score)}`,
          e.antonym ? el("span", { class: "antonym", title: ANTONYM_MEANING, text: " antonym" }) : null);
      }))
      : el("p", { class: "muted", text: "none" }));
}

function renderWalk(out) {
  $("walk-body").replaceChildren(
    el("p", { id: "walk-node" }, el("code", { text: out.predicate }), ` in the ${out.types} graph, measure `, el("code", { text: out.measure })),
    drawing(out),
    el("div", { class: "walk-cols" },
      neighbourList("Is entailed by (they → this)", "entailed-by", out.entailed_by, "entailed by"),
      neighbourList("Entails (this → they)", "entails", out.entails, "entails")));
}

/** A small SVG: what entails the predicate on the left, the predicate in the middle, what it entails on the right. */
function drawing(out) {
  const left = out.entailed_by.slice(0, 8);
  const right = out.entails.slice(0, 8);
  const rowH = 30;
  const height = Math.max(left.length, right.length, 1) * rowH + 20;
  const width = 900;
  const boxW = 270;
  const cy = height / 2;
  const label = (s) => (s.length > 36 ? `${s.slice(0, 35)}…` : s);
  const svg = svgEl("svg", { class: "neighbourhood", viewBox: `0 0 ${width} ${height}`, width, height, role: "img",
    "aria-label": `${out.predicate}: entailed by ${out.entailed_by.length}, entails ${out.entails.length} predicates` });
  const defs = svgEl("defs", {}, svgEl("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7,
    markerHeight: 7, orient: "auto-start-reverse" }, svgEl("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#6b7280" })));
  svg.append(defs);
  const y = (i, n) => cy + (i - (n - 1) / 2) * rowH;
  const node = (x, yy, text, cls, tip) => svgEl("g", { class: cls },
    ...(tip ? [svgEl("title", {}, tip)] : []),
    svgEl("rect", { x, y: yy - 11, width: boxW, height: 22, rx: 4 }),
    svgEl("text", { x: x + 8, y: yy + 4 }, label(text)));
  // An antonym's box is outlined in the "no" colour and dashed; its tooltip says why the scorers answer 0.
  const side = (x, yy, e) => node(x, yy, `${parseNode(e.predicate).predicate} ${fmt(e.score)}`,
    e.antonym ? "side antonym" : "side", e.antonym ? ANTONYM_MEANING : null);
  left.forEach((e, i) => {
    const yy = y(i, left.length);
    svg.append(svgEl("line", { x1: 10 + boxW, y1: yy, x2: (width - boxW) / 2, y2: cy, "marker-end": "url(#arrow)" }));
    svg.append(side(10, yy, e));
  });
  right.forEach((e, i) => {
    const yy = y(i, right.length);
    svg.append(svgEl("line", { x1: (width + boxW) / 2, y1: cy, x2: width - 10 - boxW, y2: yy, "marker-end": "url(#arrow)" }));
    svg.append(side(width - 10 - boxW, yy, e));
  });
  svg.append(node((width - boxW) / 2, cy, out.predicate, "centre"));
  return svg;
}

// -- start -------------------------------------------------------------------------------------------------
async function loadService() {
  const graphs = await api("/v1/graphs");
  state.graphs = graphs;
  const scorer = $("scorer");
  const wanted = scorer.value;
  scorer.replaceChildren(...graphs.scorers.map((name) => el("option", { value: name,
    text: name === graphs.default_scorer ? `${name} (default)` : name })));
  scorer.value = graphs.default_scorer;
  if (wanted) chooseScorer(wanted);
  $("walk-measure").replaceChildren(...graphs.measures.map((m) => el("option", { value: m, text: m })));
  $("type-pairs").replaceChildren(...graphs.graphs.flatMap((g) => {
    const [a, b] = g.types;
    return a === b ? [el("option", { value: `${a}#${b}` })] : [el("option", { value: `${a}#${b}` }), el("option", { value: `${b}#${a}` })];
  }));
  const windows = await api("/v1/windows");
  state.windows = windows.windows;
  const latest = state.windows[state.windows.length - 1];
  if (latest && !readAddress().date) $("date").value = latest.start; // a day with news to start from
  buildCalendar();
  const articles = state.windows.reduce((n, w) => n + w.articles, 0);
  const untyped = graphs.untyped_set ? ` and the untyped set (${graphs.untyped_set.nodes} nodes, for the +untyped scorers)` : "";
  setStatus(`${graphs.graphs.length} graphs${untyped} loaded; news in ${state.windows.length} windows of ${windows.window_days} days, ${articles} articles.`);
}

async function fromAddress() {
  const a = readAddress();
  fillAskForm(a);
  const month = /^\d{4}-\d{2}-\d{2}$/.test(a.date) ? a.date.slice(0, 7) : "";
  if ([...$("month").options].some((o) => o.value === month)) {
    $("month").value = month;
    drawMonth();
  }
  if (a.walk) {
    if (a.measure) $("walk-measure").value = a.measure;
    await walkTo(a.walk, a.types, a.measure, false);
  } else {
    $("walk-body").replaceChildren();
  }
  if ((a.q || a.s || a.p || a.o) && a.date) {
    await ask(false);
  } else {
    $("answer").hidden = true; // e.g. Back to the address before the first question
    $("why").hidden = true;
  }
}

async function start() {
  $("key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const key = $("key").value.trim();
    if (!key) return;
    sessionStorage.setItem(KEY_STORE, key);
    $("key").value = "";
    $("key-section").hidden = true;
    setStatus("");
    const waiters = state.keyWaiters.splice(0);
    waiters.forEach((resolve) => resolve());
  });
  $("ask-form").addEventListener("submit", (event) => { event.preventDefault(); ask(true); });
  $("walk-form").addEventListener("submit", (event) => {
    event.preventDefault();
    walkTo($("walk-predicate").value.trim(), $("walk-types").value.trim(), $("walk-measure").value, true);
  });
  for (const radio of document.querySelectorAll('input[name="form"]')) {
    radio.addEventListener("change", () => setAskForm(askForm()));
  }
  $("month").addEventListener("change", drawMonth);
  $("date").addEventListener("change", markCalendar);
  window.addEventListener("popstate", () => fromAddress().catch(showError));
  fillAskForm(readAddress());
  setStatus("Loading…");
  try {
    await loadService();
  } catch (error) {
    setStatus("");
    showError(error);
    document.body.dataset.ready = "error";
    return;
  }
  await fromAddress().catch(showError);
  document.body.dataset.ready = "yes";
}

start();
