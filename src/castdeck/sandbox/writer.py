"""Script writer of the sandbox: turns a prompt and attached sources into a spoken script.

Prompt-mode generation is real work, not a timer: the writer builds a multi-host conversation
(or a monologue for one speaker) from the prompt's key phrases and sentences quoted from the
attached sources, with an intro, several chapters and an outro, sized at about
``WORDS_PER_MINUTE`` words per minute of requested length (within a few percent).

This module holds the writing itself: compose a draft (``writer_draft``), trim or pad it to the
target length, and finish it into a ``WrittenScript`` (``writer_model``). The prompt is read in
``writer_prompt``, text made speakable in ``writer_text``, and the sentence templates live in
``writer_templates``. ``SourceText``, ``Speaker``, ``minutes_from_prompt`` and
``title_from_prompt`` are importable from here too, as the writer's public face.

Everything here is pure and deterministic for a given ``seed``; output is speakable plain text
(no markup, no control phrases such as ``[sandbox:fail]``).
"""

from __future__ import annotations

from collections import Counter

from .writer_draft import Composer, DraftChapter, join_names
from .writer_model import Line, SourceText, Speaker, WrittenChapter, WrittenScript
from .writer_prompt import minutes_from_prompt, title_from_prompt
from .writer_text import clean_spoken_text, count_words

# SourceText, Speaker, minutes_from_prompt and title_from_prompt are re-exported: the tests
# import them from here.
__all__ = [
    "WORDS_PER_MINUTE",
    "SourceText",
    "Speaker",
    "minutes_from_prompt",
    "title_from_prompt",
    "write_episode",
    "write_video",
]

WORDS_PER_MINUTE = 150


def _total(chapters: list[DraftChapter]) -> int:
    return sum(c.words() for c in chapters)


def _fit(chapters: list[DraftChapter], target: int, protected: frozenset[str] = frozenset()) -> None:
    """Remove sentences or whole lines until the total is as close to ``target`` as it gets.

    ``protected`` sentences (the first quote of each source) are never removed.
    """
    total = _total(chapters)
    while total > target:
        best: tuple[int, int, int, int] | None = None  # (distance, chapter, line, sentence or -1)
        spoken_by: Counter[int] = Counter(line.speaker for c in chapters for line in c.lines)
        for ci, chapter in enumerate(chapters):
            for li, line in enumerate(chapter.lines):
                for si in range(1, len(line.sentences)):
                    if line.sentences[si] in protected:
                        continue
                    dist = abs(total - count_words(line.sentences[si]) - target)
                    if best is None or dist < best[0]:
                        best = (dist, ci, li, si)
                if (
                    chapter.kind == "body"
                    and line.removable
                    and len(chapter.lines) > 2
                    and spoken_by[line.speaker] > 1
                    and not protected.intersection(line.sentences)
                ):
                    dist = abs(total - sum(count_words(s) for s in line.sentences) - target)
                    if best is None or dist < best[0]:
                        best = (dist, ci, li, -1)
        if best is None or best[0] >= abs(total - target):
            break
        _dist, ci, li, si = best
        if si < 0:
            del chapters[ci].lines[li]
        else:
            del chapters[ci].lines[li].sentences[si]
        total = _total(chapters)


_PADDING = [
    "And that matters.",
    "Keep that in mind.",
    "It's worth thinking about.",
    "That's the key point here.",
    "It's a bigger deal than it sounds.",
    "That part is easy to miss.",
]


def _pad(chapters: list[DraftChapter], target: int) -> None:
    """Append short sentences to body lines while that brings the total closer to ``target``."""
    body = [c for c in chapters if c.kind == "body" and c.lines] or [c for c in chapters if c.lines]
    total = _total(chapters)
    i = 0
    while total < target and body:
        gap = target - total
        best = min(_PADDING, key=lambda s: abs(gap - count_words(s)))
        if abs(gap - count_words(best)) >= gap:
            break
        chapter = body[i % len(body)]
        chapter.lines[-1].sentences.append(best)
        total += count_words(best)
        i += 1


def _finish(chapters: list[DraftChapter]) -> list[WrittenChapter]:
    out: list[WrittenChapter] = []
    for chapter in chapters:
        lines: list[Line] = []
        for line in chapter.lines:
            text = clean_spoken_text(" ".join(line.sentences))
            if not text:
                continue
            if lines and lines[-1].speaker == line.speaker:
                lines[-1] = Line(speaker=line.speaker, text=f"{lines[-1].text} {text}")
            else:
                lines.append(Line(speaker=line.speaker, text=text))
        if lines:
            out.append(WrittenChapter(title=clean_spoken_text(chapter.title) or "Chapter", lines=lines))
    return out


def _describe(composer: Composer, video: bool) -> str:
    names = join_names(composer.names)
    kind = "video" if video else ("conversation" if composer.n > 1 else "episode")
    text = f"A {kind} with {names} about {composer.topic}."
    titled = [t for t in composer.source_titles if t]
    if titled:
        text += f" Drawing on {join_names(titled[:5])}."
    extra = [p for p in composer.phrases if p.lower() != composer.topic.lower()][:4]
    if extra:
        text += f" Topics include {join_names(extra)}."
    return text[:2000]


def _write(
    prompt: str, speakers: list[Speaker], sources: list[SourceText], minutes: float, seed: int, video: bool
) -> WrittenScript:
    minutes = max(float(minutes), 0.1)
    target = max(round(minutes * WORDS_PER_MINUTE), 15)
    composer = Composer(prompt, speakers, sources, target, seed, video)
    # A video gets a slide about every 45 seconds; an episode a chapter about every 2.5 minutes.
    n_body = max(1, min(14, round(minutes * 60 / 45) - 2)) if video else max(2, min(14, round(minutes / 2.5)))
    chapters = composer.compose(n_body)
    _fit(chapters, target, frozenset(composer.protected))
    _pad(chapters, target)
    title = title_from_prompt(prompt)
    if title == "Untitled Episode" and video:
        title = "Untitled Video"
    return WrittenScript(title=title, description=_describe(composer, video), chapters=_finish(chapters))


def write_episode(
    prompt: str, speakers: list[Speaker], sources: list[SourceText], minutes: float, *, seed: int
) -> WrittenScript:
    """Write a podcast script of about ``minutes * WORDS_PER_MINUTE`` words.

    One speaker gives a monologue; two to four speakers hold a conversation with questions,
    answers and hand-offs by name. Sentences of the sources are quoted with their titles.
    """
    return _write(prompt, speakers, sources, minutes, seed, video=False)


def write_video(
    prompt: str, speakers: list[Speaker], sources: list[SourceText], seconds: int, *, seed: int
) -> WrittenScript:
    """Write narration for a Video or Short of ``seconds``; each chapter becomes one slide."""
    return _write(prompt, speakers, sources, max(seconds, 5) / 60.0, seed, video=True)
