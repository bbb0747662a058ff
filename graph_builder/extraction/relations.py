"""Binary relations from a spaCy dependency parse, with predicates written as the CCG reference parser does.

A *frame* is one predicate occurrence (a verb, a copula + noun/adjective) with its argument *slots*;
each slot has a role: `1` (active subject / by-agent), `2` (object or passive subject), `prep.2` (a
prepositional object) or `noun.prep.2` (the noun of a light-verb construction plus its preposition).
Every pair of slots with different roles gives a relation; the slot ranked first (1 < 2 < prep roles,
then sentence order) is the relation's first argument. As in Hosseini et al. (2018); see tests/graph_builder.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from spacy.tokens import Span, Token

from graph_builder.extraction.arguments import SKIPPED_ENTITY_LABELS, TIME_NOUNS, Argument, argument_of

# Known lemmatiser slips of the small English pipeline, fixed so the predicate reads as the verb.
_LEMMA_FIXES = {"fin": "fine", "datum": "data", "lay off": "lay off", "rat": "rate", "wag": "wage",
                "bas": "base", "pric": "price", "shar": "share", "lin": "line"}
# Verbs whose object noun joins the predicate even when the parser hangs the preposition on the verb
# ("had influence in Greece" -> have.influence.in, like "maintains relations with").
LIGHT_VERBS = frozenset({"have", "take", "make", "give", "hold", "pay", "reach", "keep", "gain", "get", "seek", "play",
                         "do", "put", "set"})
# Reporting verbs: "X said in a statement" states no relation between X and the statement.
_REPORTING_VERBS = frozenset({"say", "tell", "add", "note", "write", "state", "report", "comment"})
# Prepositional idioms whose noun is no participant: "in addition", "as a result", "in order to", ...
IDIOMS = frozenset({
    ("in", "addition"), ("at", "time"), ("in", "response"), ("as", "result"), ("in", "order"), ("in", "light"),
    ("in", "wake"), ("in", "face"), ("in", "spite"), ("on", "behalf"), ("in", "term"), ("in", "case"),
    ("in", "fact"), ("in", "place"), ("in", "line"), ("in", "charge"), ("in", "effect"), ("in", "turn"),
    ("on", "condition"), ("in", "space"), ("at", "end"), ("in", "form"), ("in", "part"), ("in", "way"),
    ("in", "view"), ("with", "regard"), ("in", "respect"), ("in", "accordance"), ("in", "course"),
    ("in", "event"), ("on", "basis"), ("in", "favor"), ("in", "favour"), ("in", "contrast"),
    ("in", "comparison"), ("in", "touch"), ("in", "question"), ("on", "hand"), ("in", "return"),
    ("in", "exchange"), ("at", "least"), ("at", "most"), ("in", "total"), ("in", "all"), ("for", "example"),
    ("for", "instance"), ("in", "interview"), ("in", "statement"), ("at", "moment"), ("in", "process"),
    ("in", "meantime"), ("on", "day"), ("by", "way"), ("in", "need"), ("at", "risk"), ("in", "talk"),
    ("in", "cash"), ("as", "part"), ("in", "row"), ("at", "option"), ("by", "comparison"),
})
# Prepositions of comparison, role or concession: their noun is set beside the subject, not acted on.
_FRAMING_PREPOSITIONS = frozenset({"like", "unlike", "as", "besides", "despite", "among", "amid"})
# Idioms that pass a relation on through their noun's preposition: "is in talks with Y" -> (be.1,be.in.talk.with.2),
# "came out in support of Y" -> (come.out.1,come.out.in.support.of.2).
LINKING_IDIOMS = frozenset({("in", "talk"), ("in", "support"), ("in", "charge"), ("in", "favor"), ("in", "favour"),
                            ("on", "behalf"), ("in", "connection")})
# Verbs whose from-phrase after the object is the object's source: "bought the unit from Acme".
SOURCE_VERBS = frozenset({
    "buy", "acquire", "purchase", "receive", "win", "obtain", "get", "borrow", "take", "remove", "withdraw",
    "separate", "spin", "import", "raise", "collect", "recall", "differentiate", "distinguish", "exclude", "ban",
    "bar", "protect", "prevent", "shift", "move", "switch", "transfer", "hear", "learn", "inherit", "recover",
    "release", "free", "rescue", "save", "steal", "seize", "recruit", "hire", "poach", "lure", "source", "order",
    "secure", "attract", "accept", "request", "seek", "demand", "expect", "draw", "derive", "earn", "generate",
    "divest", "lease", "rent", "license", "extract", "drop", "delete", "eliminate", "expel", "block", "keep",
    "stop", "deter", "discourage", "exempt", "shield", "defend", "restrict", "convert", "change", "translate",
    "cut", "reduce", "lower", "increase", "boost", "extend", "lift", "upgrade", "downgrade", "pull", "ship",
    "send", "export", "bring", "fly", "carry", "deliver"})
_AMOUNT_LABELS = frozenset({"MONEY", "PERCENT", "QUANTITY", "CARDINAL"})
# Where a reporting verb's speaker was ("told reporters at the Auto Show"): kept beside a reported clause.
_SCENE = frozenset({"at", "in", "to"})
# Prepositions of comparison: "earned 18 cents, well below the forecast" sets a figure beside the noun.
_COMPARISON_PREPOSITIONS = frozenset({"below", "above", "versus", "vs", "vs.", "than"})
# Verbs whose object is the understood subject of their infinitive ("urged Iran to stop", "hired banks to advise").
# With any other verb an infinitive after the object says what for, and takes the subject ("used the money to build").
OBJECT_CONTROL_VERBS = frozenset({
    "urge", "ask", "persuade", "force", "allow", "permit", "require", "encourage", "tell", "order", "invite", "enable",
    "help", "lead", "cause", "get", "want", "expect", "prompt", "push", "pressure", "press", "compel", "oblige",
    "advise", "authorize", "authorise", "instruct", "drive", "convince", "forbid", "warn", "appoint", "elect",
    "choose", "select", "hire", "name", "need", "like", "prefer", "teach", "train", "commission", "recruit", "pay",
    "send", "mandate", "call", "direct", "empower", "entitle", "challenge", "inspire", "motivate", "tempt", "lobby",
    "nominate", "retain", "engage", "contract", "leave", "deploy", "assign", "set", "bribe", "beg", "remind",
    "request", "ban", "prohibit", "free", "spur", "induce"})
# Quantity words that measure the noun of their of-phrase ("none" is left out: it negates).
PARTITIVES = frozenset({"part", "some", "all", "most", "many", "much", "rest", "bulk", "majority", "minority", "couple",
                        "pair", "lot", "lots", "dozens", "hundreds", "thousands", "millions", "portion", "fraction",
                        "handful", "number", "each", "any", "both", "several", "few", "one", "two", "three", "half",
                        "total", "plenty", "series", "range", "variety", "host", "array"})
_INTRANSITIVE = frozenset({"rise", "fall", "climb", "drop", "gain", "jump", "slip", "ease", "surge", "tumble", "soar",
                           "decline", "slide", "rally", "plunge", "advance", "close", "open", "end", "trade"})
_WORD_RE = re.compile(r"^[a-z][a-z'\-]*$")
_RELATIVE_PRONOUNS = frozenset({"which", "who", "that", "whom"})
_COPULA_LEMMAS = frozenset({"be"})
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
NEGATION_PREFIX = "NEG__"
CONTROL_SEPARATOR = "__"


@dataclass(frozen=True)
class Slot:
    """An argument filling one role of a frame, with the predicate words the role brings along."""

    arg: Argument
    role: str
    words: tuple[Token, ...] = ()

    @property
    def rank(self) -> tuple[int, int]:
        """Order of slots inside a relation: subject role, object role, then the rest by position."""
        return ({"1": 0, "2": 1}.get(self.role, 2), self.arg.head.i)


@dataclass
class Frame:
    """One predicate occurrence with its slots, negation count, controlling verbs and surface words."""

    lemma: str
    head: Token
    slots: list[Slot] = field(default_factory=list)
    negations: int = 0
    controllers: list[str] = field(default_factory=list)
    words: set[Token] = field(default_factory=set)
    passive: bool = False


@dataclass(frozen=True)
class Relation:
    """A binary relation: normalised predicate, its surface words, and the two arguments in order."""

    predicate: str
    predicate_text: str
    negated: bool
    subj: Argument
    obj: Argument


def clean_lemma(token: Token) -> str | None:
    """Return the token's lowercase lemma if it can be part of a predicate name, else None."""
    lemma = token.lemma_.lower().strip()
    lemma = _LEMMA_FIXES.get(lemma, lemma)
    return lemma if _WORD_RE.match(lemma) else None


