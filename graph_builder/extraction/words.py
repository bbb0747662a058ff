"""Word lists the relation rules consult: lemma fixes, light and control verbs, idioms, prepositions by use."""

from __future__ import annotations

# Known lemmatiser slips of the small English pipeline, fixed so the predicate reads as the verb.
LEMMA_FIXES = {"fin": "fine", "datum": "data", "lay off": "lay off", "rat": "rate", "wag": "wage",
               "bas": "base", "pric": "price", "shar": "share", "lin": "line"}
# Verbs whose object noun joins the predicate even when the parser hangs the preposition on the verb
# ("had influence in Greece" -> have.influence.in, like "maintains relations with").
LIGHT_VERBS = frozenset({"have", "take", "make", "give", "hold", "pay", "reach", "keep", "gain", "get", "seek", "play",
                         "do", "put", "set"})
# Reporting verbs: "X said in a statement" states no relation between X and the statement.
REPORTING_VERBS = frozenset({"say", "tell", "add", "note", "write", "state", "report", "comment"})
# Subject pronouns of a reported clause that stand for the reporter ("Acme said it would buy Y"); not "we" or "I",
# which in a quote are often the speaker's company, not the speaker.
REPORTER_PRONOUNS = frozenset({"it", "he", "she", "they"})
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
    ("in", "cash"), ("as", "part"), ("in", "row"), ("at", "option"), ("by", "comparison"), ("to", "date"),
    ("at", "expense"),
})
# Prepositions of comparison, role or concession: their noun is set beside the subject, not acted on.
FRAMING_PREPOSITIONS = frozenset({"like", "unlike", "as", "besides", "despite", "among", "amid"})
# Idioms that pass a relation on through their noun's preposition: "is in talks with Y" -> (be.1,be.in.talk.with.2),
# "came out in support of Y" -> (come.out.1,come.out.in.support.of.2).
LINKING_IDIOMS = frozenset({("in", "talk"), ("in", "support"), ("in", "charge"), ("in", "favor"), ("in", "favour"),
                            ("on", "behalf"), ("in", "connection"),
                            # "is under investigation by the SEC" -> (be.1,be.under.investigation.by.2)
                            *(("under", noun) for noun in ("investigation", "pressure", "scrutiny", "fire", "attack",
                                                           "threat", "review"))})
# Words of a predicate spelled the British way whose American spelling (breame's list) news in American English
# does not write: kept as they are.
KEPT_SPELLINGS = frozenset({"axe", "gauge", "dialogue", "catalogue", "cancellation", "disc", "appal"})
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
# Verbs whose to-phrase after the object is the goal of the act: "delivered the first jet to ANA".
GOAL_VERBS = frozenset({
    "sell", "deliver", "send", "ship", "export", "supply", "transfer", "lend", "give", "offer", "grant", "award",
    "provide", "hand", "return", "donate", "assign", "sign", "lease", "rent", "license", "distribute", "issue", "move",
    "shift", "switch", "bring", "fly", "carry", "introduce", "present", "submit", "refer", "pass", "extend", "sublet"})
# Verbs whose first object, before a second one, is the receiver: "sold Widget Inc the brand" = "sold the brand to
# Widget Inc", so that object takes the role of the to-phrase.
RECEIVER_VERBS = GOAL_VERBS | frozenset({"pay", "owe", "promise", "show", "teach", "lend", "loan", "wire"})
# A phrase the parser hangs on the verb's object that belongs to the verb, by its preposition and the verbs that take
# it: "bought stock and options from Y", "protect part of its exports from attacks", "deliver the jet to Y".
VERB_PHRASES_AFTER_OBJECT: dict[str, frozenset[str]] = {"from": SOURCE_VERBS, "to": GOAL_VERBS}
# The preposition and entity labels of place: "cut jobs in North America" also says where the jobs were cut.
PLACE_PREPOSITIONS = frozenset({"in"})
PLACE_LABELS = frozenset({"GPE", "LOC", "FAC"})
# Nouns whose in-phrase is what is held, not a place ("a stake in Techem", the name often taken for a place).
HOLDING_NOUNS = frozenset({"stake", "interest", "holding", "shareholding", "stakeholding", "share", "position",
                           "ownership"})
