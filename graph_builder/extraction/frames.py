"""Frame builders: one predicate occurrence (a verb, a copula, an apposition) with the slots its own words fill."""

from __future__ import annotations

from dataclasses import dataclass, field

from spacy.tokens import Token

from graph_builder.extraction.arguments import SKIPPED_ENTITY_LABELS, Argument, argument_of
from graph_builder.extraction.slots import (
    Slot, clean_lemma, introduces_examples, measured_noun, prep_slots, slots_for, with_conjuncts,
)
from graph_builder.extraction.words import (
    AGENT_NOUNS, AGENT_NOUN_ENDINGS, AMOUNT_LABELS, APPOINTING_VERBS, CHANGE_VERBS, COMPARISON_PREPOSITIONS,
    DIRECTION_ADVERBS, FRAMING_PREPOSITIONS, HOLDING_NOUNS, INTRANSITIVE_VERBS, LEVEL_PREPOSITIONS, LIGHT_VERBS,
    NOMINAL_VERBS, ORGANIZATION_POSTS, PATIENT_NOUNS, PERSON_TITLES, PLACE_LABELS, PLACE_PREPOSITIONS,
    PORTFOLIO_WORDS, RANK_WORDS, RECEIVER_VERBS, REPORTING_VERBS, SCENE_PREPOSITIONS, SOURCE_VERBS, STATE_POSTS,
    SUBJECT_DEPS, SUBORDINATING_PREPOSITIONS, UNREALISED_MODIFIERS, UNREALISING_VERBS, VERB_PHRASES_AFTER_OBJECT,
)


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
    # Pairs stated beside the slots' own pairing: the object and the place of its noun ("cut jobs in Ohio").
    pairs: list[tuple[Slot, Slot]] = field(default_factory=list)
    # A description of a participant, not what its clause asserts: an apposition or a post written before a name
    # ("Tim Cook, Apple's chief executive, resigned"). The news states it; a question presupposes it.
    described: bool = False


def fronted(prep: Token, verb: Token) -> bool:
    """A phrase set off by a comma before the subject frames the clause ("In a separate move, X sold its unit";
    "Like many retailers, X raised prices"): its common noun is no participant of the verb, nor is any noun of a
    comparison. A name keeps its relation ("In Germany, X cut jobs")."""
    subjects = [c for c in verb.children if c.dep_ in SUBJECT_DEPS]
    if not subjects or prep.i > subjects[0].i:
        return False
    after = prep.doc[prep.right_edge.i + 1] if prep.right_edge.i + 1 < len(prep.doc) else None
    if after is None or after.text != ",":
        return False
    if prep.lower_ in FRAMING_PREPOSITIONS:
        return True
    return not any(c.ent_type_ and c.ent_type_ not in SKIPPED_ENTITY_LABELS for c in prep.children if c.dep_ == "pobj")


def _clause_read_as_phrase(prep: Token, verb: Token) -> bool:
    """"attracted consumers as a housing slump takes a toll": the parser reads a subordinate clause as a phrase
    whose noun is the subject of the subjectless finite verb right after it."""
    if prep.lower_ not in SUBORDINATING_PREPOSITIONS:
        return False
    nouns = [c for c in prep.children if c.dep_ == "pobj"]
    if not nouns:
        return False
    noun = nouns[-1]
    if any(c.pos_ != noun.pos_ for c in with_conjuncts(noun)):
        return False  # "acted as advisors and Weil, Gotshal & Manges LLP acted as ...": the name starts the clause
    # "as disruptions led to losses": the parser may also hang the finite verb on the noun as a reduced relative
    if any(c.dep_ in {"acl", "relcl"} and c.i > noun.i and _subjectless_finite(c) for c in noun.children):
        return True
    after = noun.right_edge.i + 1
    return any(c.dep_ in {"advcl", "conj", "ccomp"} and c.left_edge.i == after and _subjectless_finite(c)
               for c in verb.children)


def _subjectless_finite(verb: Token) -> bool:
    return verb.tag_ in {"VBD", "VBZ", "VBP"} and not any(d.dep_ in SUBJECT_DEPS for d in verb.children)


def is_passive(verb: Token) -> bool:
    return any(c.dep_ in {"auxpass", "nsubjpass", "agent"} for c in verb.children)