def _with_conjuncts(token: Token) -> list[Token]:
    out = [token]
    for child in token.children:
        if child.dep_ == "conj":
            out.extend(_with_conjuncts(child))
    return out


def _named_in_place(head: Token) -> list[Token]:
    """A common noun stands for the names it introduces: "rating agencies Moody's and S&P" -> the agencies' names;
    "clients such as Apple and Nokia" -> the clients and their examples."""
    if head.pos_ != "NOUN" or head.ent_type_:
        return [head]
    names = [c for c in head.children if c.dep_ == "appos" and c.ent_type_]
    if names:
        return [n for name in names for n in _with_conjuncts(name)]
    out = [head]
    for prep in head.children:
        if prep.dep_ != "prep":
            continue
        if _introduces_examples(head, prep):
            out += [n for pobj in prep.children if pobj.dep_ == "pobj" for n in _with_conjuncts(pobj)]
    return out


def _introduces_examples(noun: Token, prep: Token) -> bool:
    """"companies including X", "clients such as X", "firms like X": the preposition lists examples."""
    return prep.lower_ in {"including", "like"} or (
        prep.lower_ == "as" and any(c.lower_ == "such" for c in [*noun.children, *prep.children]))


def _measured(token: Token) -> Token | None:
    """The noun an amount or a part is of: "30 mln dlrs of notes" -> notes, "part of its exports" -> exports,
    "some of its users" -> users (the measure itself is no participant)."""
    partitive = token.lower_ in PARTITIVES or token.lemma_.lower() in PARTITIVES
    if not partitive and argument_of(token) is not None:
        return None
    if not partitive and token.lemma_.lower() in TIME_NOUNS and not _fraction(token):
        return None  # "a period of low rates" says when; "three quarters of Acme" says how much
    for prep in token.children:
        if prep.dep_ == "prep" and prep.lower_ == "of":
            for pobj in prep.children:
                if pobj.dep_ == "pobj" and pobj.pos_ in {"NOUN", "PROPN"}:
                    return pobj
    return None


