#!/usr/bin/env python3
"""Writes ``wikitext-2/{train,valid,test}.txt`` next to this file: a small generated corpus in
WikiText-2's layout (one paragraph a line, words separated by spaces), a local stand-in for the
word_language_model example's download. The same text on every run (a fixed seed)."""

import os
import random

NOUNS = ("river city king army church song river bridge ship road school player team film "
         "album band war battle island station court island tower storm village castle").split()
ADJS = "old new large small northern southern early late famous first second last".split()
VERBS = "built destroyed visited recorded won lost crossed defended founded named".split()
PLACES = "Paris London York Rome Sydney Boston Dublin Berlin Madrid Vienna".split()
YEARS = [str(y) for y in range(1850, 2010, 7)]


def sentence(rng):
    """One sentence of a small grammar, so the text has structure to learn."""
    noun, other = rng.choice(NOUNS), rng.choice(NOUNS)
    words = ["The", rng.choice(ADJS), noun, "was", rng.choice(VERBS)]
    if rng.random() < 0.5:
        words += ["in", rng.choice(PLACES)]
    if rng.random() < 0.5:
        words += ["in", rng.choice(YEARS)]
    words += ["by", "the", rng.choice(ADJS), other, "@,@" if rng.random() < 0.3 else "", "."]
    return " ".join(w for w in words if w)


def paragraph(rng):
    return " " + " ".join(sentence(rng) for _ in range(rng.randint(2, 6))) + " "


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "wikitext-2")
    os.makedirs(out, exist_ok=True)
    for name, seed, lines in (("train", 1, 120), ("valid", 2, 30), ("test", 3, 30)):
        rng = random.Random(seed)
        with open(os.path.join(out, name + ".txt"), "w", encoding="utf8") as f:
            for _ in range(lines):
                f.write(" = " + rng.choice(PLACES) + " " + rng.choice(NOUNS) + " = \n"
                        if rng.random() < 0.1 else paragraph(rng) + "\n")


if __name__ == "__main__":
    main()