def misplaced_agent(verb: Token) -> Token | None:
    """"X was ordered to pay damages by a court", "X was asked to delay the date by Y": the by-phrase the parser
    hangs on an open clause (or on its object) is the agent of the passive verb that controls the clause, when that
    verb has none. Not the by-phrase of an object that names an act ("asked to approve a takeover by Y")."""
    head = verb.head
    if verb.dep_ != "xcomp" or head.i == verb.i or not is_passive(head) or any(c.dep_ == "agent" for c in head.children):
        return None
    if is_passive(verb):  # "expected to be announced by Y": the clause's own agent
        return None
    candidates = [c for c in verb.children if c.dep_ in {"prep", "agent"} and c.lower_ == "by"]
    for obj in (c for c in verb.children if c.dep_ == "dobj" and c.pos_ == "NOUN"):
        noun = obj.lemma_.lower()
        if noun not in NOMINAL_VERBS and noun not in AGENT_NOUNS and not noun.endswith(AGENT_NOUN_ENDINGS):
            candidates += [c for c in obj.children if c.dep_ == "prep" and c.lower_ == "by"]
    for prep in candidates:
        # "forecast to grow by 0.6 million bpd": an amount measures, it does not act.
        if any(c.dep_ == "pobj" and argument_of(c) is not None and c.ent_type_ not in AMOUNT_LABELS
               and not any(t.like_num for t in c.subtree) for c in prep.children):
            return prep
    return None


def negating_determiner(noun: Token) -> Token | None:
    """"accept no monitoring", "no company bought", "Neither Apple nor Samsung commented" (v15): the determiner
    "no" or "neither" negates the statement."""
    for child in noun.children:
        if child.dep_ == "det" and child.lower_ in {"no", "neither"}:
            return child
    return None


def nor_denial(verb: Token) -> Token | None:
    """"The bank neither confirmed nor denied the report", "did not confirm nor deny it" (v15): "neither" before a
    verb denies it, and "nor" denies the verb it joins."""
    for child in verb.children:
        if child.dep_ == "preconj" and child.lower_ == "neither":
            return child
    if verb.dep_ == "conj":
        return next((c for c in verb.head.children if c.dep_ == "cc" and c.lower_ == "nor" and c.i < verb.i), None)
    return None