def _listed(head: Token) -> list[Token]:
    """The nouns a slot's head stands for: its conjuncts, each read through a measure ("a pair of carmakers");
    a plural noun whose "conjuncts" follow a comma and are names is their label ("two carmakers, Acme and Widget")."""
    out: list[Token] = []
    for conjunct in _with_conjuncts(head):
        measured = _measured(conjunct)
        if measured is None:
            out.append(conjunct)
            continue
        out += _listed(measured)
    if len(out) > 1 and out[0].tag_ == "NNS" and not out[0].ent_type_ and all(t.ent_type_ for t in out[1:]):
        nxt = out[0].doc[out[0].i + 1] if out[0].i + 1 < len(out[0].doc) else None
        if nxt is not None and nxt.text == ",":
            return out[1:]
    return out


def _fraction(token: Token) -> bool:
    """"a quarter of", "three quarters of", "100 hours of": a measure, not a time."""
    return any(c.dep_ == "nummod" or (token.lemma_.lower() == "quarter" and c.dep_ == "det" and c.lower_ in {"a", "an"})
               for c in token.children)


def _slots_for(heads: list[Token], role: str, words: tuple[Token, ...] = ()) -> list[Slot]:
    slots = []
    for head in heads:
        for conjunct in _listed(head):
            for token in _named_in_place(conjunct):
                arg = argument_of(token)
                if arg is not None:
                    slots.append(Slot(arg, role, words))
    return slots