AMOUNT_LABELS = frozenset({"MONEY", "PERCENT", "QUANTITY", "CARDINAL"})
# Where a reporting verb's speaker was ("told reporters at the Auto Show"): kept beside a reported clause.
SCENE_PREPOSITIONS = frozenset({"at", "in", "to"})
# Prepositions of comparison: "earned 18 cents, well below the forecast" sets a figure beside the noun.
COMPARISON_PREPOSITIONS = frozenset({"below", "above", "versus", "vs", "vs.", "than"})
# Verbs of change, whose to- or by-phrase with a number is the level reached or the change, not a participant:
# "raised his stake to 4.6 million shares", "cut its workforce by 500 jobs", "holdings rose to 2 million shares"
# (v19; the noun is no amount word, so the argument rules kept it). Not "from", a source as often as a level
# ("raised $1 billion from 20 banks").
CHANGE_VERBS = frozenset({"raise", "lift", "boost", "increase", "cut", "reduce", "lower", "trim", "slash", "expand",
                          "shrink", "grow", "rise", "fall", "drop", "climb", "decline", "jump", "surge", "plunge",
                          "tumble", "slip", "double", "triple", "halve", "bring", "up", "pare", "add", "swell"})
LEVEL_PREPOSITIONS = frozenset({"to", "by"})
# The prepositions whose gerund takes its subject from the verb the phrase hangs on, with that verb as its controller
# ("was accused of misleading investors" -> accuse__(mislead.1,mislead.2)); "by" states the act itself ("raised cash
# by selling its stake"). Not "without", "instead of", "rather than", which deny it, nor "after", "before", "despite",
# whose gerund's subject the parser often misplaces in a headline's clause.
GERUND_PREPOSITIONS = frozenset({"of", "with", "in", "on", "to", "from", "for", "about", "into", "against", "by"})
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
INTRANSITIVE_VERBS = frozenset({"rise", "fall", "climb", "drop", "gain", "jump", "slip", "ease", "surge", "tumble", "soar",
                           "decline", "slide", "rally", "plunge", "advance", "close", "open", "end", "trade"})
RELATIVE_PRONOUNS = frozenset({"which", "who", "that", "whom"})
COPULA_LEMMAS = frozenset({"be"})
SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
# Nouns that name a purpose or a question: "the plan is to buy X", "the question is whether to ban X" say what the
# plan or the question is, not that it buys or bans.
PURPOSE_NOUNS = frozenset({"aim", "goal", "plan", "idea", "intention", "objective", "purpose", "strategy", "task", "job",
                           "priority", "mission", "target", "hope", "move", "step", "option", "solution", "challenge",
                           "problem", "answer", "role", "way", "policy", "decision", "proposal", "focus", "intent",
                           "question", "issue", "concern", "risk", "reason", "point", "worry", "fear", "need"})
# Participles that list examples of their noun rather than say what it does: "clients ranging from X to Y".
LISTING_PARTICIPLES = frozenset({"range", "include", "span", "vary", "stretch"})
# Nouns that name a person's post: "the president of the Commission, Jose Barroso" states Barroso's post.
PERSON_TITLES = frozenset({
    "president", "chairman", "chairwoman", "chair", "chief", "head", "director", "spokesman", "spokeswoman",
    "spokesperson", "member", "minister", "secretary", "governor", "executive", "officer", "analyst", "economist",
    "strategist", "founder", "cofounder", "co-founder", "owner", "partner", "manager", "leader", "editor", "professor",
    "ambassador", "commissioner", "counsel", "lawyer", "attorney", "adviser", "advisor", "treasurer", "deputy",
    "general", "candidate", "trader", "mayor", "senator", "envoy", "representative", "principal", "shareholder",
    "investor", "employee", "consultant", "researcher", "scientist", "official", "vice-president", "ceo", "cfo",
    "coo", "administrator", "superintendent", "dean", "judge", "prosecutor", "coach", "captain", "boss"})

# Posts an organisation holds as a person does: "Yahoo's largest shareholder, Microsoft".
ORGANIZATION_POSTS = frozenset({"shareholder", "investor", "owner", "partner", "member", "adviser", "advisor",
                                "consultant", "founder", "cofounder", "co-founder"})