def verb_frame(verb: Token) -> Frame | None:
    lemma = clean_lemma(verb)
    if lemma is None:
        return None
    particles = [c for c in verb.children if c.dep_ == "prt" and clean_lemma(c)]
    direction = direction_adverb(verb)
    for particle in sorted([*particles, *([direction] if direction is not None else [])], key=lambda t: t.i):
        lemma = f"{lemma}.{clean_lemma(particle)}"
    frame = Frame(lemma, verb, passive=is_passive(verb))
    frame.words.update([verb, *particles])
    if direction is not None:
        frame.words.add(direction)
        for prep in direction.children:
            if prep.dep_ == "prep" and prep.pos_ == "ADP":
                frame.slots += prep_slots(prep)
    nor = nor_denial(verb)
    if nor is not None:
        frame.negations += 1
        frame.words.add(nor)
    for child in verb.children:
        dep = child.dep_
        if dep in {"aux", "auxpass"} and child.tag_ != "MD":
            frame.words.add(child)
        elif dep == "neg":
            frame.negations += 1
            frame.words.add(child)
        elif dep == "nsubj":
            frame.slots += slots_for([child], "1")
        elif dep == "nsubjpass":
            frame.slots += slots_for([child], "2")
        elif dep in {"dobj", "oprd"} and not frame.passive and (named := name_on_post(child, lemma)) is not None:
            # "X appointed Carney governor of Y": the small parser hangs the person on the post, read as "X appointed
            # Carney as governor of Y" is: the person is the object, and the post pairs them with Y.
            objects = slots_for([named], "2")
            frame.slots += objects
            frame.pairs += [(obj, post) for obj in objects for post in _light_noun_slots(child)]
        elif dep == "dobj" and not _subject_of_clause(child, verb):
            frame.slots += slots_for([child], "2")
            moved = _verbs_phrase_after_object(child, lemma)
            if moved is not None:
                frame.slots += prep_slots(moved)
            else:
                frame.slots += _light_noun_slots(child)
                frame.pairs += _place_pairs(child, lemma)
        elif dep in {"attr", "oprd"} and lemma.split(".")[0] != "be":  # "there was a pickup in Y" says nothing of Y
            # The post or role a verb gives its subject or object joins the predicate with its first phrase:
            # "X became leader of Y" (become.1,become.leader.of.2); "X was appointed governor of Y"
            # (appoint.2,appoint.governor.of.2). In the active voice the post is the object's: "Z appointed X
            # governor of Y" pairs X with Y as the passive does, and "calling it the winner in Y" pairs no one.
            posts = _light_noun_slots(child)
            if dep == "oprd" and not frame.passive:
                objects = slots_for([c for c in verb.children if c.dep_ == "dobj"], "2")
                frame.pairs += [(obj, post) for obj in objects for post in posts]
            else:
                frame.slots += posts
        elif dep == "acomp" and child.pos_ == "ADJ" and (adjective := clean_lemma(child)) is not None:
            # "X pleaded guilty to Y" -> (plead.1,plead.guilty.to.2): the adjective joins the predicate with its
            # phrase, as a light object does; "X pleaded not guilty" is denied.
            for prep in child.children:
                if prep.dep_ == "prep" and prep.pos_ == "ADP":
                    frame.slots += prep_slots(prep, (child,), adjective)
            denials = [c for c in child.children if c.dep_ == "neg"]
            frame.negations += len(denials)
            frame.words.update(denials)
        elif dep == "dative" and child.pos_ in {"NOUN", "PROPN"} and lemma.split(".")[0] in RECEIVER_VERBS:
            frame.slots += slots_for([child], "to.2")
        elif dep == "agent" and frame.passive:
            frame.slots += slots_for([c for c in child.children if c.dep_ == "pobj"], "1", (child,))
        elif dep in {"prep", "dative"} and child.pos_ == "ADP" and not fronted(child, verb) \
                and not (child.lower_ in COMPARISON_PREPOSITIONS and _has_amount(verb)) \
                and not _level(child, lemma) and not _clause_read_as_phrase(child, verb):
            light = _light_object(verb, lemma)
            if light is not None:
                noun = clean_lemma(light)
                frame.slots += prep_slots(child, (light,), noun or "")
            elif not _after_object(child, verb, lemma):
                frame.slots += prep_slots(child)
        if dep in {"nsubj", "nsubjpass", "dobj"}:
            no = negating_determiner(child)
            if no is not None:
                frame.negations += 1
                frame.words.add(no)
    # A by-phrase hung here that is the agent of the passive verb above goes to that verb's frame (below).
    misplaced = misplaced_agent(verb)
    if misplaced is not None:
        frame.slots = [s for s in frame.slots if misplaced not in s.words]
    for clause in (c for c in verb.children if c.dep_ == "xcomp"):
        agent = misplaced_agent(clause)
        if agent is not None:
            frame.slots += slots_for([c for c in agent.children if c.dep_ == "pobj"], "1", (agent,))
    if lemma in REPORTING_VERBS:
        reports = verb.dep_ == "parataxis" or any(c.dep_ in {"ccomp", "parataxis"} for c in verb.children)
        frame.slots = [s for s in frame.slots if _reporting_slot_kept(s, lemma, reports)]
    return frame


def direction_adverb(verb: Token) -> Token | None:
    """An adverb of direction right after the verb (only adverbs between) that the verb's phrase hangs on or that
    ends where a phrase of the verb starts: the parser reads "walked away from the bid" as away -> from, and "pulled
    out of the talks" as out -> of, where the particle and its phrase belong to the verb. Not after a reporting verb or
    a verb of rise and fall, where "ahead of" tells when ("said ahead of a summit", "rose ahead of the results")."""
    for child in verb.children:
        if child.lower_ not in DIRECTION_ADVERBS or child.dep_ not in {"advmod", "prep"} or child.i <= verb.i:
            continue
        if any(t.pos_ != "ADV" for t in verb.doc[verb.i + 1:child.i]):
            continue
        own_phrase = any(c.dep_ == "prep" and c.pos_ == "ADP" for c in child.children)
        verbs_phrase = any(c.dep_ == "prep" and c.i == child.i + 1 for c in verb.children)
        if own_phrase or (child.dep_ == "advmod" and verbs_phrase):
            # the verb's lemma only where an adverb qualifies: most verbs have none
            base = clean_lemma(verb)
            return None if base in REPORTING_VERBS or base in INTRANSITIVE_VERBS else child
    return None