def _prep_slots(prep: Token, suffix_words: tuple[Token, ...] = (), noun: str = "") -> list[Slot]:
    marker = clean_lemma(prep)
    if marker is None:
        return []
    pobjs = [c for c in prep.children if c.dep_ == "pobj" and (marker, c.lemma_.lower()) not in IDIOMS
             and (marker, c.lemma_.lower()) not in LINKING_IDIOMS]
    role = f"{noun}.{marker}.2" if noun else f"{marker}.2"
    slots = _slots_for(pobjs, role, (*suffix_words, prep))
    for idiom in prep.children:
        if idiom.dep_ == "pobj" and (marker, idiom.lemma_.lower()) in LINKING_IDIOMS:
            for inner in idiom.children:
                if inner.dep_ == "prep" and clean_lemma(inner):
                    slots += _prep_slots(inner, (*suffix_words, prep, idiom), f"{role[:-2]}.{idiom.lemma_.lower()}")
    return slots


def _fronted(prep: Token, verb: Token) -> bool:
    """A phrase set off by a comma before the subject frames the clause ("In a separate move, X sold its unit";
    "Like many retailers, X raised prices"): its common noun is no participant of the verb, nor is any noun of a
    comparison. A name keeps its relation ("In Germany, X cut jobs")."""
    subjects = [c for c in verb.children if c.dep_ in _SUBJECT_DEPS]
    if not subjects or prep.i > subjects[0].i:
        return False
    after = prep.doc[prep.right_edge.i + 1] if prep.right_edge.i + 1 < len(prep.doc) else None
    if after is None or after.text != ",":
        return False
    if prep.lower_ in _FRAMING_PREPOSITIONS:
        return True
    return not any(c.ent_type_ and c.ent_type_ not in SKIPPED_ENTITY_LABELS for c in prep.children if c.dep_ == "pobj")


def _is_passive(verb: Token) -> bool:
    return any(c.dep_ in {"auxpass", "nsubjpass", "agent"} for c in verb.children)


def _negating_determiner(noun: Token) -> Token | None:
    """"accept no monitoring", "no company bought": the determiner "no" negates the statement."""
    for child in noun.children:
        if child.dep_ == "det" and child.lower_ == "no":
            return child
    return None


def _verb_frame(verb: Token) -> Frame | None:
    lemma = clean_lemma(verb)
    if lemma is None:
        return None
    particles = [c for c in verb.children if c.dep_ == "prt" and clean_lemma(c)]
    for particle in particles:
        lemma = f"{lemma}.{clean_lemma(particle)}"
    frame = Frame(lemma, verb, passive=_is_passive(verb))
    frame.words.update([verb, *particles])
    for child in verb.children:
        dep = child.dep_
        if dep in {"aux", "auxpass"} and child.tag_ != "MD":
            frame.words.add(child)
        elif dep == "neg":
            frame.negations += 1
            frame.words.add(child)
        elif dep == "nsubj":
            frame.slots += _slots_for([child], "1")
        elif dep == "nsubjpass":
            frame.slots += _slots_for([child], "2")
        elif dep == "dobj" and not _subject_of_clause(child, verb):
            frame.slots += _slots_for([child], "2")
            frame.slots += _light_noun_slots(child)
        elif dep == "agent" and frame.passive:
            frame.slots += _slots_for([c for c in child.children if c.dep_ == "pobj"], "1", (child,))
        elif dep in {"prep", "dative"} and child.pos_ == "ADP" and not _fronted(child, verb) \
                and not (child.lower_ in _COMPARISON_PREPOSITIONS and _has_amount(verb)):
            light = _light_object(verb, lemma)
            if light is not None:
                noun = clean_lemma(light)
                frame.slots += _prep_slots(child, (light,), noun or "")
            elif not _after_object(child, verb, lemma):
                frame.slots += _prep_slots(child)
        if dep in {"nsubj", "nsubjpass", "dobj"}:
            no = _negating_determiner(child)
            if no is not None:
                frame.negations += 1
                frame.words.add(no)
    if lemma in _REPORTING_VERBS:
        reports = verb.dep_ == "parataxis" or any(c.dep_ in {"ccomp", "parataxis"} for c in verb.children)
        frame.slots = [s for s in frame.slots if _reporting_slot_kept(s, lemma, reports)]
    return frame