# A government's portfolios, which name a post's field, not its owner ("Finance Minister", "EU Energy Commissioner").
PORTFOLIO_WORDS = frozenset({"finance", "media", "energy", "trade", "defense", "defence", "foreign", "interior", "economy",
                             "economic", "health", "justice", "labor", "labour", "agriculture", "commerce", "transport",
                             "education", "environment", "industry", "culture", "home", "budget", "internal",
                             "competition", "employment", "development", "infrastructure"})
# Posts a country holds ("U.S. President", "U.S. Attorney"); before other posts a country names the field ("chief U.S.
# economist").
STATE_POSTS = frozenset({"president", "minister", "secretary", "ambassador", "senator", "envoy", "mayor", "leader",
                         "governor", "representative", "commissioner", "attorney", "general", "treasurer", "chancellor"})

# Words before a post that make it another post ("vice president", "deputy governor"): they join its predicate,
# `(vice.president.of.1,vice.president.of.2)`, so a deputy is not read as the one they stand in for.
RANK_WORDS = frozenset({"vice", "deputy", "assistant", "associate", "under"})
# Verbs that give their object a post ("named X chief executive", "appointed X governor of Y").
APPOINTING_VERBS = frozenset({"name", "appoint", "reappoint", "elect", "reelect", "re-elect", "nominate", "renominate",
                              "make", "choose", "pick", "tap", "promote", "install", "select", "designate", "crown"})