def phrase_verb(prep: Token) -> Token:
    """The verb a preposition's phrase belongs to: its head, or the verb whose adverb of direction it hangs on
    ("backed away from buying Yahoo": from -> away -> backed)."""
    above = prep.head
    if above.dep_ in {"advmod", "prep"} and above.head.i != above.i:
        adverb = direction_adverb(above.head)
        if adverb is not None and adverb.i == above.i:
            return above.head
    return above


def _reporting_slot_kept(slot: Slot, lemma: str, reports: bool) -> bool:
    """"X said in a statement": a reporting verb keeps its subject and object, and of its prepositions only named
    participants; beside a reported clause or quote only where it was said ("Olsson said, of the takeover by Geely,
    ..." keeps nothing); and only "tell" joins its object's noun ("said revenue per room, or RevPAR, fell")."""
    if slot.role in {"1", "2"}:
        return True
    marker = slot.role.split(".")[-2]
    joins_noun = slot.role.count(".") > 1
    return slot.arg.is_entity and not (reports and marker not in SCENE_PREPOSITIONS) and not (lemma != "tell" and joins_noun)


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
        if clause.dep_ == "ccomp" and clause.i > dobj.i and not any(c.dep_ in SUBJECT_DEPS for c in clause.children):
            finite = clause.tag_ in {"VBD", "VBZ", "VBP"} or any(c.tag_ == "MD" for c in clause.children)
            between = dobj.doc[dobj.right_edge.i + 1:clause.left_edge.i]  # empty unless the clause starts after
            if finite and not any(t.text in {",", ";", ":"} or t.lower_ in {"and", "but", "or"} for t in between):
                return True
    return False


def _level(prep: Token, lemma: str) -> bool:
    """A to- or by-phrase of a verb of change whose noun has a number: the level reached or the change ("raised
    his stake to 4.6 million shares", "cut staff by 500 jobs"), not a participant."""
    return prep.lower_ in LEVEL_PREPOSITIONS and lemma.split(".")[0] in CHANGE_VERBS and any(
        c.dep_ == "pobj" and any(n.dep_ in {"nummod", "quantmod"} or n.like_num for n in c.lefts)
        for c in prep.children)


def _has_amount(verb: Token) -> bool:
    """The verb measures something ("earned 18 cents a share", "has 9.2 percent of deposits")."""
    return any(c.dep_ in {"dobj", "npadvmod", "attr"} and (c.ent_type_ in AMOUNT_LABELS or
                                                           any(n.like_num for n in c.subtree))
               for c in verb.children)


def name_on_post(post: Token, lemma: str) -> Token | None:
    """The person a verb of appointing gives a post, where the small parser read the name as a modifier of the post:
    in "X named Roland Smith chief executive" and "X appointed Carney governor" the name hangs on `executive` and
    `governor`. Returns the name's last word, or None."""
    if lemma.split(".")[0] not in APPOINTING_VERBS or post.pos_ != "NOUN" or post.ent_type_ \
            or clean_lemma(post) not in PERSON_TITLES:
        return None
    for child in post.lefts:
        if child.dep_ in {"compound", "nmod"} and child.ent_type_ == "PERSON" \
                and (child.i + 1 == len(child.doc) or child.doc[child.i + 1].ent_type_ != "PERSON"):
            return child
    return None


def _light_object(verb: Token, lemma: str) -> Token | None:
    """The common-noun object of a light verb, which joins the predicate of the verb's prepositions (an amount or a
    measure does not: "paid 10 dlrs a share for Y" -> pay.for)."""
    if lemma not in LIGHT_VERBS:
        return None
    for child in verb.children:
        if child.dep_ == "dobj" and child.pos_ == "NOUN" and not child.ent_type_ and argument_of(child) is not None \
                and measured_noun(child) is None:
            return child
    return None


def _light_noun_slots(dobj: Token) -> list[Slot]:
    """`maintains relations with Y`: the object noun joins the predicate with its preposition."""
    if dobj.pos_ != "NOUN" or dobj.ent_type_:
        return []
    noun = post_lemma(dobj)
    if noun is None:
        return []
    measured = measured_noun(dobj)
    slots = []
    # Only the first phrase after the noun is surely its own: in "a round of bidding by firms" the parser hangs "by"
    # on "round" though it belongs to "bidding".
    first = _first_phrase(dobj)
    if first is not None and not introduces_examples(dobj, first) and not (measured and measured.head == first):
        slots += prep_slots(first, (dobj,), noun)
    return slots


