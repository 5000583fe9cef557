"""The script writer's composer: a draft conversation (or monologue) of intro, chapters and outro.

``Composer`` turns the key phrases and the sources' quotable sentences into draft chapters of
lines made of sentences, about as long as asked; the writer then trims or pads the draft to the
target length and finishes it into a ``WrittenScript``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from .writer_model import SourceText, Speaker
from .writer_prompt import key_phrases
from .writer_templates import (
    BUILDS,
    CHAPTER_OPENERS,
    CHAPTER_TITLES,
    CONCEDES,
    ELABORATIONS,
    MONO_TRANSITIONS,
    OPENERS,
    PUSHBACKS,
    QUESTIONS,
    REACTIONS,
    SOURCE_FRAMES,
    SOURCE_REFRAMES,
    Deck,
)
from .writer_text import (
    capitalized,
    clean_spoken_text,
    count_words,
    source_sentences,
    source_title,
    title_case,
)

__all__ = ["Composer", "DraftChapter", "join_names"]


@dataclass
class _DraftLine:
    speaker: int
    sentences: list[str]
    removable: bool = True


@dataclass
class DraftChapter:
    title: str
    kind: str  # "intro", "body" or "outro"
    lines: list[_DraftLine] = field(default_factory=list)

    def words(self) -> int:
        return sum(count_words(s) for line in self.lines for s in line.sentences)


def join_names(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _first_name(name: str) -> str:
    parts = [p for p in name.split() if p.lower().rstrip(".") not in ("dr", "prof", "mr", "mrs", "ms", "mx")]
    return (parts or name.split() or ["friend"])[0]


class Composer:
    def __init__(
        self,
        prompt: str,
        speakers: list[Speaker],
        sources: list[SourceText],
        target_words: int,
        seed: int,
        video: bool,
    ) -> None:
        self.rng = random.Random(f"castdeck-writer:{seed}:{video}:{prompt}")
        self.video = video
        self.speakers = speakers or [Speaker(host_id="", name="your host")]
        self.names = [clean_spoken_text(s.name) or f"Host {i + 1}" for i, s in enumerate(self.speakers)]
        self.first = [_first_name(n) for n in self.names]
        self.titles = [clean_spoken_text(s.title or "") for s in self.speakers]
        self.n = len(self.speakers)
        self.target = max(target_words, 20)
        self.topic, self.phrases = key_phrases(prompt, sources)
        # A prompt with nothing to pick a phrase from (digits, punctuation) still gets a script.
        self.phrases = self.phrases or [self.topic or "this topic"]
        self.topic = self.topic or self.phrases[0]
        self.source_titles = [source_title(s.title) for s in sources]
        # Quotable material, interleaved across sources so every source is heard early.
        per_source = [source_sentences(s.text) for s in sources]
        self.quotes: list[tuple[str, str]] = []
        for i in range(max((len(q) for q in per_source), default=0)):
            for title, sentences in zip(self.source_titles, per_source, strict=True):
                if i < len(sentences):
                    self.quotes.append((title or "one of our sources", sentences[i]))
        self.quote_pos = 0
        # The first quote of each source survives trimming (within 40% of the length), so sources are heard.
        self.protected: set[str] = set()
        self.sources_quoted = sum(1 for q in per_source if q)
        self.decks = {
            name: Deck(items, self.rng)
            for name, items in (
                ("elab", ELABORATIONS),
                ("question", QUESTIONS),
                ("opener", OPENERS),
                ("reaction", REACTIONS),
                ("build", BUILDS),
                ("push", PUSHBACKS),
                ("concede", CONCEDES),
                ("frame", SOURCE_FRAMES),
                ("reframe", SOURCE_REFRAMES),
                ("chopen", CHAPTER_OPENERS),
                ("mono", MONO_TRANSITIONS),
                ("chtitle", [t for t in CHAPTER_TITLES if self.quotes or "Sources" not in t]),
            )
        }
        self.beat_no = 0

    # -- sentence makers ------------------------------------------------------------------

    def _fill(self, template: str, phrase: str, name: str = "") -> str:
        others = [p for p in self.phrases if p.lower() != phrase.lower()] or [self.topic]
        text = template.format(P=phrase, P2=self.rng.choice(others), N=name)
        return capitalized(text)

    def elaboration(self, phrase: str) -> str:
        return self._fill(self.decks["elab"].draw(), phrase)

    def content(self, phrase: str) -> list[str]:
        """One or two sentences of substance: a source quote when available, else an elaboration."""
        if self.quotes:
            first_pass = self.quote_pos < len(self.quotes)
            if first_pass or self.beat_no % 3 == 0:
                title, sentence = self.quotes[self.quote_pos % len(self.quotes)]
                self.quote_pos += 1
                frame = self.decks["frame" if first_pass else "reframe"].draw()
                quoted = capitalized(frame.format(T=title, S=sentence))
                kept = sum(count_words(q) for q in self.protected) + count_words(quoted)
                if self.quote_pos <= self.sources_quoted and kept <= 0.4 * self.target:
                    self.protected.add(quoted)
                return [quoted]
        return [self.elaboration(phrase)]

    # -- structure --------------------------------------------------------------------------

    def intro(self, budget: int, plan: list[str]) -> DraftChapter:
        chapter = DraftChapter(title="Introduction" if not self.video else "Welcome", kind="intro")
        lead: list[str] = []
        if self.video:
            lead.append(f"Hi, I'm {self.names[0]}.")
            lead.append(f"In this video, we're looking at {self.topic}.")
        elif self.n == 1:
            lead.append(f"Hello and welcome. I'm {self.names[0]}, and this is a closer look at {self.topic}.")
        else:
            lead.append(
                f"Hello and welcome. I'm {self.names[0]}, and today we're talking about {self.topic}."
            )
        if self.n >= 2:
            guests = [
                f"{self.names[i]}, {self.titles[i].lower() if self.titles[i] else ''}".rstrip(", ")
                for i in range(1, self.n)
            ]
            verb = "is" if self.n == 2 else "are"
            lead.append(f"With me today {verb} {join_names(guests)}.")
        titled = [t for t in self.source_titles if t]
        if titled:
            shown = titled[:3]
            more = " among others" if len(titled) > 3 else ""
            lead.append(
                f"We've been reading {join_names(shown)}{more}, so expect a few quotes along the way."
            )
        if len(plan) >= 2:
            lead.append(f"We'll start with {plan[0]}, and work our way to {plan[-1]}.")
        if budget > 90:
            lead.append(self.elaboration(self.topic))
        chapter.lines.append(_DraftLine(0, lead, removable=False))
        hellos = [
            "Thanks, {N}. Great to be here.",
            "Thanks for having me, {N}.",
            "Happy to be here, {N}.",
            "Hi everyone. Thanks, {N}.",
        ]
        for i in range(1, self.n):
            hello = hellos[(i - 1) % len(hellos)].format(N=self.first[0])
            sentences = [hello]
            if budget > 60 * self.n:
                sentences.append(f"I've been looking forward to this one, because {self.topic} matters.")
            chapter.lines.append(_DraftLine(i, sentences, removable=False))
        return chapter

    def outro(self, budget: int, covered: list[str]) -> DraftChapter:
        chapter = DraftChapter(title="Wrapping Up" if not self.video else "Summary", kind="outro")
        lead = ["That's about all we have time for today." if not self.video else "So, to sum up."]
        if len(covered) >= 2:
            lead.append(f"We covered {join_names(covered[:4])}.")
        if budget > 60:
            lead.append(self.elaboration(self.topic))
        chapter.lines.append(_DraftLine(0, lead, removable=False))
        byes = [
            "Thanks, {N}. This was fun.",
            "Thanks for having me.",
            "Thanks, everyone.",
            "Until next time.",
        ]
        for i in range(1, self.n):
            chapter.lines.append(_DraftLine(i, [byes[(i - 1) % len(byes)].format(N=self.first[0])], False))
        closing = "Thanks for watching." if self.video else "Thanks for listening, and see you next time."
        if self.n > 1:
            chapter.lines.append(_DraftLine(0, [closing], removable=False))
        else:
            lead.append(closing)
        return chapter

    def beat(self, phrase: str) -> list[_DraftLine]:
        """One exchange about ``phrase``: a few lines that read like a conversation."""
        self.beat_no += 1
        if self.n == 1:
            sentences = [self.decks["mono"].draw()] if self.beat_no % 2 == 0 else []
            sentences += self.content(phrase)
            sentences.append(self.elaboration(phrase))
            return [_DraftLine(0, sentences)]
        kind = self.rng.random()
        a = (self.beat_no - 1) % self.n
        b = (a + 1 + self.rng.randrange(self.n - 1)) % self.n
        lines: list[_DraftLine] = []
        if kind < 0.6:
            # question, answer, reaction
            q = self._fill(self.decks["question"].draw(), phrase, self.first[b])
            lines.append(_DraftLine(a, [q], removable=False))
            answer = [self._fill(self.decks["opener"].draw(), phrase, self.first[a])]
            answer += self.content(phrase)
            answer.append(self.elaboration(phrase))
            lines.append(_DraftLine(b, answer, removable=False))
            reactor = a
            if self.n >= 3 and self.rng.random() < 0.5:
                reactor = next(i for i in range(self.n) if i not in (a, b))
                lines.append(
                    _DraftLine(
                        reactor,
                        [
                            self._fill(self.decks["build"].draw(), phrase, self.first[b]),
                            self.elaboration(phrase),
                        ],
                    )
                )
            else:
                lines.append(
                    _DraftLine(
                        reactor,
                        [
                            self._fill(self.decks["reaction"].draw(), phrase, self.first[b]),
                            self.elaboration(phrase),
                        ],
                    )
                )
        elif kind < 0.85:
            # statement and build
            lines.append(_DraftLine(a, [*self.content(phrase), self.elaboration(phrase)], removable=False))
            follow = self._fill(self.decks["build"].draw(), phrase, self.first[a])
            lines.append(_DraftLine(b, [follow, self.elaboration(phrase)]))
        else:
            # gentle disagreement
            lines.append(_DraftLine(a, [*self.content(phrase), self.elaboration(phrase)], removable=False))
            follow = self._fill(self.decks["push"].draw(), phrase, self.first[a])
            lines.append(_DraftLine(b, [follow, self.elaboration(phrase)]))
            lines.append(
                _DraftLine(a, [self._fill(self.decks["concede"].draw(), phrase), self.elaboration(phrase)])
            )
        return lines

    def compose(self, n_body: int) -> list[DraftChapter]:
        focus = [self.phrases[i % len(self.phrases)] for i in range(n_body)]
        if n_body > 1 and len(self.phrases) > 1 and focus[0].lower() == self.topic.lower():
            # start the body on a concrete sub-phrase when there are several
            focus = [self.phrases[(i + 1) % len(self.phrases)] for i in range(n_body)]
        plan = list(dict.fromkeys(focus))
        intro_budget = max(15, min(int(self.target * 0.12), 220))
        outro_budget = max(10, min(int(self.target * 0.07), 150))
        intro = self.intro(intro_budget, plan if self.target > 300 else [])
        outro = self.outro(outro_budget, plan)
        remaining = self.target - intro.words() - outro.words()
        body_budget = max(remaining, 20 * n_body)
        chapters = [intro]
        used_titles: set[str] = set()
        for i, phrase in enumerate(focus):
            title = ""
            for _ in range(len(CHAPTER_TITLES)):
                title = title_case(self.decks["chtitle"].draw().format(P=phrase))
                if title.lower() not in used_titles:
                    break
            if title.lower() in used_titles:
                title = f"{title}, Part {i + 1}"
            used_titles.add(title.lower())
            chapter = DraftChapter(title=title[:200], kind="body")
            opener = self._fill(self.decks["chopen"].draw(), phrase)
            lead = i % self.n if self.n > 1 else 0
            chapter.lines.append(_DraftLine(lead, [opener], removable=False))
            budget = body_budget * (i + 1) // n_body - body_budget * i // n_body
            while chapter.words() < budget:
                for line in self.beat(phrase):
                    chapter.lines.append(line)
            chapters.append(chapter)
        chapters.append(outro)
        return chapters