def _reporting_slot_kept(slot: Slot, lemma: str, reports: bool) -> bool:
    """"X said in a statement": a reporting verb keeps its subject and object, and of its prepositions only named
    participants; beside a reported clause or quote only where it was said ("Olsson said, of the takeover by Geely,
    ..." keeps nothing); and only "tell" joins its object's noun ("said revenue per room, or RevPAR, fell")."""
    if slot.role in {"1", "2"}:
        return True
    marker = slot.role.split(".")[-2]
    joins_noun = slot.role.count(".") > 1
    return slot.arg.is_entity and not (reports and marker not in _SCENE) and not (lemma != "tell" and joins_noun)


def _after_object(prep: Token, verb: Token, lemma: str) -> bool:
    """A phrase the parser hangs on the verb that belongs to its object or to the clause: a from-phrase right after
    a common-noun object tells where the object comes from ("crunching numbers from the Ford agreement"), unless the
    verb takes a source ("bought the unit from Acme"); a with-phrase set off by a comma after the object comments on
    it ("built the hotel, with 14 storeys")."""
    if prep.lower_ == "with" and prep.i > 0 and prep.doc[prep.i - 1].text == ",":
        if any(c.dep_ == "dobj" and c.right_edge.i + 2 == prep.i for c in verb.children):
            return True
    if prep.lower_ != "from" or lemma.split(".")[0] in SOURCE_VERBS:
        return False
    return any(c.dep_ == "dobj" and c.pos_ == "NOUN" and not c.ent_type_ and c.right_edge.i + 1 == prep.i
               for c in verb.children)


def _subject_of_clause(dobj: Token, verb: Token) -> bool:
    """"Samaras promised his administration would agree": the parser's object is the subject of the subjectless
    finite clause right after it, which is what was promised."""
    for clause in verb.children:
        if clause.dep_ == "ccomp" and clause.i > dobj.i and not any(c.dep_ in _SUBJECT_DEPS for c in clause.children):
            finite = clause.tag_ in {"VBD", "VBZ", "VBP"} or any(c.tag_ == "MD" for c in clause.children)
            between = dobj.doc[dobj.right_edge.i + 1:clause.left_edge.i]  # empty unless the clause starts after
            if finite and not any(t.text in {",", ";", ":"} or t.lower_ in {"and", "but", "or"} for t in between):
                return True
    return False


def _has_amount(verb: Token) -> bool:
    """The verb measures something ("earned 18 cents a share", "has 9.2 percent of deposits")."""
    return any(c.dep_ in {"dobj", "npadvmod", "attr"} and (c.ent_type_ in _AMOUNT_LABELS or
                                                           any(n.like_num for n in c.subtree))
               for c in verb.children)


def _light_object(verb: Token, lemma: str) -> Token | None:
    """The common-noun object of a light verb, which joins the predicate of the verb's prepositions (an amount or a
    measure does not: "paid 10 dlrs a share for Y" -> pay.for)."""
    if lemma not in LIGHT_VERBS:
        return None
    for child in verb.children:
        if child.dep_ == "dobj" and child.pos_ == "NOUN" and not child.ent_type_ and argument_of(child) is not None \
                and _measured(child) is None:
            return child
    return None


def _light_noun_slots(dobj: Token) -> list[Slot]:
    """`maintains relations with Y`: the object noun joins the predicate with its preposition."""
    if dobj.pos_ != "NOUN" or dobj.ent_type_:
        return []
    noun = clean_lemma(dobj)
    if noun is None:
        return []
    measured = _measured(dobj)
    slots = []
    # Only the first phrase after the noun is surely its own: in "a round of bidding by firms" the parser hangs "by"
    # on "round" though it belongs to "bidding".
    first = next((c for c in dobj.rights if c.dep_ == "prep"), None)
    if first is not None and not _introduces_examples(dobj, first) and not (measured and measured.head == first):
        slots += _prep_slots(first, (dobj,), noun)
    return slots


