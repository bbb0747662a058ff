"""Shared arguments: coordinated, controlled, relative and participial clauses take the slots they lack."""

from __future__ import annotations

from spacy.tokens import Token

from graph_builder.extraction.arguments import Argument, argument_of
from graph_builder.extraction.frames import Frame, negating_determiner, phrase_verb
from graph_builder.extraction.slots import Slot, slots_for, with_conjuncts
from graph_builder.extraction.words import (
    COPULA_LEMMAS, GERUND_PREPOSITIONS, INTENT_NOUNS, INTRANSITIVE_VERBS, JUDGING_VERBS, LISTING_PARTICIPLES,
    OBJECT_CONTROL_VERBS, PERSON_TITLES, PLACE_LABELS, PURPOSE_NOUNS, RELATIVE_PRONOUNS, REPORTER_PRONOUNS,
    REPORTING_VERBS, SUBJECT_DEPS,
)


def _subject_slots(frame: Frame) -> list[Slot]:
    """The subject slots a coordinated or open clause shares: the surface subject (a by-agent is only its verb's:
    "X, owned by Y, soared" does not make Y soar)."""
    return [s for s in frame.slots if not _by_agent(s)
            and (s.role == "1" or (s.role == "2" and frame.passive and s.arg.head.dep_ == "nsubjpass"))]


def _surface_subjects(frame: Frame) -> list[Slot]:
    """The grammatical subject of a controlling verb, active or passive: "X is expected to buy", "X wants to buy"."""
    return [s for s in frame.slots if not _by_agent(s) and (s.role == "1" or s.arg.head.dep_ == "nsubjpass")]


def _by_agent(slot: Slot) -> bool:
    # A by-phrase the parser hung lower and `misplaced_agent` gave back to its passive verb is an agent too.
    return any(w.dep_ == "agent" or (slot.role == "1" and w.lower_ == "by" and w.pos_ == "ADP") for w in slot.words)


