"""Sense choice, idiom fragments and probably-true filters of the benchmark builder, on cases read by hand."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from benchmark.build import BuildConfig, hyponym_candidates
from benchmark.fragments import clause_object, detached, garbled, idiom_complement
from benchmark.hyponym_reads import load_reads, parse_reads
from benchmark.negative_reads import load_negative_reads, negative_key, parse_negative_reads
from benchmark.negatives import CandidateInContext, FilterInputs, apply_filters
from benchmark.reading import read_verdicts, score_verdicts, wilson, write_sample
from benchmark.senses import AgreeingSense, FirstSense, Sense, SpanInContext, first_sense_share, sense_chooser
from benchmark.wordnet import DEBIAN_WORDNET_DIR, INSTALL_HINT
from graph_builder.errors import InputError


class Inventory:
    """Two senses of `acquire`: the frequent one, and one with hardly any SemCor count."""

    SENSES = {("acquire", "v"): [Sense("acquire.v.01", ("acquire", "get"), "come into the possession of", (), 30),
                                 Sense("acquire.v.02", ("acquire", "develop"), "gain knowledge or skills", (), 10)],
              ("buy", "v"): [Sense("buy.v.01", ("buy", "purchase"), "obtain by purchase", (), 90),
                             Sense("buy.v.05", ("buy",), "accept as true", (), 1)]}

    def senses(self, phrase: str, pos: str) -> list[Sense]:
        return self.SENSES.get((phrase, pos), [])


def test_first_sense_and_its_share() -> None:
    inventory = Inventory()
    spans = [SpanInContext("acquire", "v", "IBM acquired Lotus."), SpanInContext("unknown", "v", "x")]
    assert FirstSense().choose(spans, inventory) == [("acquire.v.01",), ()]
    assert first_sense_share(inventory.senses("acquire", "v")) == pytest.approx(31 / 42)
    assert first_sense_share(inventory.senses("buy", "v")) == pytest.approx(91 / 93)
    assert sense_chooser("all").choose(spans, inventory) == [None, None]
    with pytest.raises(InputError, match="choose one of agree, all, first"):
        sense_chooser("lesk")


def test_agreeing_sense_trusts_a_dominant_first_sense_without_the_model() -> None:
    # Both words' first senses hold >= 70% of their counts: no sentence is embedded, both get their first sense.
    spans = [SpanInContext("acquire", "v", "IBM acquired Lotus."), SpanInContext("buy", "v", "IBM bought Lotus.")]
    assert AgreeingSense(min_share=0.7).choose(spans, Inventory()) == [("acquire.v.01",), ("buy.v.01",)]
    with pytest.raises(InputError, match="min_share"):
        AgreeingSense(min_share=0.0)


def test_agreeing_sense_abstains_where_the_sentence_reads_another_sense() -> None:
    pytest.importorskip("tokenizers")
    from graph_builder.embeddings import ModelMissingError, load_encoder

    try:
        load_encoder()
    except ModelMissingError as exc:
        pytest.skip(str(exc))
    chooser = AgreeingSense(min_share=0.99)
    spans = [SpanInContext("acquire", "v", "IBM acquired Lotus, taking possession of the company."),
             SpanInContext("acquire", "v", "She acquired fluent French and new skills in knowledge at school.")]
    first, second = chooser.choose(spans, Inventory())
    assert first == ("acquire.v.01",)
    assert second == ()


@pytest.mark.parametrize(("predicate", "text", "sentence", "arguments", "dropped"), [
    ("(change.1,change.on.2)", "changed on", "About 5 billion shares changed hands on the Nasdaq.", (), "hands"),
    ("(end.1,end.on.2)", "ended on", "Its shares ended 1.4 percent higher on the New York Stock Exchange.", (),
     "higher"),
    ("(take.1,take.2)", "took", "The vote took place in Brussels on Monday.", (), "place"),
    # The complement is the argument itself: a relation, not a fragment.
    ("(take.1,take.2)", "will take", "Telefonica will take control of Telco.", ("Telefonica", "control"), None),
    # The complement is part of the predicate.
    ("(change.1,change.hand.2)", "changed hands", "Shares changed hands on the Nasdaq.", (), None),
    ("(buy.1,buy.2)", "bought", "IBM bought Lotus up the road.", (), None),
])
def test_idiom_fragments(predicate: str, text: str, sentence: str, arguments: tuple[str, ...],
                         dropped: str | None) -> None:
    assert idiom_complement(predicate, text, sentence, arguments) == dropped


def test_the_object_of_said_is_a_clause_not_a_participant() -> None:
    assert clause_object("(say.1,say.2)") and clause_object("expect__(say.1,say.2)")
    assert not clause_object("(say.1,say.in.2)") and not clause_object("(say.2,say.to.2)")
    assert not clause_object("(tell.1,tell.2)") and not clause_object("not a predicate")


def test_a_predicate_text_split_by_other_words_is_detached() -> None:
    sentence = "Bernanke won confirmation to a second four-year term, the narrowest in the Fed's history."
    assert detached("won to", sentence)
    assert not detached("won confirmation to", sentence)
    assert not detached("Won", sentence)                      # case and punctuation aside
    assert not detached("", sentence)
    assert detached("sold to", "Countrywide sold about 28,000 loans to Fannie Mae.")


def test_predicates_read_across_a_sentence_initial_phrase() -> None:
    assert garbled("With increase") and garbled("At expect") and garbled("On continue")
    assert not garbled("increased") and not garbled("with") and not garbled("")


class Synonyms:
    TABLE = {("post", "v"): ["put up", "register"], ("register", "v"): ["record", "post"],
             ("strike", "v"): ["hit", "reach"], ("spur", "v"): ["goad"], ("express", "v"): ["press out"]}

    SENSES = {"take": [Sense("take.v.01", ("take", "carry out"), "carry out", (), 60),
                       Sense("take.v.33", ("take",), "buy, select", (), 2)],
              "purchase": [Sense("buy.v.01", ("buy", "purchase"), "obtain by purchase", (), 90)]}

    def synonyms(self, phrase: str, pos: str) -> list[str]:
        return self.TABLE.get((phrase, pos), [])

    def senses(self, phrase: str, pos: str) -> list[Sense]:
        return self.SENSES.get(phrase, [Sense(f"{phrase}.v.01", (phrase,), "", (), 1)])


def _candidate(predicate: str, replaced: str, lemmas: tuple[str, ...], heads: frozenset[str] = frozenset(),
               types: tuple[str, str] = ("organization", "thing")) -> CandidateInContext:
    return CandidateInContext(predicate=predicate, positive="(post.1,post.2)", replaced=replaced, pos="v",
                              lemmas=lemmas, lemma=lemmas[0], types=types, window_heads=heads)


def test_filters_remove_what_they_name_and_count_it() -> None:
    items = [
        _candidate("(register.1,register.2)", "post", ("register",)),                 # synonym of `post`
        _candidate("(strike.1,strike.2)", "reach", ("strike",), frozenset({"reach"})),  # window says `reach`
        _candidate("(express.1,express.2)", "acquire", ("express",)),                 # never seen with these types
        _candidate("(spur.1,spur.2)", "boost", ("spur",)),                            # kept
    ]
    typed = {("(spur.1,spur.2)", "organization", "thing"): 3, ("(strike.1,strike.2)", "organization", "thing"): 2,
             ("(register.1,register.2)", "organization", "thing"): 5}
    kept, removed = apply_filters(items, ("positive_synonym", "window_synonym", "typed_felicity"),
                                  FilterInputs(lexicon=Synonyms(), typed_pairs=typed))
    assert kept == [False, False, False, True]
    assert removed == {"positive_synonym": 1, "window_synonym": 1, "typed_felicity": 1}
    # A phrase's first word blocks ("struck a deal" through `strike`), but not when it is the replaced word:
    # "bought" heads the positive itself, and does not make "bought back" true.
    phrases = [_candidate("(buy_back.1,buy_back.2)", "buy", ("buy back", "repurchase"), frozenset({"buy"})),
               _candidate("(strike_a_deal.1,strike_a_deal.2)", "reach", ("strike a deal",), frozenset({"strike"}))]
    kept, _ = apply_filters(phrases, ("window_synonym",), FilterInputs(lexicon=Synonyms(), typed_pairs={}))
    assert kept == [True, False]
    # `took` for `bought` comes from take's rare sense *buy, select*: read as *carry out*, it is dropped.
    rare = [_candidate("(take.1,take.2)", "buy", ("take",)), _candidate("(purchase.1,purchase.2)", "get", ("purchase", "buy"))]
    kept, removed = apply_filters(rare, ("dominant_sense",), FilterInputs(lexicon=Synonyms(), typed_pairs={}))
    assert kept == [False, True] and removed == {"dominant_sense": 1}
    with pytest.raises(InputError, match="needs the hyponym reads"):
        apply_filters(items, ("hyponym_read",), FilterInputs(lexicon=Synonyms(), typed_pairs={}))
    with pytest.raises(InputError, match="unknown negative filter"):
        apply_filters(items, ("graphs",), FilterInputs(lexicon=Synonyms(), typed_pairs={}))
    with pytest.raises(InputError, match="unknown negative filter"):
        BuildConfig(negative_filters=("graphs",))
    with pytest.raises(InputError, match="unknown sense chooser"):
        BuildConfig(senses="lesk")


def test_hyponyms_of_the_chosen_sense_only() -> None:
    if not (DEBIAN_WORDNET_DIR / "data.verb").is_file():
        pytest.skip(f"WordNet 3.0 is not installed: {INSTALL_HINT}")
    pytest.importorskip("nltk")
    from benchmark.wordnet import open_wordnet

    wordnet = open_wordnet()
    felicitous = {"(buy.1,buy.2)", "(study.1,study.2)", "(win.1,win.2)"}
    config = BuildConfig(senses="all")
    every = {c.predicate for c in hyponym_candidates("(acquire.1,acquire.2)", wordnet, felicitous, config)}
    assert every == {"(buy.1,buy.2)", "(study.1,study.2)", "(win.1,win.2)"}  # study: acquire as *learn*
    first = {c.predicate for c in hyponym_candidates(
        "(acquire.1,acquire.2)", wordnet, felicitous, config, {("both", 0, 1): ("get.v.01",)})}
    assert first == {"(buy.1,buy.2)", "(win.1,win.2)"}
    none = hyponym_candidates("(acquire.1,acquire.2)", wordnet, felicitous, config, {("both", 0, 1): ()})
    assert none == []


def _benchmark(tmp_path: Path) -> Path:
    folder = tmp_path / "bench"
    folder.mkdir()
    lines = []
    for b in range(6):
        for k, label in enumerate((1, 0, 0)):
            lines.append({"id": f"test-{b:05d}-{k}", "bundle_id": f"test-{b:05d}", "split": "test", "label": label,
                          "subj": f"s{b}", "obj": f"o{b}", "subj_type": "person", "obj_type": "organization",
                          "predicate": f"(p{k}.1,p{k}.2)", "predicate_text": f"p{k}", "window": 1,
                          "date": "2013-01-02", "exclude_sentence_ids": []})
    (folder / "test.jsonl").write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in lines))
    return folder


def test_blind_sample_then_judge(tmp_path: Path) -> None:
    folder = _benchmark(tmp_path)
    out = tmp_path / "read"
    write_sample(folder, out, "test", positives=4, negatives=6, seed=1)
    rows = (out / "sample.tsv").read_text().splitlines()
    assert rows[0] == "item\tproposition\tfelicitous\tkind" and len(rows) == 11
    assert all("s0" not in r and "label" not in r for r in rows)  # arguments masked, labels hidden
    assert "[person] p0 [organization]" in (out / "sample.tsv").read_text()
    key = [orjson.loads(line) for line in (out / "key.jsonl").read_bytes().splitlines()]
    labels = {k["item"]: k["label"] for k in key}
    # A reader: every positive felicitous and a relation; negatives: 3 felicitous, kinds 4 same / 1 other / 1 true.
    kinds = iter(["same_sense"] * 4 + ["other_sense", "probably_true"])
    neg_felicity = iter("yyynnn")
    filled = ["item\tproposition\tfelicitous\tkind"]
    for row in rows[1:]:
        item, proposition, _, _ = row.split("\t")
        if labels[item] == 1:
            filled.append(f"{item}\t{proposition}\ty\trelation")
        else:
            filled.append(f"{item}\t{proposition}\t{next(neg_felicity)}\t{next(kinds)}")
    (out / "sample.tsv").write_text("\n".join(filled) + "\n")
    result = score_verdicts(read_verdicts(out / "sample.tsv"), out / "key.jsonl")
    assert result["positives"]["felicitous"] == 4 and result["positives"]["judged"] == 4
    assert result["negatives"]["felicity"] == pytest.approx(0.5)
    assert result["negatives"]["kinds"]["same_sense"]["n"] == 4
    assert result["negatives"]["kinds"]["probably_true"]["share"] == pytest.approx(1 / 6)
    # Hand-computed Wilson interval of 4/6.
    lo, hi = wilson(4, 6)
    assert (round(lo, 4), round(hi, 4)) == (0.3000, 0.9032)
    with pytest.raises(InputError, match="more than the split|negatives asked"):
        write_sample(folder, tmp_path / "again", "test", positives=1, negatives=50)
    (out / "bad.tsv").write_text("item\tproposition\tfelicitous\tkind\nr0000\tx\tmaybe\t\n")
    with pytest.raises(InputError, match="bad.tsv:2: felicitous must be y or n"):
        read_verdicts(out / "bad.tsv")


@pytest.mark.parametrize("read", sorted(p.name for p in (Path(__file__).parents[2] / "bench" / "data" / "reads").iterdir()))
def test_recorded_reads_are_complete(read: str) -> None:
    folder = Path(__file__).parents[2] / "bench" / "data" / "reads" / read
    result = score_verdicts(read_verdicts(folder / "sample.tsv"), folder / "key.jsonl")
    for name in ("positives", "negatives"):
        block = result[name]
        assert block["items"] == 100 and block["judged"] == 100
        assert sum(k["n"] for k in block["kinds"].values()) == 100


@pytest.mark.parametrize("read, fragments, probably_true", [("booqa-v5-checked-seed81-annotator1", 5, 1),
                                                          ("booqa-v5-checked-seed81-annotator2", 4, 1)])
def test_the_checked_recipe_read_gives_the_documented_figures(read: str, fragments: int, probably_true: int) -> None:
    # docs/benchmark-builder.md, builder v5: the goals of at most 10 probably-true negatives and 5 fragment
    # positives in 100, and at least 80 negatives of the positive's sense, met by both readers.
    folder = Path(__file__).parents[2] / "bench" / "data" / "reads" / read
    result = score_verdicts(read_verdicts(folder / "sample.tsv"), folder / "key.jsonl")
    assert result["positives"]["kinds"]["fragment"]["n"] == fragments
    assert result["negatives"]["kinds"]["probably_true"]["n"] == probably_true
    assert result["negatives"]["kinds"]["same_sense"]["n"] == 99


def test_hyponym_reads_keep_only_replacements_read_as_more_specific() -> None:
    text = ("# comment\nreplaced\tpos\tsynset\tlemma\ttypes\tverdict\n"
            "sell\tv\tauction.v.01\tauction\t*\tS\nsell\tv\tpush.v.08\tpush\t*\tO\n"
            "post\tv\tregister.v.01\tregister\t*\tY\nsell\tv\tauction.v.01\tauction\tperson,person\tX\n")
    reads = parse_reads(text, "reads.tsv")
    assert reads.verdict("sell", "v", "auction.v.01", "auction") == "S"
    assert reads.verdict("sell", "v", "auction.v.01", "auction off") is None
    # A read for the candidate's own types overrides the read for any types.
    assert reads.verdict("sell", "v", "auction.v.01", "auction", ("person", "person")) == "X"
    assert reads.verdict("sell", "v", "auction.v.01", "auction", ("organization", "thing")) == "S"
    assert reads.manifest()["verdicts"] == {"S": 1, "Y": 1, "O": 1, "X": 1}
    items = [
        CandidateInContext(predicate="(auction.1,auction.2)", positive="(sell.1,sell.2)", replaced="sell", pos="v",
                           lemmas=("auction", "auctioneer"), lemma="auction", types=("organization", "thing"),
                           window_heads=frozenset(), synset="auction.v.01"),
        CandidateInContext(predicate="(push.1,push.2)", positive="(sell.1,sell.2)", replaced="sell", pos="v",
                           lemmas=("push",), lemma="push", types=("organization", "thing"),
                           window_heads=frozenset(), synset="push.v.08"),
        CandidateInContext(predicate="(market.1,market.2)", positive="(sell.1,sell.2)", replaced="sell", pos="v",
                           lemmas=("market",), lemma="market", types=("organization", "thing"),
                           window_heads=frozenset(), synset="market.v.03"),   # never read: dropped
    ]
    kept, removed = apply_filters(items, ("hyponym_read",), FilterInputs(lexicon=Synonyms(), typed_pairs={},
                                                                         reads=reads))
    assert kept == [True, False, False] and removed == {"hyponym_read": 2}


@pytest.mark.parametrize("text, message", [
    ("replaced\tpos\tsynset\tlemma\tverdict\n", "header"),
    ("replaced\tpos\tsynset\tlemma\ttypes\tverdict\nsell\tv\tpush.v.08\tpush\t*\n", "6 tab-separated fields"),
    ("replaced\tpos\tsynset\tlemma\ttypes\tverdict\nsell\tv\tpush.v.08\tpush\t*\tmaybe\n", "not one of"),
    ("replaced\tpos\tsynset\tlemma\ttypes\tverdict\nsell\tv\tpush.v.08\tpush\tthing\tO\n", "must be"),
    ("replaced\tpos\tsynset\tlemma\ttypes\tverdict\nsell\tv\tpush.v.08\tpush\t*\tO\n"
     "sell\tv\tpush.v.08\tpush\t*\tS\n", "different verdicts"),
])
def test_malformed_hyponym_reads_are_refused_with_the_line(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_reads(text, "reads.tsv")


def test_the_shipped_hyponym_reads_parse() -> None:
    reads = load_reads()
    assert reads.manifest()["reads"] == len(reads.verdicts) > 0
    assert reads.verdict("sell", "v", "push.v.08", "push") == "O"


def test_negative_reads_keep_a_candidate_only_when_every_reader_says_it_may_be_false() -> None:
    def key(candidate: str) -> str:
        return negative_key(5219, "jamie dimon", "jpmorgan chase", "(head.of.1,head.of.2)", candidate)
    chair, chairman, lead, run = (key(f"({w}.of.1,{w}.of.2)") for w in ("chair", "chairman", "lead", "run"))
    assert len(chair) == 16 and chair != chairman
    # The digest names the window, the pair, the positive and the candidate: any one changed is another candidate.
    assert negative_key(5220, "jamie dimon", "jpmorgan chase", "(head.of.1,head.of.2)", "(chair.of.1,chair.of.2)") != chair
    text = f"# comment\ncandidate\treads\n{chair}\tT,F\n{chairman}\tT,T\n{lead}\tF,F\n"
    reads = parse_negative_reads(text, "negative_reads.tsv")
    assert (reads.keeps(chair), reads.keeps(chairman), reads.keeps(lead), reads.keeps(run)) == (False, False, True, None)
    assert reads.manifest()["candidates"] == 3 and reads.manifest()["kept"] == 1
    assert reads.manifest()["verdicts"] == {"F": 3, "T": 3, "O": 0}
    items = [CandidateInContext(predicate=f"({w}.of.1,{w}.of.2)", positive="(head.of.1,head.of.2)", replaced="head",
                                pos="n", lemmas=(w,), lemma=w, types=("person", "organization"),
                                window_heads=frozenset(), instance=k)
             for w, k in (("chair", chair), ("chairman", chairman), ("lead", lead), ("run", run))]
    kept, removed = apply_filters(items, ("negative_read",), FilterInputs(lexicon=Synonyms(), typed_pairs={},
                                                                         negative_reads=reads))
    assert kept == [False, False, True, False] and removed == {"negative_read": 3}   # never read: dropped
    with pytest.raises(InputError, match="needs the negative reads"):
        apply_filters(items, ("negative_read",), FilterInputs(lexicon=Synonyms(), typed_pairs={}))


@pytest.mark.parametrize("text, message", [
    ("key\treads\n", "header"),
    ("candidate\treads\n0123456789abcdef\n", "2 tab-separated fields"),
    ("candidate\treads\nnot-a-digest\tF\n", "not a candidate digest"),
    ("candidate\treads\n0123456789abcdef\tF,maybe\n", "not among"),
    ("candidate\treads\n0123456789abcdef\tF\n0123456789abcdef\tT\n", "listed twice"),
])
def test_malformed_negative_reads_are_refused_with_the_line(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_negative_reads(text, "negative_reads.tsv")


def test_the_shipped_negative_reads_parse_and_hold_two_reads_each() -> None:
    reads = load_negative_reads()
    assert reads.manifest()["candidates"] == len(reads.reads)
    assert all(len(v) == 2 for v in reads.reads.values())


def test_stated_elsewhere_drops_a_candidate_whose_exact_predicate_the_pair_has_elsewhere() -> None:
    def item(key: str, elsewhere: frozenset[str]) -> CandidateInContext:
        return CandidateInContext(predicate="(chairman.of.1,chairman.of.2)", positive="(head.1,head.2)",
                                  replaced="head", pos="n", lemmas=("chairman",), lemma="chairman",
                                  types=("person", "organization"), window_heads=frozenset(), key=key,
                                  pair_elsewhere=elsewhere)
    items = [item("chairman.of|chairman.of", frozenset({"chairman.of|chairman.of", "head|head"})),
             item("chairman.of|chairman.of", frozenset({"chair.of|chair.of"})),   # a synonym elsewhere: kept
             item("chairman.of|chairman.of", frozenset())]
    kept, removed = apply_filters(items, ("stated_elsewhere",), FilterInputs(lexicon=Synonyms(), typed_pairs={}))
    assert kept == [False, True, True] and removed == {"stated_elsewhere": 1}