def _copula_frames(copula: Token) -> list[Frame]:
    """`X is the treatment for Y` -> (treatment.for.1,treatment.for.2); `X is useful in Y` -> (useful.1,useful.in.2)."""
    subjects = _slots_for([c for c in copula.children if c.dep_ == "nsubj"], "1")
    negations = sum(1 for c in copula.children if c.dep_ == "neg")
    base_words = {copula, *(c for c in copula.children if c.dep_ in {"neg", "aux"} and c.tag_ != "MD")}
    frames = []
    for child in copula.children:
        if child.dep_ == "attr" and child.pos_ in {"NOUN", "PROPN"} and not child.ent_type_:
            noun = clean_lemma(child)
            for prep in child.children:
                marker = clean_lemma(prep) if prep.dep_ == "prep" else None
                if noun is None or marker is None:
                    continue
                lemma = f"{noun}.{marker}"
                objects = _slots_for([c for c in prep.children if c.dep_ == "pobj"], "2")
                dets = [d for d in child.children if d.dep_ == "det"]
                frame = Frame(lemma, copula, subjects + objects, negations,
                              words={*base_words, child, prep, *dets})
                frames.append(frame)
        elif child.dep_ == "acomp" and child.pos_ == "ADJ":
            adjective = clean_lemma(child)
            if adjective is None:
                continue
            frame = Frame(adjective, copula, list(subjects), negations, words={*base_words, child})
            # The parser hangs "in Y" of "X is useful in Y" on the adjective or on the copula.
            for prep in [*child.children, *copula.children]:
                if prep.dep_ == "prep":
                    frame.slots += _prep_slots(prep)
            frames.append(frame)
    if not any(c.dep_ in {"attr", "acomp"} for c in copula.children):
        # "Alfredo del Mazo should be in Lima" -> (be.1,be.in.2)
        frame = Frame("be", copula, list(subjects), negations, words=set(base_words))
        for prep in copula.children:
            if prep.dep_ == "prep" and not _fronted(prep, copula):
                frame.slots += _prep_slots(prep)
        if len(frame.slots) > len(subjects):
            frames.append(frame)
    return frames


def _apposition_frames(noun: Token) -> list[Frame]:
    """"Peter Fellner, economist at James Capel" -> (economist.at.1,economist.at.2), like a copula."""
    lemma = clean_lemma(noun)
    anchor = argument_of(noun.head)
    plural_anchor = noun.head.tag_ in {"NNS", "NNPS"} or noun.head.dep_ == "conj" or \
        any(c.dep_ == "conj" for c in noun.head.children)
    if lemma is None or anchor is None or (noun.tag_ == "NNS" and not plural_anchor):
        return []  # a plural beside one name is an item of a list ("Acme Inc, 2,000 shares of Widget Corp")
    before = noun.doc[noun.left_edge.i - 1] if noun.left_edge.i > 0 else None
    if before is None or before.text not in {",", "(", "-", "--", "—", "–"}:
        return []  # no apposition without a comma: "Sun Banks in Florida and Trust Co banks in Georgia"
    frames = []
    for prep in noun.children:
        marker = clean_lemma(prep) if prep.dep_ == "prep" else None
        if marker is None or marker in {"such", "including", "like"}:
            continue
        objects = _slots_for([c for c in prep.children if c.dep_ == "pobj"], "2")
        frame = Frame(f"{lemma}.{marker}", noun, [Slot(anchor, "1"), *objects], words={noun, prep})
        frames.append(frame)
    return frames


def _subject_slots(frame: Frame) -> list[Slot]:
    """The subject slots a coordinated or open clause shares: the surface subject (a by-agent is only its verb's:
    "X, owned by Y, soared" does not make Y soar)."""
    return [s for s in frame.slots if not _by_agent(s)
            and (s.role == "1" or (s.role == "2" and frame.passive and s.arg.head.dep_ == "nsubjpass"))]


def _surface_subjects(frame: Frame) -> list[Slot]:
    """The grammatical subject of a controlling verb, active or passive: "X is expected to buy", "X wants to buy"."""
    return [s for s in frame.slots if not _by_agent(s) and (s.role == "1" or s.arg.head.dep_ == "nsubjpass")]


def _by_agent(slot: Slot) -> bool:
    return any(w.dep_ == "agent" for w in slot.words)