def inherit(frame: Frame, frames: dict[int, Frame]) -> None:
    """Give subjectless coordinated, controlled and relative-clause verbs the argument they share."""
    verb = frame.head
    has_subject = any(c.dep_ in SUBJECT_DEPS for c in verb.children)
    head = frames.get(verb.head.i)
    if verb.dep_ == "conj" and not has_subject and head is not None:
        own_role = "2" if frame.passive or (verb.tag_ == "VBN" and head.passive) else "1"
        frame.passive = own_role == "2"
        frame.slots += [Slot(s.arg, own_role) for s in _subject_slots(head)]
        frame.controllers = _conjunct_controllers(verb, head, frames)
        _share_object(head, frame)
    elif verb.dep_ in {"conj", "xcomp"} and not has_subject and head is None and _copula_subject_shared(verb):
        # "X is to maintain its home in Y, but has no other restrictions": the copula's subject is the verb's
        copula_subjects = slots_for([c for c in verb.head.children if c.dep_ == "nsubj"], "1")
        frame.slots += [Slot(s.arg, "2" if frame.passive else "1") for s in copula_subjects]
    elif verb.dep_ == "xcomp" and not has_subject and head is None and _adjective_control(verb):
        # "The Fed is likely to delay its decision" -> likely__(delay.1,delay.2), as "is expected to delay" gives
        # expect__: the adjective says how the act stands, and the sentence does not state it as done.
        adjective = verb.head
        frame.slots += [Slot(s.arg, "2" if frame.passive else "1")
                        for s in slots_for([c for c in adjective.head.children if c.dep_ == "nsubj"], "1")]
        frame.controllers = [adjective.lemma_.lower()]
        frame.negations += sum(1 for c in (*adjective.children, *adjective.head.children) if c.dep_ == "neg")
        frame.words |= {adjective, *(c for c in verb.children if c.dep_ == "aux")}
    elif verb.dep_ == "pcomp" and verb.tag_ == "VBG" and not has_subject and verb.head.dep_ == "prep" \
            and verb.head.lower_ in GERUND_PREPOSITIONS and (head := frames.get(phrase_verb(verb.head).i)) is not None:
        _gerund_subject(frame, verb, head)
    elif verb.dep_ == "xcomp" and not has_subject and head is not None and head.head.pos_ in {"VERB", "AUX"}:
        reported = head.lemma in REPORTING_VERBS - {"tell"}
        if reported and not head.passive and verb.tag_ in {"VBD", "VBZ", "VBP"}:
            return  # "traders the agency said used an account": the parser's xcomp is the reported clause
        objects = [s for s in head.slots if s.role == "2" and s.arg.head.dep_ == "dobj"]
        if head.lemma.split(".")[0] not in OBJECT_CONTROL_VERBS and not reported:
            objects = []
        if reported and objects and not head.passive:
            # "GM says Whitacre to step down": the headline's object is the reported clause's subject, not what
            # was said.
            head.slots = [s for s in head.slots if s not in objects]
        controllers = objects or _surface_subjects(head)
        frame.slots += [Slot(s.arg, "2" if frame.passive else "1") for s in controllers]
        frame.controllers = [*head.controllers, head.lemma]
        frame.negations += head.negations
        frame.words |= head.words | {c for c in verb.children if c.dep_ == "aux"}
    elif verb.dep_ == "ccomp" and head is not None and not head.passive and head.lemma in REPORTING_VERBS \
            and verb.i > head.head.i:
        # "Acme said on Monday that it had completed its takeover of Y": a pronoun subject of the reported clause is
        # the reporter, where the pronoun agrees with it (`it`: one non-person; `he`, `she`: a person; `they`: several).
        # Not in a quote before its reporter ("'It does speak to the pluses,' Moe told Reuters"), where a pronoun is
        # as often someone or something else the quote is about.
        pronoun = next((c for c in verb.children if c.dep_ in {"nsubj", "nsubjpass"} and c.lower_ in REPORTER_PRONOUNS),
                       None)
        if pronoun is None:
            return
        reporters = [s for s in head.slots if s.role == "1" and not _by_agent(s)]
        if _pronoun_agrees(pronoun.lower_, [s.arg for s in reporters]):
            frame.slots += [Slot(s.arg, "1" if pronoun.dep_ == "nsubj" else "2") for s in reporters]
    elif verb.dep_ == "relcl":
        noun = argument_of(_antecedent(verb))
        if noun is None:
            return
        relative = [c for c in verb.children if c.lower_ in RELATIVE_PRONOUNS and c.dep_ in {"nsubj", "nsubjpass", "dobj"}
                    and _pronoun_fits(c, noun)]
        for pronoun in relative:
            role = {"nsubj": "1"}.get(pronoun.dep_, "2")
            frame.slots.append(Slot(noun, role))
        if noun.head.ent_type_ in PLACE_LABELS and any(c.dep_ == "advmod" and c.lower_ == "where" for c in verb.children):
            frame.slots.append(Slot(noun, "in.2"))  # "China, where Acme has four plants": (have.1,have.in.2)
    elif verb.dep_ == "acl" and verb.tag_ in {"VBN", "VBD"} and not has_subject:
        noun = argument_of(verb.head)
        if noun is not None:
            frame.passive = True
            frame.slots.append(Slot(noun, "2"))
    elif verb.dep_ == "acl" and verb.tag_ == "VBG" and not has_subject and frame.lemma not in LISTING_PARTICIPLES:
        # "countries urging the EU to stick to the policy": the noun a participle qualifies is its subject
        noun = argument_of(verb.head)
        if noun is not None:
            frame.slots.append(Slot(noun, "1"))
    elif verb.dep_ in {"advcl", "acl"} and not has_subject and _is_open_clause(verb):
        # "ESA said, showing images"; "sold shares to raise cash"; "signed a contract to acquire aircraft":
        # the open clause's understood subject is the subject of the verb it hangs on.
        if verb.dep_ == "acl":
            if verb.head.dep_ != "dobj" or not has_to(verb):
                return
            head = frames.get(verb.head.head.i)
            no = negating_determiner(verb.head)
            if no is not None:  # "has no plans to raise capital" states that it will not raise it
                frame.negations += 1
                frame.words.add(no)
        if head is None or (head.lemma in JUDGING_VERBS and has_to(verb)):
            return  # "shareholders approved a deal to acquire Saab": the deal's parties are not the judges
        own_role = "2" if frame.passive else "1"
        doers = _controlled_objects(head, verb) if verb.dep_ == "advcl" else []
        if doers:
            # "E*Trade named a pair of executives to fill top roles", "hired Goldman to advise it": the person or
            # organisation a verb of control takes as its object does what the purpose clause says.
            frame.slots += [Slot(s.arg, own_role) for s in doers]
            frame.controllers = [*head.controllers, head.lemma]
            return
        frame.slots += [Slot(s.arg, own_role) for s in _subject_slots(head) if s.role == "1"]
        intent = INTENT_NOUNS.get(verb.head.lemma_.lower()) if verb.dep_ == "acl" else None
        if intent is not None:
            # "made an offer to buy Yahoo" -> offer__(buy.1,buy.2), as "offered to buy Yahoo": an act intended
            frame.controllers = [*head.controllers, intent]
            frame.words.add(verb.head)