def _first_phrase(noun: Token) -> Token | None:
    return next((c for c in noun.rights if c.dep_ == "prep"), None)


def _verbs_phrase_after_object(dobj: Token, lemma: str) -> Token | None:
    """The phrase right after the object (or after the noun an amount or part of it measures) that the verb takes,
    though the parser hung it on the noun: "purchased stock from Y", "protect part of its exports from attacks"."""
    noun = measured_noun(dobj) or dobj
    prep = _first_phrase(noun)
    if prep is None:
        return None
    verbs = VERB_PHRASES_AFTER_OBJECT.get(prep.lower_)
    return prep if verbs is not None and lemma.split(".")[0] in verbs else None


def _place_pairs(dobj: Token, lemma: str) -> list[tuple[Slot, Slot]]:
    """"cut jobs in North America": the place of a common-noun object is also where the act touched it, so the object
    and the place are paired as (cut.2,cut.in.2) beside the subject's (cut.1,cut.job.in.2)."""
    if dobj.pos_ != "NOUN" or dobj.ent_type_ or lemma in LIGHT_VERBS or lemma in REPORTING_VERBS \
            or measured_noun(dobj) is not None or dobj.lemma_.lower() in HOLDING_NOUNS:
        return []
    prep = _first_phrase(dobj)
    if prep is None or prep.lower_ not in PLACE_PREPOSITIONS:
        return []
    places = [s for s in prep_slots(prep) if s.arg.head.ent_type_ in PLACE_LABELS]
    return [(obj, place) for obj in slots_for([dobj], "2") for place in places]


def post_lemma(noun: Token) -> str | None:
    """A noun's lemma as a predicate's, with the words before it that make it another post: "vice president" ->
    `vice.president`, "deputy governor" -> `deputy.governor` (a deputy is not the governor)."""
    lemma = clean_lemma(noun)
    if lemma is None:
        return None
    ranks = [c.lower_ for c in noun.lefts if c.dep_ in {"compound", "amod", "nmod"} and c.lower_ in RANK_WORDS]
    return ".".join([*ranks, lemma])


def copula_frames(copula: Token) -> list[Frame]:
    """`X is the treatment for Y` -> (treatment.for.1,treatment.for.2); `X is useful in Y` -> (useful.1,useful.in.2)."""
    subjects = slots_for([c for c in copula.children if c.dep_ == "nsubj"], "1")
    negations = sum(1 for c in copula.children if c.dep_ == "neg")
    base_words = {copula, *(c for c in copula.children if c.dep_ in {"neg", "aux"} and c.tag_ != "MD")}
    frames = []
    for child in copula.children:
        member = one_of(child) if child.dep_ == "attr" else None
        if member is not None:
            # "X is one of the biggest shareholders in Y": (one.of.1,one.of.2) X -> shareholder as written, and
            # (shareholder.in.1,shareholder.in.2) X -> Y as "X is the biggest shareholder in Y" gives
            frames.append(Frame("one.of", copula, subjects + slots_for([member], "2"), negations,
                                words={*base_words, child, member.head}))
            child = member
        if (child.dep_ == "attr" or member is not None) and child.pos_ in {"NOUN", "PROPN"} and not child.ent_type_:
            noun = post_lemma(child)
            owner = post_owner(child, child.left_edge.i, plural=member is not None)
            if owner is not None and noun is not None:  # "X is Apple's chief executive" -> (executive.of.1,executive.of.2)
                holders = [s for s in subjects if holds_post(s.arg, child)]
                if holders:
                    frames.append(Frame(f"{noun}.of", copula, [*holders, Slot(owner, "2")], negations,
                                        words={*base_words, child}))
            for prep in child.children:
                marker = clean_lemma(prep) if prep.dep_ == "prep" else None
                if noun is None or marker is None:
                    continue
                lemma = f"{noun}.{marker}"
                objects = slots_for([c for c in prep.children if c.dep_ == "pobj"], "2")
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
                    frame.slots += prep_slots(prep)
            frames.append(frame)
    if not any(c.dep_ in {"attr", "acomp"} for c in copula.children):
        # "Alfredo del Mazo should be in Lima" -> (be.1,be.in.2)
        frame = Frame("be", copula, list(subjects), negations, words=set(base_words))
        for prep in copula.children:
            if prep.dep_ == "prep" and not fronted(prep, copula):
                frame.slots += prep_slots(prep)
        if len(frame.slots) > len(subjects):
            frames.append(frame)
    return frames