def _inherit(frame: Frame, frames: dict[int, Frame]) -> None:
    """Give subjectless coordinated, controlled and relative-clause verbs the argument they share."""
    verb = frame.head
    has_subject = any(c.dep_ in _SUBJECT_DEPS for c in verb.children)
    head = frames.get(verb.head.i)
    if verb.dep_ == "conj" and not has_subject and head is not None:
        own_role = "2" if frame.passive or (verb.tag_ == "VBN" and head.passive) else "1"
        frame.passive = own_role == "2"
        frame.slots += [Slot(s.arg, own_role) for s in _subject_slots(head)]
        frame.controllers = _conjunct_controllers(verb, head, frames)
        _share_object(head, frame)
    elif verb.dep_ == "xcomp" and not has_subject and head is not None and head.head.pos_ in {"VERB", "AUX"}:
        if head.lemma in _REPORTING_VERBS - {"tell"} and not head.passive and verb.tag_ in {"VBD", "VBZ", "VBP"}:
            return  # "traders the agency said used an account": the parser's xcomp is the reported clause
        objects = [s for s in head.slots if s.role == "2" and s.arg.head.dep_ == "dobj"]
        if head.lemma.split(".")[0] not in OBJECT_CONTROL_VERBS:
            objects = []
        controllers = objects or _surface_subjects(head)
        frame.slots += [Slot(s.arg, "2" if frame.passive else "1") for s in controllers]
        frame.controllers = [*head.controllers, head.lemma]
        frame.negations += head.negations
        frame.words |= head.words | {c for c in verb.children if c.dep_ == "aux"}
    elif verb.dep_ == "relcl":
        noun = argument_of(_antecedent(verb))
        if noun is None:
            return
        relative = [c for c in verb.children if c.lower_ in _RELATIVE_PRONOUNS and c.dep_ in {"nsubj", "nsubjpass", "dobj"}
                    and _pronoun_fits(c, noun)]
        for pronoun in relative:
            role = {"nsubj": "1"}.get(pronoun.dep_, "2")
            frame.slots.append(Slot(noun, role))
    elif verb.dep_ == "acl" and verb.tag_ in {"VBN", "VBD"} and not has_subject:
        noun = argument_of(verb.head)
        if noun is not None:
            frame.passive = True
            frame.slots.append(Slot(noun, "2"))
    elif verb.dep_ in {"advcl", "acl"} and not has_subject and _is_open_clause(verb):
        # "ESA said, showing images"; "sold shares to raise cash"; "signed a contract to acquire aircraft":
        # the open clause's understood subject is the subject of the verb it hangs on.
        if verb.dep_ == "acl":
            if verb.head.dep_ != "dobj" or not _has_to(verb):
                return
            head = frames.get(verb.head.head.i)
            no = _negating_determiner(verb.head)
            if no is not None:  # "has no plans to raise capital" states that it will not raise it
                frame.negations += 1
                frame.words.add(no)
        if head is None:
            return
        frame.slots += [Slot(s.arg, "2" if frame.passive else "1") for s in _subject_slots(head) if s.role == "1"]


def _antecedent(relcl: Token) -> Token:
    """The noun a relative clause is about: the conjunct right before it, where the parser hung it on the first of
    a coordination ("Acme and Widget, which owns ..." is about Widget)."""
    head = relcl.head
    before = [t for t in _with_conjuncts(head) if t.i < relcl.i]
    return max(before, key=lambda t: t.i) if before else head


def _pronoun_fits(pronoun: Token, noun: Argument) -> bool:
    """"which" never stands for a person: the parser then hung the clause on a name inside the noun phrase
    ("the bank under Chief Executive X, which cut ..."). ("who" is not checked: the recogniser often takes a
    surname for a place.)"""
    return pronoun.lower_ != "which" or noun.type != "person"


def _is_open_clause(verb: Token) -> bool:
    """A subjectless participle or to-infinitive clause."""
    return verb.tag_ == "VBG" or any(c.dep_ == "aux" and c.lower_ == "to" for c in verb.children)


def _has_to(verb: Token) -> bool:
    return any(c.dep_ == "aux" and c.lower_ == "to" for c in verb.children)