def _adjective_control(verb: Token) -> bool:
    """A to-infinitive hung on an adjective that complements a copula or a verb like "seem" ("X is likely to buy",
    "X looked ready to sell"), whose subject the infinitive shares."""
    adjective = verb.head
    return has_to(verb) and adjective.dep_ == "acomp" and adjective.pos_ == "ADJ" \
        and adjective.head.pos_ in {"AUX", "VERB"} and any(c.dep_ == "nsubj" for c in adjective.head.children) \
        and not any(c.lemma_.lower() in PURPOSE_NOUNS for c in adjective.head.children if c.dep_ == "nsubj")


def _gerund_subject(frame: Frame, verb: Token, head: Frame) -> None:
    """A subjectless gerund after a preposition of the verb above: its subject is that verb's object where the verb
    has one before it ("the SEC accused Goldman of misleading investors"), the passive subject ("Goldman was accused
    of misleading investors"), or else the verb's subject ("Rajaratnam admitted to trading on tips"). "By", and a
    phrase before its verb ("In striking down the settlement, Rakoff said ..."), give the act its subject's, stated
    (`(sell.1,sell.2)`); every other preposition the verb as controller."""
    prep = verb.head
    adverbial = prep.lower_ == "by" or prep.i < head.head.i
    objects = [c for c in head.head.children if c.dep_ == "dobj" and c.i < verb.i]
    if objects and not adverbial and not head.passive:
        # Only an object that can act does the act: a name or a post ("charged Gupta with providing", "fired Woodford
        # for failing"); a pronoun ("blocked it from raising its dividend") or a thing ("filed charges against Gupta
        # for providing") names no doer.
        doers = [s for s in head.slots if s.role == "2" and s.arg.head.i < verb.i and _can_act(s.arg)]
    elif adverbial and head.passive:
        doers = [s for s in head.slots if s.role == "1" and _by_agent(s)]  # "was raised by selling": no doer named
    elif adverbial and head.negations:
        doers = []  # "In making the disclosure, Olympus gave no details": the denial is the main verb's alone
    else:
        doers = _surface_subjects(head)
    own_role = "2" if frame.passive else "1"
    frame.slots += [Slot(s.arg, own_role) for s in doers]
    frame.negations += head.negations
    frame.controllers = [*head.controllers] if adverbial else [*head.controllers, head.lemma]
    frame.words |= {prep} if adverbial else head.words | {prep}


def _can_act(arg: Argument) -> bool:
    """Whether an argument can do an act: a name, or a noun of post ("the chief executive")."""
    return arg.is_entity or arg.head.lemma_.lower() in PERSON_TITLES


# Verbs of object control whose purpose clause is still their subject's: "left the ECB to teach at Harvard",
# "set Libor lower to present a healthier picture".
OWN_PURPOSE_VERBS = frozenset({"leave", "set", "get", "need", "want", "like", "prefer", "pay", "free"})


def _controlled_objects(head: Frame, clause: Token) -> list[Slot]:
    """The objects of a verb of object control that can act (a person or an organisation, by name or by a noun of
    post), standing before the to-infinitive the parser hangs on the verb as a purpose clause."""
    verb = head.lemma.split(".")[0]
    if head.passive or verb not in OBJECT_CONTROL_VERBS or verb in OWN_PURPOSE_VERBS or not has_to(clause):
        return []
    return [s for s in head.slots if s.role == "2" and s.arg.head.i < clause.i
            and (s.arg.type in {"person", "organization"}
                 or (not s.arg.is_entity and s.arg.head.lemma_.lower() in PERSON_TITLES))]


