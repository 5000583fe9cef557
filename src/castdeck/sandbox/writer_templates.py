"""Text templates of the script writer, and the deck that deals them without repeats.

``{P}`` is the phrase a beat is about, ``{P2}`` another key phrase, ``{N}`` the first name of the
host spoken to; source frames quote sentence ``{S}`` of the source titled ``{T}``.
"""

from __future__ import annotations

import random

__all__ = [
    "BUILDS",
    "CHAPTER_OPENERS",
    "CHAPTER_TITLES",
    "CONCEDES",
    "ELABORATIONS",
    "MONO_TRANSITIONS",
    "OPENERS",
    "PUSHBACKS",
    "QUESTIONS",
    "REACTIONS",
    "SOURCE_FRAMES",
    "SOURCE_REFRAMES",
    "Deck",
]

ELABORATIONS = [
    "When it comes to {P}, the details matter more than the headlines.",
    "What I find striking about {P} is how many small decisions add up to the big picture.",
    "The honest answer is that {P} depends a lot on context.",
    "People often talk about {P} as if it were settled, but there is still plenty of debate.",
    "If you only remember one thing about {P}, remember that the trade-offs are real.",
    "There is a practical side to {P} that rarely makes it into the news.",
    "It also connects to {P2}, which is easy to overlook.",
    "You can't really understand {P} without looking at {P2} as well.",
    "The numbers are only half the story when we talk about {P}.",
    "I think the most useful question to ask about {P} is who benefits and who pays.",
    "A lot of the early assumptions about {P} have not aged very well.",
    "For anyone new to this, the key idea behind {P} is simpler than it sounds.",
    "It is worth slowing down here, because {P} has a few moving parts.",
    "In practice, {P} looks very different from one place to the next.",
    "The people closest to {P} usually describe it in much more down to earth terms.",
    "That tension between ambition and reality runs right through {P}.",
    "The timeline matters too, because progress on {P} rarely happens in a straight line.",
    "Some of the most interesting work on {P} is happening at a surprisingly small scale.",
    "It's a good reminder that {P} is as much about people as it is about ideas.",
    "There is a lesson in {P} about patience.",
    "Looking back, the turning points for {P} were often quiet ones.",
    "I would love to see more open discussion of {P2} alongside it.",
    "The risk is that we treat {P} as a slogan instead of a subject.",
    "Every time I read more about {P}, I find another layer to it.",
    "The surprising part is how often {P} comes down to ordinary choices.",
    "Context is everything here, and {P2} is a big part of that context.",
    "Nobody has all the answers on {P}, and that is fine.",
    "Think of {P} less as a single thing and more as a set of related questions.",
    "It's the kind of subject where a little curiosity goes a long way.",
    "And the costs of getting {P} wrong tend to show up years later.",
    "What changes the picture is when you compare {P} with {P2}.",
    "Most of the disagreement about {P} is really disagreement about priorities.",
]
QUESTIONS = [
    "{N}, what stood out to you about {P}?",
    "{N}, how would you explain {P} to someone hearing about it for the first time?",
    "So {N}, where do people get {P} wrong?",
    "{N}, what's your take on {P}?",
    "What do you make of that, {N}?",
    "{N}, is there a detail about {P} that surprised you?",
    "{N}, why does {P} matter right now?",
    "How does {P2} fit into this, {N}?",
    "{N}, what would you tell a skeptic about {P}?",
    "And {N}, what should people keep an eye on when it comes to {P}?",
    "{N}, can you give us a concrete example?",
    "{N}, where do you land on {P}?",
]
OPENERS = [
    "Good question.",
    "Sure.",
    "I think about this a lot.",
    "Great question, {N}.",
    "That's a big one.",
    "Oh, I love this part.",
    "Let me take that one step at a time.",
    "Right, so here's how I see it.",
    "Honestly, it's more interesting than it looks.",
    "Happy to.",
]
REACTIONS = [
    "That's a really useful way to put it.",
    "Right, exactly.",
    "I hadn't thought about it that way, {N}.",
    "Interesting.",
    "That makes a lot of sense.",
    "Yes, and I think that's the crux of it.",
    "Fair point.",
    "Hmm, that's a good point, {N}.",
    "I love that example.",
    "That surprised me too.",
    "Mm, that's well said.",
    "Okay, that helps.",
]
BUILDS = [
    "Building on that, I'd add one thing.",
    "Can I jump in here, {N}?",
    "If I can add something, {N}.",
    "I want to pick up on what {N} just said.",
    "Let me add a slightly different angle.",
]
PUSHBACKS = [
    "I'd push back a little on that, {N}.",
    "I'm not completely sure I agree, {N}.",
    "Let me play devil's advocate for a second.",
]
CONCEDES = [
    "Fair enough.",
    "That's a reasonable challenge.",
    "Okay, I'll give you that.",
    "You might be right there.",
]
SOURCE_FRAMES = [
    "{T} makes a point I keep coming back to: {S}",
    "Here's a line from {T}. {S}",
    "{T} puts it like this. {S}",
    "{S} That comes straight from {T}.",
    "There's a passage in {T} that sums it up. {S}",
    "One detail from {T} really stuck with me. {S}",
    "If you read {T}, you'll find this: {S}",
    "{T} says it plainly. {S}",
]
SOURCE_REFRAMES = [
    "Going back to {T} for a moment. {S}",
    "It's worth repeating what {T} said. {S}",
    "Remember the point from {T}? {S}",
]
CHAPTER_OPENERS = [
    "Let's talk about {P}.",
    "Which brings us to {P}.",
    "Next up: {P}.",
    "Now I want to get into {P}.",
    "Let's turn to {P}.",
    "So, on to {P}.",
]
MONO_TRANSITIONS = [
    "Let's look at this from another angle.",
    "Here's another piece of the puzzle.",
    "Now, consider this.",
    "It helps to pause here for a moment.",
    "Here's a detail worth knowing.",
    "This is where it gets interesting.",
]
CHAPTER_TITLES = [
    "{P}",
    "{P}: The Basics",
    "{P} in Practice",
    "{P}: What the Sources Say",
    "{P}: Open Questions",
    "Looking Ahead: {P}",
    "{P}, Up Close",
]


class Deck:
    """Deals items in shuffled rounds so templates do not repeat back to back."""

    def __init__(self, items: list[str], rng: random.Random) -> None:
        self._items = list(items)
        self._rng = rng
        self._pool: list[str] = []

    def draw(self) -> str:
        if not self._pool:
            self._pool = list(self._items)
            self._rng.shuffle(self._pool)
        return self._pool.pop()