def _conjunct_controllers(verb: Token, head: Frame, frames: dict[int, Frame]) -> list[str]:
    """Controllers a coordinated verb shares: "agreed to stop selling and to allow" -> allow gets only `agree`.

    A conjunct with its own tense or auxiliary ("and have purchased") is a statement of its own: no controller.
    A conjunct with its own "to" parallels the nearest infinitive above it and takes that one's controllers.
    """
    own_aux = [c for c in verb.children if c.dep_ in {"aux", "auxpass"} and c.lower_ != "to"]
    if own_aux or verb.tag_ in {"VBD", "VBZ", "VBP"}:
        return []
    if _has_to(verb):
        node = head.head
        while node.dep_ in {"xcomp", "conj"} and node.head.i != node.i:
            if _has_to(node) and node.i in frames:
                return list(frames[node.i].controllers)
            node = node.head
    return list(head.controllers)


def _share_object(head: Frame, conjunct: Frame) -> None:
    """"manages and develops properties": the first verb shares the object of its adjacent conjunct."""
    verb, other = head.head, conjunct.head
    if head.lemma in _INTRANSITIVE or other.i != verb.i + 2 or verb.nbor(1).dep_ != "cc":
        return
    if any(c.dep_ in {"dobj", "prep", "dative", "xcomp", "ccomp"} for c in verb.children):
        return
    head.slots += [Slot(s.arg, s.role, s.words) for s in conjunct.slots if s.arg.head.head.i == other.i
                   and s.arg.head.dep_ in {"dobj", "pobj"} or s.role not in {"1", "2"}]


def sentence_frames(sent: Span) -> list[Frame]:
    """Return every predicate frame of a sentence, with shared arguments filled in."""
    frames: dict[int, Frame] = {}
    extra: list[Frame] = []
    for token in sent:
        if token.pos_ == "VERB":
            frame = _verb_frame(token)
            if frame is not None:
                frames[token.i] = frame
        elif token.pos_ == "AUX" and token.lemma_ in _COPULA_LEMMAS and token.dep_ in {"ROOT", "conj", "ccomp", "relcl", "advcl"}:
            extra += _copula_frames(token)
        if token.dep_ == "appos" and token.pos_ == "NOUN" and not token.ent_type_:
            extra += _apposition_frames(token)
    # Heads before dependents, so a conjunct inherits from a frame that already inherited.
    for index in sorted(frames, key=lambda i: _depth(sent.doc[i])):
        _inherit(frames[index], frames)
    return [*frames.values(), *extra]


def _depth(token: Token) -> int:
    depth = 0
    while token.head.i != token.i:
        token = token.head
        depth += 1
    return depth


def predicate_name(frame: Frame, first: Slot, second: Slot, negated: bool) -> str:
    """Write the reference-format predicate, e.g. `NEG__want__(visit.1,visit.2)`."""
    core = f"({frame.lemma}.{first.role},{frame.lemma}.{second.role})"
    prefix = "".join(f"{c}{CONTROL_SEPARATOR}" for c in frame.controllers)
    return f"{NEGATION_PREFIX if negated else ''}{prefix}{core}"


def _first_conjunct(token: Token) -> Token:
    while token.dep_ == "conj" and token.head.i != token.i:
        token = token.head
    return token


def _beside_light_noun(slot: Slot, other: Slot) -> bool:
    """"bought plants and mills of X": `mill` is no argument of `buy.plant.of`, it is a second object."""
    nouns = [w for w in other.words if w.pos_ == "NOUN" and w.dep_ in {"dobj", "conj"}]
    return any(_first_conjunct(slot.arg.head) == _first_conjunct(noun) for noun in nouns)


def frame_relations(frame: Frame, require_entity: bool = True) -> Iterator[Relation]:
    """Yield every relation a frame states: each pair of slots with different roles."""
    slots = sorted(frame.slots, key=lambda s: s.rank)
    negated = frame.negations % 2 == 1
    for i, first in enumerate(slots):
        for second in slots[i + 1:]:
            if first.role == second.role or first.arg.norm == second.arg.norm:
                continue
            if first.arg.head in second.words or second.arg.head in first.words:
                continue  # a light-verb noun is part of the predicate, not an argument of it
            if _beside_light_noun(first, second) or _beside_light_noun(second, first):
                continue
            if require_entity and not (first.arg.is_entity or second.arg.is_entity):
                continue
            words = sorted({*frame.words, *first.words, *second.words}, key=lambda t: t.i)
            yield Relation(predicate_name(frame, first, second, negated), " ".join(t.text for t in words),
                           negated, first.arg, second.arg)