def _pronoun_agrees(pronoun: str, reporters: list[Argument]) -> bool:
    """Whether a reported clause's subject pronoun can stand for the reporting verb's subjects."""
    if not reporters:
        return False
    plural = len(reporters) > 1 or reporters[0].head.tag_ in {"NNS", "NNPS"} or reporters[0].type == "group"
    if pronoun == "they":
        return plural
    if plural:
        return False
    # "A spokeswoman for X said it ...": a post names a person, whose "it" is their organisation, not themselves.
    reporter = reporters[0]
    person = reporter.type == "person" or (not reporter.is_entity and reporter.head.lemma_.lower() in PERSON_TITLES)
    return person == (pronoun in {"he", "she"})


def _copula_subject_shared(verb: Token) -> bool:
    """A verb coordinated with a copula ("X is ... but has ..."), or its to-infinitive ("X is to maintain ..."), shares
    the copula's subject, unless that subject names a purpose of an active infinitive ("the plan is to buy Y": the
    plan buys nothing; "5,000 jobs are to be cut by Y": the jobs are what is cut)."""
    copula = verb.head
    if copula.pos_ != "AUX" or copula.lemma_ not in COPULA_LEMMAS or (verb.dep_ == "xcomp" and not has_to(verb)):
        return False
    if copula.dep_ == "relcl":
        return False  # "X, whose brand is the top seller, controls half the market": the parser's conjunct is X's verb
    subjects = [c for c in copula.children if c.dep_ == "nsubj"]
    passive = any(c.dep_ == "auxpass" for c in verb.children)
    return bool(subjects) and (passive or not any(s.lemma_.lower() in PURPOSE_NOUNS for s in subjects))


def _antecedent(relcl: Token) -> Token:
    """The noun a relative clause is about: the conjunct right before it, where the parser hung it on the first of
    a coordination ("Acme and Widget, which owns ..." is about Widget)."""
    head = relcl.head
    before = [t for t in with_conjuncts(head) if t.i < relcl.i]
    return max(before, key=lambda t: t.i) if before else head


def _pronoun_fits(pronoun: Token, noun: Argument) -> bool:
    """"which" never stands for a person: the parser then hung the clause on a name inside the noun phrase
    ("the bank under Chief Executive X, which cut ..."). ("who" is not checked: the recogniser often takes a
    surname for a place.)"""
    return pronoun.lower_ != "which" or noun.type != "person"


def _is_open_clause(verb: Token) -> bool:
    """A subjectless participle or to-infinitive clause."""
    return verb.tag_ == "VBG" or has_to(verb)


def has_to(verb: Token) -> bool:
    """The verb has its infinitive's "to"."""
    return any(c.dep_ == "aux" and c.lower_ == "to" for c in verb.children)


def _conjunct_controllers(verb: Token, head: Frame, frames: dict[int, Frame]) -> list[str]:
    """Controllers a coordinated verb shares: "agreed to stop selling and to allow" -> allow gets only `agree`.

    A conjunct with its own tense or auxiliary ("and have purchased") is a statement of its own: no controller.
    A conjunct with its own "to" parallels the nearest infinitive above it and takes that one's controllers.
    """
    own_aux = [c for c in verb.children if c.dep_ in {"aux", "auxpass"} and c.lower_ != "to"]
    if own_aux or verb.tag_ in {"VBD", "VBZ", "VBP"}:
        return []
    if has_to(verb):
        node = head.head
        while node.dep_ in {"xcomp", "conj"} and node.head.i != node.i:
            if has_to(node) and node.i in frames:
                return list(frames[node.i].controllers)
            node = node.head
    return list(head.controllers)


def _share_object(head: Frame, conjunct: Frame) -> None:
    """"manages and develops properties": the first verb shares the object of its adjacent conjunct."""
    verb, other = head.head, conjunct.head
    if head.lemma in INTRANSITIVE_VERBS or other.i != verb.i + 2 or verb.nbor(1).dep_ != "cc":
        return
    if any(c.dep_ in {"dobj", "prep", "dative", "xcomp", "ccomp"} for c in verb.children):
        return
    head.slots += [Slot(s.arg, s.role, s.words) for s in conjunct.slots if s.arg.head.head.i == other.i
                   and s.arg.head.dep_ in {"dobj", "pobj"} or s.role not in {"1", "2"}]