def apposition_frames(noun: Token, appos: Token | None = None) -> list[Frame]:
    """"Peter Fellner, economist at James Capel" -> (economist.at.1,economist.at.2), like a copula; "Tim Cook, Apple's
    chief executive" -> (executive.of.1,executive.of.2), as "Tim Cook, chief executive of Apple" gives. `appos` is the
    apposition when `noun` is the member it picks ("Microsoft, one of the biggest shareholders in Yahoo": `one_of`)."""
    appos = appos or noun
    lemma = post_lemma(noun)
    anchor = argument_of(appos.head)
    plural_anchor = appos.head.tag_ in {"NNS", "NNPS"} or appos.head.dep_ == "conj" or \
        any(c.dep_ == "conj" for c in appos.head.children)
    if lemma is None or anchor is None or (appos.tag_ == "NNS" and not plural_anchor):
        return []  # a plural beside one name is an item of a list ("Acme Inc, 2,000 shares of Widget Corp")
    before = noun.doc[appos.left_edge.i - 1] if appos.left_edge.i > 0 else None
    if before is None or before.text not in {",", "(", "-", "--", "—", "–"}:
        return []  # no apposition without a comma: "Sun Banks in Florida and Trust Co banks in Georgia"
    frames = []
    if appos is not noun:  # "X, one of the biggest shareholders in Y": (one.of.1,one.of.2) as in a copula
        frames.append(Frame("one.of", appos, [Slot(anchor, "1"), *slots_for([noun], "2")], words={appos, noun.head},
                            described=True))
    owner = post_owner(noun, noun.left_edge.i, plural=appos is not noun)
    if owner is not None and holds_post(anchor, noun):
        frames.append(Frame(f"{lemma}.of", noun, [Slot(anchor, "1"), Slot(owner, "2")], words={noun}, described=True))
    for prep in noun.children:
        marker = clean_lemma(prep) if prep.dep_ == "prep" else None
        if marker is None or marker in {"such", "including", "like"}:
            continue
        objects = slots_for([c for c in prep.children if c.dep_ == "pobj"], "2")
        frame = Frame(f"{lemma}.{marker}", noun, [Slot(anchor, "1"), *objects], words={noun, prep}, described=True)
        frames.append(frame)
    return frames


def title_frames(name: Token) -> list[Frame]:
    """"the president of the Commission, Jose Barroso" -> (president.of.1,president.of.2), as "Barroso, president of the
    Commission" gives; also where the parser hangs the name on the organisation ("the president of the Chicago Fed,
    Charles Evans")."""
    if name.ent_type_ != "PERSON" or name.dep_ != "appos":
        return []
    before = name.doc[name.left_edge.i - 1] if name.left_edge.i > 0 else None
    anchor = argument_of(name)
    if before is None or before.text != "," or anchor is None:
        return []
    title, only = name.head, None
    if title.ent_type_ and title.ent_type_ != "PERSON" and title.dep_ == "pobj" and title.head.dep_ == "prep":
        title, only = title.head.head, title.head  # the name hung on the organisation of the title's phrase
    if clean_lemma(title) not in PERSON_TITLES or title.pos_ != "NOUN" or title.ent_type_ or title.tag_ != "NN":
        return []
    lemma = post_lemma(title)
    if title.dep_ == "appos":
        return []  # the post is another name's already: "X, chairman of Acme Inc, Y, chairman of Widget Inc"
    frames = []
    for prep in title.children:
        marker = clean_lemma(prep) if prep.dep_ == "prep" else None
        if marker is None or marker in {"such", "including", "like"} or (only is not None and prep != only):
            continue
        objects = slots_for([c for c in prep.children if c.dep_ == "pobj"], "2")
        frames.append(Frame(f"{lemma}.{marker}", title, [Slot(anchor, "1"), *objects], words={title, prep},
                            described=True))
    return frames


