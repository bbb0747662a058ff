"""Small news articles written for the ingestion tests and benchmarks (no corpus text): made from templates,
each with named people, companies and places the extractor reads, so every article yields triples."""

from __future__ import annotations

import datetime as dt
import random

PEOPLE = ["Angela Merkel", "Emmanuel Macron", "Barack Obama", "Vladimir Putin", "Theresa May", "Shinzo Abe",
          "Justin Trudeau", "Xi Jinping", "Narendra Modi", "Jacinda Ardern", "Mario Draghi", "Christine Lagarde"]
COMPANIES = ["Acme Corp", "Globex Inc", "Initech Ltd", "Umbrella Holdings", "Stark Industries", "Wayne Enterprises",
             "Hooli Inc", "Vandelay Industries", "Soylent Corp", "Cyberdyne Systems"]
PLACES = ["Berlin", "Paris", "London", "Tokyo", "Ottawa", "Beijing", "New Delhi", "Wellington", "Rome", "Madrid"]
SENTENCES = [
    "{p1} met {p2} in {place} on {day}.",
    "{c1} said on {day} it bought {c2} for ${n} million.",
    "{p1} visited {place} last week and praised {p2}.",
    "{c1} opened a new factory in {place}, employing {n} people.",
    "{p2} criticised {c1} over its plans in {place}.",
    "{c2} sued {c1} in a court in {place} on {day}.",
]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]


def article(n: int, start: dt.date = dt.date(2024, 3, 4), sentences: int = 4) -> dict[str, str]:
    """The n-th fixture article: a JSON Lines record (id, date, title, text), the same for the same n."""
    rng = random.Random(n)
    fill = {"p1": rng.choice(PEOPLE), "p2": rng.choice(PEOPLE), "c1": rng.choice(COMPANIES), "c2": rng.choice(COMPANIES),
            "place": rng.choice(PLACES), "day": rng.choice(DAYS), "n": str(rng.randint(2, 900))}
    if fill["p1"] == fill["p2"]:
        fill["p2"] = PEOPLE[(PEOPLE.index(fill["p1"]) + 1) % len(PEOPLE)]
    if fill["c1"] == fill["c2"]:
        fill["c2"] = COMPANIES[(COMPANIES.index(fill["c1"]) + 1) % len(COMPANIES)]
    text = " ".join(rng.sample(SENTENCES, sentences)).format(**fill)
    # A closing sentence unique to the article keeps any two articles' texts apart.
    text += f" The report was number {n} of the series."
    return {"id": f"fixture-{n:05d}", "date": (start + dt.timedelta(days=n % 9)).isoformat(),
            "title": f"{fill['p1']} and {fill['c1']}", "text": text}


def articles(count: int, first: int = 0) -> list[dict[str, str]]:
    """`count` fixture articles starting at number `first`."""
    return [article(n) for n in range(first, first + count)]