# Event nouns read as their verb when a participant is named in the noun phrase ("Facebook's acquisition of
# Instagram" is read as "Facebook acquired Instagram"): noun lemma -> (the verb's lemma, particles joined by dots as
# verb frames write them; the preposition that introduces the verb's object). Only nouns whose phrase presupposes
# the event in news use; "bid", "offer", "plan" or "talks" state an intention and are left out.
NOMINAL_VERBS: dict[str, tuple[str, str]] = {
    "acquisition": ("acquire", "of"), "purchase": ("purchase", "of"), "takeover": ("take.over", "of"),
    "buyout": ("buy.out", "of"), "merger": ("merge", ""), "sale": ("sell", "of"), "divestiture": ("divest", "of"),
    "divestment": ("divest", "of"), "win": ("win", ""), "defeat": ("defeat", "of"), "investment": ("invest", ""),
    "appointment": ("appoint", "of"), "election": ("elect", "of"), "reelection": ("reelect", "of"),
    "re-election": ("reelect", "of"), "resignation": ("resign", ""), "arrest": ("arrest", "of"),
    "invasion": ("invade", "of"), "attack": ("attack", "on"), "visit": ("visit", "to"), "payment": ("pay", ""),
    "settlement": ("settle", ""), "bailout": ("bail.out", "of"), "closure": ("close", "of"), "launch": ("launch", "of"),
    "withdrawal": ("withdraw", ""), "nomination": ("nominate", "of"), "dismissal": ("dismiss", "of"),
    "expulsion": ("expel", "of"), "downgrade": ("downgrade", "of"), "upgrade": ("upgrade", "of"),
    "nationalisation": ("nationalise", "of"), "nationalization": ("nationalize", "of"), "annexation": ("annex", "of"),
    "suspension": ("suspend", "of"), "indictment": ("indict", "of"), "conviction": ("convict", "of"),
    "departure": ("depart", ""), "release": ("release", "of"), "rescue": ("rescue", "of"), "capture": ("capture", "of"),
}
# Event nouns whose possessor, without an object phrase, is the one the event happens to ("Obama's election",
# "Khodorkovsky's arrest", "Crimea's annexation"): the possessor fills the verb's object, as in the passive. Other
# nouns' possessor is the actor ("Fitch's downgrade on Greece", "Verizon's licence sale to AT&T") unless a by-phrase
# names the actor ("Motorola's acquisition by Google").
PATIENT_NOUNS = frozenset({
    "appointment", "election", "reelection", "re-election", "arrest", "nomination", "dismissal", "expulsion",
    "suspension", "indictment", "conviction", "release", "rescue", "capture", "defeat", "bailout", "nationalisation",
    "nationalization", "annexation",
})
# Words before an event noun that make it a plan, a hope or a failure, not an event ("a proposed takeover of Y"):
# such a phrase states no relation.
UNREALISED_MODIFIERS = frozenset({
    "proposed", "planned", "possible", "potential", "rumoured", "rumored", "failed", "abandoned", "expected",
    "mooted", "prospective", "contemplated", "aborted", "blocked", "attempted", "pending", "would-be", "hoped",
    "intended", "alleged", "future", "hypothetical", "likely", "scrapped", "cancelled", "canceled", "thwarted",
    "rejected", "opposed", "hostile",
})
# Words whose object or subject event has not happened, or is denied ("regulators blocked X's takeover of Y",
# "X's merger with Y collapsed", "talks on X's purchase of Y"): an event noun they govern states no relation.
UNREALISING_VERBS = frozenset({
    "fail", "collapse", "falter", "stall", "talk", "bid", "offer", "proposal", "opposition", "hope", "threat",
    "rumour", "rumor", "speculation", "review", "probe", "investigation", "condition", "obstacle", "ahead",
    "before", "represent", "lead", "whether", "if",
    "block", "oppose", "reject", "consider", "seek", "propose", "plan", "weigh", "explore", "discuss", "abandon",
    "scrap", "drop", "cancel", "delay", "prevent", "veto", "challenge", "fight", "resist", "deny", "rule",
    "postpone", "halt", "stop", "thwart", "torpedo", "derail", "jeopardize", "jeopardise", "threaten", "fear",
    "expect", "want", "pursue", "study", "negotiate", "rebuff", "spurn", "dismiss", "doubt", "question",
    "await", "urge", "demand", "call", "push",
})
# Verbs whose finite clause complement is denied or only supposed ("denied that X paid Y", "it is wrong to assume X
# formed Y", "analysts doubt X will buy Y"): a relation in that clause is not stated by the sentence. Verbs of
# asking ("wondered whether X bought Y") are not here: embedded questions are labelled like assertions.
NONVERIDICAL_VERBS = frozenset({
    "deny", "doubt", "suppose", "assume", "imagine", "pretend", "speculate", "hypothesize", "hypothesise",
    "dispute", "allege", "rumour", "rumor",
})
# Verbs of prediction, belief or wish: a finite clause under one is no report of its act, and keeps the verb as its
# controller, as "X is expected to trim" does ("the IMF expects the Fed will trim its bond buying" ->
# `expect__(trim.1,trim.2)`; "analysts believe X will bid" -> `believe__(bid.1,bid.for.2)`).
PREDICTION_VERBS = frozenset({
    "expect", "predict", "forecast", "anticipate", "believe", "think", "suspect", "guess", "reckon", "bet", "hope",
    "fear", "worry", "wish",
})
# Nouns whose that-clause is a supposition, not a report, kept as its controller: "shares rose on speculation that
# X would bid for Y" -> `speculation__(bid.1,bid.for.2)`; "rumors in the market that X is moving to Y".
SPECULATION_NOUNS = frozenset({
    "speculation", "rumor", "rumour", "talk", "hope", "fear", "worry", "concern", "expectation", "possibility",
    "chance", "prospect", "likelihood", "belief", "suspicion", "allegation", "accusation", "claim", "assumption",
    "doubt", "guess", "bet", "suggestion", "theory", "scenario", "risk", "danger", "threat", "view", "notion",
    "idea", "impression", "perception", "prediction", "forecast", "estimate",
})
# Modal auxiliaries: a clause under one states a possibility, permission or duty, not the act ("Sanofi could announce
# a deal", "X may sell its stake", "X must pay damages"), and keeps the modal as its controller, as a verb of
# prediction does: `could__(announce.1,announce.2)`. "will" and "would" are not here: a company's "will buy" and a
# report's "said it would buy" announce the act; nor is "can", a present capacity ("Britain can export oil", "the
# plant can make 100,000 cars a year"). A denied "could" ("could not survive") is a past inability, which states
# the negated act as before.
# Subordinators of a condition: a relation in an "if" or "unless" clause is supposed, not stated ("if Romney defeats
# Obama, he will cut taxes"), and keeps the word as its controller: `if__(defeat.1,defeat.2)`. Not "when" or "once",
# which tell when a stated or announced act happens ("when the deal closes").
CONDITION_MARKS: dict[str, str] = {"if": "if", "unless": "unless"}
MODAL_AUXILIARIES: dict[str, str] = {"could": "could", "may": "may", "might": "might", "must": "must", "should": "should"}
# Nouns of intent, offer or agreement whose to-infinitive names an act not yet done: "made an offer to buy Yahoo",
# "unveiled a plan to cleanse toxic assets", "signed an agreement to sell the unit". The infinitive keeps the noun,
# named as its verb where it has one, as its controller, so that the noun and the verb meet: "made an offer to buy
# Yahoo" -> `offer__(buy.1,buy.2)` as "offered to buy Yahoo" gives (it used to read as a purchase), "signed an
# agreement to sell" -> `agree__(sell.1,sell.2)`. Not "opportunity" or "chance": "took the opportunity to take a
# shot at X" did it.
INTENT_NOUNS: dict[str, str] = {
    **{noun: noun for noun in (
        "offer", "bid", "plan", "attempt", "effort", "deal", "pact", "accord", "contract", "pledge", "promise",
        "option", "right", "approval", "permission", "licence", "license", "authority", "mandate", "request",
        "call", "demand", "push", "campaign", "drive", "scheme", "initiative", "strategy", "ambition", "aim", "goal",
        "target", "desire", "willingness", "readiness", "vow", "order", "motion", "bill", "legislation", "move",
        "tender", "appeal", "petition", "lawsuit", "suit", "programme", "program", "project")},
    "agreement": "agree", "proposal": "propose", "proposition": "propose", "decision": "decide",
    "intention": "intend", "intent": "intend", "commitment": "commit", "refusal": "refuse", "threat": "threaten",
    "invitation": "invite", "application": "apply", "authorization": "authorize", "authorisation": "authorize",
}
# Verbs by which a third party judges a plan or deal that others are to carry out: "shareholders approved a deal
# to acquire Saab" does not make the shareholders acquire it, nor "Hollande supports Italy's proposal to use the
# funds" make Hollande use them. Only their to-infinitive: a participle is the judge's own act ("Merkel criticized
# France, taking a swipe at Hollande").
JUDGING_VERBS = frozenset({
    "approve", "back", "endorse", "reject", "block", "oppose", "veto", "ratify", "review", "investigate", "probe",
    "examine", "scrutinize", "scrutinise", "criticize", "criticise", "challenge", "welcome", "praise", "support",
    "sanction", "study", "vet", "question", "condemn", "applaud", "slam", "attack", "dismiss", "rebuff", "spurn",
})
# Words before a preposition that make its phrase an alternative to the clause, not a participant: "increase
# standards based on size, rather than the current formula", "invest in bonds instead of stocks".
ALTERNATIVE_MARKERS = frozenset({("rather", "than"), ("instead", "of")})
# Nouns whose to-phrase measures against a price: "sold stock at a discount to Monday's prices" sold nothing to the
# prices.
PRICE_GAP_NOUNS = frozenset({"discount", "premium"})
# Adverbs of direction the parser hangs a verb's phrase on, read as the verb's particle: "walked away from the bid"
# (walk.away.1,walk.away.from.2), "went back to the table", "pulled out of the talks", "moved ahead with the sale"
# ("along with" joins two participants: no particle).
DIRECTION_ADVERBS = frozenset({"away", "back", "ahead", "out", "forward"})

# Words that open a clause as well as a phrase, which the parser may read as a preposition before the clause's
# subject ("as a housing slump takes a toll").
SUBORDINATING_PREPOSITIONS = frozenset({"as", "after", "before", "since", "until", "while", "because", "though"})
# Nouns that name an act and so take their own by-agent ("approve a request by Obama", "matching a move by
# Continental"), beside the event nouns of NOMINAL_VERBS and nouns ending like a verb's noun (-tion, -ment, ...).
AGENT_NOUNS = frozenset({
    "move", "cut", "bid", "offer", "appeal", "request", "call", "attack", "raid", "increase", "hike", "rise",
    "decline", "drop", "change", "claim", "comment", "speech", "statement", "decision", "ruling", "vote", "buyback",
    "deal", "report", "study", "survey", "review", "probe", "loss", "gain", "purchase", "sale", "plan", "effort",
    "push", "bet", "order", "ban", "veto", "threat", "warning", "promise", "pledge", "demand", "remark", "visit",
})
AGENT_NOUN_ENDINGS = ("tion", "sion", "ment", "al", "ure", "ance", "ence", "ing", "ship")