# Names that own a person's post written before it: "Apple's chief executive", "Apple chief executive", "U.S. President".
_POST_OWNER_LABELS = frozenset({"ORG", "GPE"})
_POSSESSIVE_OWNER_LABELS = frozenset({"ORG", "GPE", "PERSON"})
# Words between an owner and its post: "Apple's new chief executive", "Acme's former acting president".
_POST_MODIFIER_DEPS = frozenset({"amod", "case", "punct"})
_POST_WORDS = PERSON_TITLES | RANK_WORDS  # "chief executive", "vice president": the words of a post


def post_owner(post: Token, floor: int, plural: bool = False) -> Argument | None:
    """The name that owns a person's post, written right before it and not before token `floor`: a possessor
    ("Apple's chief executive", "Obama's spokesman") or a name compounded with the post ("Apple chief executive",
    "JPMorgan Chase Chief Executive"); adjectives and other post words may stand between ("Apple's new chief
    executive"). None for a post that is not a person's, or one without such a name ("U.S. District Judge": the
    court is not named). A plural post is one only as the member of a partitive (`plural`: "one of Apple's top
    executives")."""
    lemma = clean_lemma(post)
    if lemma not in PERSON_TITLES or post.ent_type_ or (post.tag_ in {"NNS", "NNPS"} and not plural):
        return None  # a post the recogniser took into a name ("Yahoo Chief Executive") has no sure owner
    doc, i = post.doc, post.i - 1
    while i >= floor and not doc[i].ent_type_ and (clean_lemma(doc[i]) in _POST_WORDS
                                                   or doc[i].dep_ in _POST_MODIFIER_DEPS):
        i -= 1
    if i < floor:
        return None
    owner = doc[i]
    possessive = i + 1 < post.i and doc[i + 1].dep_ == "case"
    if owner.ent_type_ not in (_POSSESSIVE_OWNER_LABELS if possessive else _POST_OWNER_LABELS):
        return None
    if owner.lower_ in PORTFOLIO_WORDS or clean_lemma(owner) in PERSON_TITLES:
        return None  # "Finance Minister", "EU Energy Commissioner", "Nissan Motor Executive Vice President"
    if owner.ent_type_ == "GPE" and not possessive and lemma not in STATE_POSTS:
        return None  # "chief U.S. economist": a country before a post is its field, but for a state's posts
    found = argument_of(owner)
    return found if found is not None and found.is_entity else None


def holds_post(holder: Argument, post: Token) -> bool:
    """Whether a mention can hold a post: a person any, an organisation those that organisations hold ("Yahoo's
    largest shareholder, Microsoft")."""
    return holder.type == "person" or (holder.type == "organization" and clean_lemma(post) in ORGANIZATION_POSTS)


def owned_post_frames(name: Token) -> list[Frame]:
    """A name right after a post that another name owns holds it: "Apple's chief executive Tim Cook", "Apple chief
    executive Tim Cook", "JPMorgan Chase Chief Executive Jamie Dimon" -> (executive.of.1,executive.of.2), as "Tim Cook,
    chief executive of Apple" gives; "Yahoo's largest shareholder, Microsoft" -> (shareholder.of.1,shareholder.of.2).
    A post set off by a comma after the name is `apposition_frames`'."""
    doc = name.doc
    if name.ent_type_ not in {"PERSON", "ORG"} or (name.i + 1 < len(doc) and doc[name.i + 1].ent_iob_ == "I"):
        return []  # the name's last word only, so once per name
    holder = argument_of(name)
    first = name.i
    while first > 0 and doc[first].ent_iob_ == "I":
        first -= 1
    if holder is None or first == 0:
        return []
    post = doc[first - 1]
    if post.text == "," and first > 1 and name.dep_ == "appos" and name.head.i == first - 2:
        post = doc[first - 2]  # "Yahoo's largest shareholder, Microsoft"
    elif not (post.head.i == name.i or name.head.i == post.i):
        return []  # the post hangs on the name ("Apple chief executive Tim Cook") or the name on the post (appos)
    if post.pos_ not in {"NOUN", "PROPN"} or not holds_post(holder, post):
        return []
    owner = post_owner(post, min(post.left_edge.i, name.left_edge.i))
    lemma = post_lemma(post)
    if owner is None or lemma is None or owner.norm == holder.norm:
        return []
    return [Frame(f"{lemma}.of", post, [Slot(holder, "1"), Slot(owner, "2")], words={post}, described=True)]


def one_of(token: Token) -> Token | None:
    """The noun a partitive "one of the N" picks a member of ("X is one of the biggest shareholders in Y"), read as
    the post or the class ("X is the biggest shareholder in Y"); None otherwise."""
    if token.lower_ != "one":
        return None
    for prep in token.children:
        if prep.dep_ == "prep" and prep.lower_ == "of":
            for pobj in prep.children:
                if pobj.dep_ == "pobj" and pobj.pos_ == "NOUN" and pobj.tag_ == "NNS" and not pobj.ent_type_:
                    return pobj
    return None


_POSSESSIVE_PRONOUNS = frozenset({"its", "their", "his", "her"})


def nominal_frames(noun: Token) -> list[Frame]:
    """An event noun read as its verb where its phrase names the participants: "Facebook's acquisition of Instagram"
    and "the purchase of Skype by Microsoft" -> (acquire.1,acquire.2), (purchase.1,purchase.2), as the verbs give;
    "United's win over Southampton" -> (win.1,win.over.2); "X completed its takeover of Y": the owner of "its" is the
    verb's subject. A possessor is the actor, unless a by-phrase names the actor or the noun is an event that happens
    to someone ("Khodorkovsky's arrest in Moscow" -> (arrest.2,arrest.in.2), as "Khodorkovsky was arrested in
    Moscow"); phrases other than the object's join only with a named participant. A proposed, failed or blocked
    event, or one a word such as "oppose", "talks on" or "whether" governs, states no relation."""
    lemma = noun.lemma_.lower()
    entry = NOMINAL_VERBS.get(lemma)
    if entry is None or noun.pos_ != "NOUN" or noun.ent_type_ or noun.tag_ != "NN":
        return []
    if noun.dep_ == "conj" and noun.head.pos_ == "PROPN":
        return []  # "X's purchase of Y and Z's purchase of W" parsed as one list of names: no participant is sure
    if any(c.lower_ in UNREALISED_MODIFIERS for c in noun.children if c.i < noun.i) or _unrealised(noun):
        return []
    verb, object_marker = entry
    frame = Frame(verb, noun, words={noun})
    objects: list[Slot] = []
    for prep in noun.children:
        if prep.dep_ != "prep" or clean_lemma(prep) is None:
            continue
        pobjs = [c for c in prep.children if c.dep_ == "pobj"]
        if prep.lower_ == "by":
            frame.slots += slots_for(pobjs, "1", (prep,))
        elif object_marker and prep.lower_ == object_marker:
            objects += slots_for(pobjs, "2", (prep,))
        elif prep.lower_ != "of" and not introduces_examples(noun, prep):
            # Other phrases on a noun are where the parser hangs the clause's adjuncts ("X's departure in a filing"):
            # only a named participant is taken.
            frame.slots += [s for s in prep_slots(prep) if s.arg.is_entity]
    frame.slots += [s for s in objects if s.arg.head.lemma_.lower() not in NOMINAL_VERBS]  # "X's purchase of Y's purchase"
    possessors = [c for c in noun.children if c.dep_ == "poss"]
    by_actor = any(s.role == "1" for s in frame.slots)
    role = "2" if not objects and (lemma in PATIENT_NOUNS or by_actor) else "1"
    for owner in possessors:
        if owner.lower_ in _POSSESSIVE_PRONOUNS and role == "1" and noun.dep_ == "dobj":
            frame.slots += slots_for([c for c in noun.head.children if c.dep_ == "nsubj"], "1")
        else:
            frame.slots += slots_for([owner], role)
    no = negating_determiner(noun)
    if no is not None:
        frame.negations += 1
        frame.words.add(no)
    return [frame]


def _unrealised(noun: Token) -> bool:
    """The event noun is what a verb of planning, opposing or failing takes ("blocked X's takeover of Y",
    "X's bid ... failed", "talks on X's merger with Y")."""
    head = noun.head
    if noun.dep_ == "pobj":
        head = head.head
    if head.lemma_.lower() in UNREALISING_VERBS:
        return True
    # "whether it would represent a takeover of Y", "if the merger goes ahead": the clause is not asserted.
    return any(c.dep_ == "mark" and c.lower_ in UNREALISING_VERBS for c in head.children) or \
        any(c.dep_ == "aux" and c.tag_ == "MD" for c in head.children)
