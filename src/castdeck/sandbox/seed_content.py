"""Seed data of the demo organization "Demo Studio" (pure data and small helpers, no I/O).

Indexes: hosts refer to ``VOICES`` by voice ``id``; podcasts refer to ``HOSTS`` by index; episodes
refer to ``PODCASTS``, ``HOSTS`` and ``SOURCES`` by index; media refer to ``HOSTS`` and
``SOURCES`` by index and to ``STYLES`` / ``SHORT_STYLES`` by style ``id``.

Episode blueprint keys (``EPISODES``):

- ``key``: stable identifier (seed for ``analytics_numbers`` and for the writer seed);
- ``podcast``: index into ``PODCASTS``; ``hosts``: indexes into ``HOSTS``;
- ``title``, ``description`` (plain text), ``prompt`` (None for the empty draft), ``minutes``
  (length to write and synthesize, at most 1.5 so seeding is fast);
- ``sources``: indexes into ``SOURCES`` attached to the generation;
- ``state``: one of
  ``"published"`` (rendered audio, status published, ``published_days_ago`` set),
  ``"scheduled"`` (rendered audio, status scheduled, ``scheduled_in_days`` in the future),
  ``"rendered_draft"`` (rendered audio, status draft),
  ``"unrendered_draft"`` (script written with render false: generation completed, no audio),
  ``"empty_draft"`` (created with ``POST /v1/episodes``: no generation, no content),
  ``"failed"`` (generation failed with ``error_message``, status draft),
  ``"generating"`` (generation still running: ``generation.state`` generating, no audio);
- ``created_days_ago``: age of the record; ``published_days_ago``, ``scheduled_in_days``,
  ``error_message``: None unless the state needs them.

Source blueprint keys (``SOURCES``): ``kind`` (``"url"``, ``"text"``, ``"upload_text"``,
``"upload_visual"``), ``type`` (the Source ``type`` value), ``title``, ``url``, ``content`` (text
source content or uploaded file content), ``extracted_text`` (what processing extracted; the
sandbox does not fetch the network), ``file_name``, ``mime_type``, ``prepare_visuals``,
``png`` (True: the seeder generates the PNG bytes from ``png_caption``), ``status``,
``error_message``.

Media blueprint keys (``MEDIA``): ``object`` (``"video"``, ``"short"``, ``"voiceover"``),
``status`` (``idle``, ``generating``, ``completed``, ``failed``), ``phase`` (generating only),
``error`` (failed only), ``title``, ``prompt`` (None for voiceovers), ``direction`` (voiceovers),
``style_id`` (None for voiceovers), ``target_duration_seconds`` (spec values; None = automatic
for a voiceover), ``seed_render_seconds`` (suggested length actually rendered when seeding a
completed item, to keep seeding fast), ``orientation``, ``host`` (index into ``HOSTS``),
``sources`` (indexes into ``SOURCES``), ``background_music`` (shorts), ``captions_enabled`` and
``visual_motion`` (voiceovers), ``created_days_ago``.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

__all__ = [
    "EPISODES",
    "HOSTS",
    "MEDIA",
    "ORGANIZATION_NAME",
    "PODCASTS",
    "SHORT_STYLES",
    "SOURCES",
    "STYLES",
    "VOICES",
    "analytics_numbers",
    "voice_by_id",
]

ORGANIZATION_NAME = "Demo Studio"


def _voice(
    voice_id: int,
    description: str,
    language: str,
    gender: str,
    accent: str,
    voice_type: str,
    espeak_voice: str,
    variant: str,
    rate: int,
    pitch: int,
) -> dict[str, Any]:
    return {
        "id": voice_id,
        "description": description,
        "language": language,
        "gender": gender,
        "accent": accent,
        "voice_type": voice_type,
        "model": f"espeak-ng/{espeak_voice}+{variant}",
        "espeak": {
            "language": language,
            "espeak_voice": espeak_voice,
            "variant": variant,
            # Keep every voice near 150 words a minute, the pace scripts are written for, so a
            # 7-minute script narrates in about 7 minutes; the listed rate only sets the tendency.
            "rate": 150 + round((rate - 165) / 4),
            "pitch": pitch,
        },
    }


# Every voice uses its own eSpeak NG variant (files in espeak-ng-data/voices/!v), so no two sound
# alike. eSpeak NG has no Australian or Indian English voice; the English accents it speaks are
# American, New York, British RP, Scottish, Lancastrian, West Midlands and Caribbean.
VOICES: list[dict[str, Any]] = [
    _voice(1001, "Warm, steady American narrator", "en", "male", "american", "professional",
           "en-us", "m3", 165, 45),
    _voice(1002, "Bright, upbeat American presenter", "en", "female", "american", "professional",
           "en-us", "f2", 175, 62),
    _voice(1003, "Calm British narrator, received pronunciation", "en", "male", "british",
           "professional", "en-gb-x-rp", "m1", 158, 38),
    _voice(1004, "Crisp British host, received pronunciation", "en", "female", "british",
           "professional", "en-gb-x-rp", "f1", 170, 55),
    _voice(1005, "Gravelly Scottish storyteller", "en", "male", "scottish", "professional",
           "en-gb-scotland", "m7", 160, 32),
    _voice(1006, "Clear Scottish explainer", "en", "female", "scottish", "professional",
           "en-gb-scotland", "f4", 168, 58),
    _voice(1007, "Fast-talking New York conversationalist", "en", "male", "new york", "clone",
           "en-us-nyc", "Andy", 182, 50),
    _voice(1008, "Friendly Caribbean English voice", "en", "female", "caribbean", "professional",
           "en-029", "f3", 165, 66),
    _voice(1009, "Down-to-earth Lancashire voice", "en", "male", "lancashire", "design",
           "en-gb-x-gbclan", "m2", 170, 48),
    _voice(1010, "Lively West Midlands voice", "en", "female", "west midlands", "design",
           "en-gb-x-gbcwmd", "Alicia", 172, 70),
    _voice(1011, "Neutral synthetic voice for explainers", "en", "other", "american", "design",
           "en-us", "klatt", 155, 50),
    _voice(1012, "Castilian Spanish narrator", "es", "male", "castilian", "professional",
           "es", "m4", 165, 42),
    _voice(1013, "Latin American Spanish presenter", "es", "female", "latin american",
           "professional", "es-419", "f5", 172, 64),
    _voice(1014, "Parisian French narrator", "fr", "male", "parisian", "professional",
           "fr-fr", "m5", 160, 44),
    _voice(1015, "Warm French host", "fr", "female", "parisian", "clone", "fr-fr", "Annie", 168, 60),
    _voice(1016, "Measured German narrator", "de", "male", "standard german", "professional",
           "de", "m6", 158, 40),
    _voice(1017, "Friendly German presenter", "de", "female", "standard german", "professional",
           "de", "linda", 170, 63),
    _voice(1018, "Expressive Italian host", "it", "male", "standard italian", "professional",
           "it", "Marco", 175, 52),
    _voice(1019, "Gentle Italian narrator", "it", "female", "standard italian", "design",
           "it", "steph", 165, 68),
    _voice(1020, "Relaxed Brazilian Portuguese voice", "pt", "male", "brazilian", "professional",
           "pt-br", "Diogo", 170, 47),
    _voice(1021, "Clear Dutch presenter", "nl", "female", "netherlands", "professional",
           "nl", "belinda", 168, 61),
    _voice(1022, "Polish newsreader", "pl", "male", "standard polish", "professional",
           "pl", "Denis", 162, 43),
    _voice(1023, "Swedish storyteller", "sv", "female", "standard swedish", "clone",
           "sv", "anika", 165, 67),
    _voice(1024, "Hindi narrator", "hi", "male", "standard hindi", "professional",
           "hi", "m8", 150, 46),
]  # fmt: skip


def voice_by_id(voice_id: int) -> dict[str, Any] | None:
    return next((v for v in VOICES if v["id"] == voice_id), None)


HOSTS: list[dict[str, Any]] = [
    {
        "name": "Alex Rivera",
        "title": "Host",
        "backstory": (
            "Alex spent ten years as a local radio reporter on the Cornish coast before starting "
            "The Curious Current. Alex likes big questions that can be answered with small, "
            "concrete stories."
        ),
        "personality": "Curious, upbeat and quick with a follow-up question; keeps the conversation moving.",
        "voice_id": 1001,
        "is_guest": False,
    },
    {
        "name": "Priya Natarajan",
        "title": "Co-host",
        "backstory": (
            "Priya is a data journalist who used to build election dashboards. She reads every "
            "footnote and brings the numbers to each episode."
        ),
        "personality": "Dry humour, precise, gently skeptical; likes to check the claim behind the headline.",
        "voice_id": 1004,
        "is_guest": False,
    },
    {
        "name": "Dr. Maya Chen",
        "title": "Marine Scientist",
        "backstory": (
            "Maya is an oceanographer who studies tidal currents and coastal ecosystems. She has "
            "spent more hours on research boats than she cares to count."
        ),
        "personality": "Patient explainer who loves analogies and field anecdotes.",
        "voice_id": 1006,
        "is_guest": True,
    },
    {
        "name": "Oliver Grant",
        "title": "Narrator",
        "backstory": (
            "Oliver narrates the Deep Water Briefings series. A former documentary voice actor, he "
            "favours clear structure and a calm pace."
        ),
        "personality": "Calm, measured and clear; speaks in short, well-built sentences.",
        "voice_id": 1003,
        "is_guest": False,
    },
]

PODCASTS: list[dict[str, Any]] = [
    {
        "title": "The Curious Current",
        "description": (
            "A weekly conversation about the ideas, inventions and people changing how we live "
            "with the sea. Hosted by Alex Rivera and Priya Natarajan, with scientists and "
            "builders as guests."
        ),
        "episode_order": "episodic",
        "language": "en",
        "visibility": "public",
        "hosts": [0, 1],
    },
    {
        "title": "Deep Water Briefings",
        "description": (
            "<p>Short, narrated <strong>briefings</strong> on ocean science and marine energy "
            "for the Demo Studio team.</p><p>Background reading lives on the "
            '<a href="https://example.org/deep-water/reading-list">reading list</a>.</p>'
        ),
        "episode_order": "serial",
        "language": "en",
        "visibility": "private",
        "hosts": [3, 2],
    },
    {
        "title": "Harbour Lights",
        "description": (
            "Night stories from the north coast: lighthouse keepers, harbour pilots and the people "
            "who fish after dark, told by Priya Natarajan."
        ),
        "episode_order": "episodic",
        "language": "en",
        "visibility": "public",
        "hosts": [1, 0],
        # The sandbox's analytics provider is degraded for this show: its figures are floors
        # (``complete: false``), as the service reports when an upstream provider lags.
        "analytics": "degraded",
    },
]

_TIDAL_TEXT = (
    "Tidal energy is produced by the regular rise and fall of the sea, which is driven by the "
    "gravitational pull of the Moon and the Sun on the rotating Earth. Unlike wind and sunshine, "
    "tides can be predicted decades in advance, which makes tidal power one of the most "
    "dependable forms of renewable electricity.\n\n"
    "There are two main ways to capture it. A tidal barrage or lagoon holds water behind a wall "
    "at high tide and releases it through turbines as the tide falls, much like a hydroelectric "
    "dam. The Rance station in Brittany, opened in 1966, works this way and still produces "
    "around 500 gigawatt hours a year. Sihwa Lake in South Korea, completed in 2011, is "
    "slightly larger and is currently the biggest tidal plant in the world.\n\n"
    "Tidal stream devices take a different approach. They are underwater turbines, often "
    "looking like wind turbines, that sit in fast currents between islands or in narrow "
    "channels. Because water is about eight hundred times denser than air, a tidal turbine can "
    "be much smaller than a wind turbine of the same capacity. The MeyGen project in the "
    "Pentland Firth, off the north coast of Scotland, has delivered power to the grid from "
    "seabed turbines since 2016.\n\n"
    "The challenges are mostly about cost and location. Only a limited number of sites have a "
    "large enough tidal range or fast enough currents, and building equipment that survives "
    "salt water, storms and marine growth for twenty years is expensive. Maintenance is "
    "difficult because crews can only work during short slack-water windows between tides.\n\n"
    "Environmental questions matter too. Barrages change how water and sediment move through an "
    "estuary, which can affect mudflats that wading birds depend on. Researchers monitor whether "
    "fish and marine mammals collide with stream turbines; so far, studies around operating "
    "arrays have recorded very few collisions, but long-term data is still scarce.\n\n"
    "Supporters argue that predictable tidal output could balance the variability of wind and "
    "solar power, reducing the need for storage. Critics point out that, per unit of "
    "electricity, tidal projects still cost several times more than offshore wind. Most "
    "analysts expect costs to fall as turbines are built in larger numbers, much as they did "
    "for wind and solar in the previous two decades.\n\n"
    "For coastal communities, the appeal goes beyond electricity. Ports that host tidal projects "
    "gain skilled maintenance jobs, and some schemes share part of their income with local "
    "residents through community funds."
)

_INTERVIEW_NOTES = (
    "Interview notes: harbour master, Port Ellery, 14 March\n\n"
    "The harbour has seen stronger storms in the last five winters than in the previous twenty "
    "years. Two fishing families have moved their boats to the inner basin for good. The council "
    "is considering a small tidal stream demonstrator at the harbour mouth, where the current runs "
    "at almost three metres per second on spring tides.\n\n"
    "Local concerns raised at the public meeting: noise during installation, access for small "
    "boats, and whether the lobster grounds would be disturbed. The developer promised a "
    "two-year monitoring programme with the university and a community benefit fund.\n\n"
    "Quote to use: we have always lived by the tide tables here, so it feels natural that the "
    "tide might pay some of our bills one day."
)

SOURCES: list[dict[str, Any]] = [
    {
        "kind": "url",
        "type": "url",
        "title": "Tidal power - Wikipedia",
        "url": "https://en.wikipedia.org/wiki/Tidal_power",
        "extracted_text": (
            "Tidal power or tidal energy is harnessed by converting energy from tides into useful "
            "forms of power, mainly electricity. Although not yet widely used, tidal energy has "
            "the potential for future electricity generation. Tides are more predictable than "
            "the wind and the sun. Among sources of renewable energy, tidal energy has "
            "traditionally suffered from relatively high cost and limited availability of sites "
            "with sufficiently high tidal ranges or flow velocities."
        ),
        "status": "completed",
        "error_message": None,
    },
    {
        "kind": "url",
        "type": "url",
        "title": "Coastal towns and the energy transition",
        "url": "https://example.org/articles/coastal-towns-and-the-energy-transition",
        "extracted_text": (
            "Small coastal towns are often the first to feel the effects of a changing climate and "
            "the last to share in the benefits of new energy projects. Community ownership models, "
            "in which residents hold shares in local generation, have helped some harbours keep "
            "the income from turbines close to home. Planners say early and honest consultation "
            "matters more than any single technology choice."
        ),
        "status": "completed",
        "error_message": None,
    },
    {
        "kind": "url",
        "type": "url",
        "title": "How kelp forests store carbon",
        "url": "https://example.org/blog/how-kelp-forests-store-carbon",
        "extracted_text": (
            "Kelp forests grow up to half a metre a day in good conditions. When fronds break "
            "away, some of them sink into deep water, where the carbon they contain can stay out "
            "of the atmosphere for centuries. Scientists are still measuring how much of this "
            "carbon is truly locked away and how much returns to the surface."
        ),
        "status": "completed",
        "error_message": None,
    },
    {
        "kind": "text",
        "type": "text",
        "title": "Tidal energy primer",
        "content": _TIDAL_TEXT,
        "extracted_text": _TIDAL_TEXT,
        "status": "completed",
        "error_message": None,
    },
    {
        "kind": "upload_text",
        "type": "file",
        "title": "Harbour master interview notes",
        "file_name": "harbour-master-interview-notes.txt",
        "mime_type": "text/plain",
        "content": _INTERVIEW_NOTES,
        "extracted_text": _INTERVIEW_NOTES,
        "prepare_visuals": False,
        "status": "completed",
        "error_message": None,
    },
    {
        "kind": "upload_visual",
        "type": "file",
        "title": "Tidal array diagram",
        "file_name": "tidal-array-diagram.png",
        "mime_type": "image/png",
        "png": True,
        "png_caption": "Tidal stream array: turbines on the seabed in a narrow channel",
        "extracted_text": "",
        "prepare_visuals": True,
        "status": "completed",
        "error_message": None,
    },
    {
        "kind": "url",
        "type": "url",
        "title": "Ocean energy outlook 2024",
        "url": "https://example.org/paywalled/ocean-energy-outlook-2024",
        "extracted_text": "",
        "status": "error",
        "error_message": "The page could not be retrieved: the site requires a subscription (HTTP 402).",
    },
]

_PUBLISHED = "published"


def _episode(
    key: str,
    podcast: int,
    title: str,
    description: str,
    hosts: list[int],
    prompt: str | None,
    minutes: float,
    state: str,
    *,
    sources: list[int] | None = None,
    created_days_ago: float,
    published_days_ago: float | None = None,
    scheduled_in_days: float | None = None,
    error_message: str | None = None,
) -> dict[str, Any]:
    return {
        "key": key,
        "podcast": podcast,
        "title": title,
        "description": description,
        "hosts": hosts,
        "prompt": prompt,
        "minutes": minutes,
        "state": state,
        "sources": sources or [],
        "created_days_ago": created_days_ago,
        "published_days_ago": published_days_ago,
        "scheduled_in_days": scheduled_in_days,
        "error_message": error_message,
    }


EPISODES: list[dict[str, Any]] = [
    _episode(
        "ep-tides-101", 0, "Tides 101: Why the Sea Breathes Twice a Day",
        "Alex and Priya start at the beginning: what makes the tides, and why they are so predictable.",
        [0, 1], "A friendly one-minute episode about how tides work and why they are predictable.",
        1.0, _PUBLISHED, sources=[0], created_days_ago=62, published_days_ago=60,
    ),
    _episode(
        "ep-tidal-power", 0, "Can the Tide Pay the Bills?",
        "Tidal barrages, tidal stream turbines and what they really cost, with marine scientist "
        "Dr. Maya Chen.",
        [0, 1, 2],
        "A lively episode about tidal energy for coastal towns: barrages, stream turbines and costs.",
        1.5, _PUBLISHED, sources=[3, 0], created_days_ago=35, published_days_ago=33,
    ),
    _episode(
        "ep-harbour", 0, "Life in a Harbour Town",
        "Stories from Port Ellery: storms, fishing families and a proposed tidal demonstrator.",
        [0, 1],
        "An episode about a small harbour town weighing a tidal energy project, using the interview notes.",
        1.2, _PUBLISHED, sources=[4, 1], created_days_ago=16, published_days_ago=14,
    ),
    _episode(
        "ep-kelp", 0, "The Quiet Carbon of Kelp Forests",
        "How underwater forests store carbon, and how much of it stays down there.",
        [0, 2], "Talk about how kelp forests store carbon and what scientists still do not know.",
        1.0, _PUBLISHED, sources=[2], created_days_ago=5, published_days_ago=3,
    ),
    _episode(
        "ep-brief-01", 1, "Briefing 1: The Physics of Tides",
        "A narrated briefing on the Moon, the Sun and the shape of the tide.",
        [3], "A calm narrated briefing on the physics of tides, about one minute long.",
        1.0, _PUBLISHED, sources=[3], created_days_ago=45, published_days_ago=44,
    ),
    _episode(
        "ep-brief-02", 1, "Briefing 2: Barrages and Lagoons",
        "How the Rance and Sihwa Lake stations hold back the sea.",
        [3, 2], "A short briefing on tidal barrages and lagoons like Rance and Sihwa Lake.",
        1.0, _PUBLISHED, sources=[3], created_days_ago=30, published_days_ago=29,
    ),
    _episode(
        "ep-brief-03", 1, "Briefing 3: Turbines Under the Sea",
        "Tidal stream turbines, from the Pentland Firth to harbour mouths.",
        [3, 2], "A short briefing on tidal stream turbines and the MeyGen project.",
        1.0, "scheduled", sources=[3], created_days_ago=2, scheduled_in_days=4,
    ),
    _episode(
        "ep-storms", 0, "Storm Season",
        "Draft: why coastal storms are getting stronger and what towns are doing about it.",
        [0, 1], "An episode about coastal storms getting stronger and how harbour towns adapt.",
        1.0, "rendered_draft", sources=[4], created_days_ago=1.5,
    ),
    _episode(
        "ep-fish", 0, "Do Fish Mind the Turbines?",
        "Draft script: what monitoring around tidal arrays has found so far.",
        [0, 2], "A conversation about fish, seals and tidal turbines, and what monitoring has found.",
        1.0, "unrendered_draft", sources=[3], created_days_ago=1,
    ),
    _episode(
        "ep-empty", 0, "Untitled: Listener Questions",
        "Placeholder for the listener mailbag episode.",
        [0, 1], None, 0.0, "empty_draft", created_days_ago=0.5,
    ),
    _episode(
        "ep-outlook", 1, "Briefing 4: The Ocean Energy Outlook",
        "Attempted briefing based on the 2024 outlook report.",
        [3], "A narrated briefing summarising the ocean energy outlook report.",
        1.0, "failed", sources=[6], created_days_ago=0.3,
        error_message="Generation failed: the attached source could not be read, so no script was written.",
    ),
    _episode(
        "ep-lights-keeper", 2, "The Last Keeper of Skerry Light",
        "Priya meets the keeper who switched the lamp to automatic and stayed on anyway.",
        [1], "A quiet one-minute story about the last lighthouse keeper on a northern island.",
        0.5, _PUBLISHED, created_days_ago=23, published_days_ago=21,
    ),
    _episode(
        "ep-lights-pilot", 2, "Bringing Them In: A Harbour Pilot's Night",
        "Boarding a cargo ship by rope ladder at two in the morning, and steering it home.",
        [1, 0], "A short story about a harbour pilot guiding a ship into port at night.",
        0.5, _PUBLISHED, created_days_ago=7, published_days_ago=6,
    ),
    _episode(
        "ep-waves", 0, "Waves vs. Tides",
        "Wave power and tidal power are often confused. This one sorts them out.",
        [0, 1], "A short episode comparing wave power and tidal power for curious listeners.",
        1.0, "generating", sources=[0, 3], created_days_ago=0.01,
    ),
]  # fmt: skip


def _style(style_id: str, name: str, description: str) -> dict[str, str]:
    return {"id": style_id, "name": name, "description": description}


STYLES: list[dict[str, str]] = [
    _style("explainer", "Explainer", "Clean title cards and simple diagrams that build up step by step."),
    _style("documentary", "Documentary", "Full-bleed imagery with slow pans and lower-third captions."),
    _style("whiteboard", "Whiteboard", "Hand-drawn style sketches on a white background."),
    _style("news", "News", "Headline bars, bold key facts and a steady presenter pace."),
    _style("minimal", "Minimal", "Large type on calm colour fields; lets the narration lead."),
]  # fmt: skip

SHORT_STYLES: list[dict[str, str]] = [
    _style("punchy", "Punchy", "Fast cuts and big captions for vertical feeds."),
    _style("captioned", "Captioned", "Word-by-word captions centred on screen."),
    _style("listicle", "Listicle", "Numbered points, one per beat."),
    _style("story", "Story", "A single narrative arc with a hook in the first seconds."),
]  # fmt: skip


def _media(
    obj: str,
    status: str,
    title: str,
    *,
    prompt: str | None = None,
    direction: str | None = None,
    style_id: str | None = None,
    target_duration_seconds: int | None = None,
    seed_render_seconds: int = 20,
    orientation: str = "AUTO",
    host: int = 0,
    sources: list[int] | None = None,
    phase: str | None = None,
    error: str | None = None,
    background_music: bool | None = None,
    captions_enabled: bool | None = None,
    visual_motion: str | None = None,
    created_days_ago: float = 1.0,
) -> dict[str, Any]:
    return {
        "object": obj,
        "status": status,
        "title": title,
        "prompt": prompt,
        "direction": direction,
        "style_id": style_id,
        "target_duration_seconds": target_duration_seconds,
        "seed_render_seconds": seed_render_seconds,
        "orientation": orientation,
        "host": host,
        "sources": sources or [],
        "phase": phase,
        "error": error,
        "background_music": background_music,
        "captions_enabled": captions_enabled,
        "visual_motion": visual_motion,
        "created_days_ago": created_days_ago,
    }


MEDIA: list[dict[str, Any]] = [
    # Videos
    _media("video", "completed", "How Tidal Power Works",
           prompt="An explainer video on how tidal barrages and tidal stream turbines turn the tide "
                  "into electricity.",
           style_id="explainer", target_duration_seconds=300, seed_render_seconds=24, host=3, sources=[3],
           created_days_ago=20),
    _media("video", "generating", "Kelp Forests and Carbon",
           prompt="A documentary-style video about kelp forests and how they store carbon.",
           style_id="documentary", target_duration_seconds=420, host=2, sources=[2],
           phase="rendering_slides", created_days_ago=0.02),
    _media("video", "failed", "Ocean Energy Outlook",
           prompt="A news-style video summarising the 2024 ocean energy outlook.",
           style_id="news", target_duration_seconds=600, host=3,
           error="Narration synthesis failed: the speech provider rejected the script.", created_days_ago=3),
    _media("video", "idle", "Harbour Town Futures",
           prompt="A whiteboard video about how a small harbour town could share in a tidal energy project.",
           style_id="whiteboard", target_duration_seconds=420, host=0, sources=[4, 1], created_days_ago=0.2),
    # Shorts
    _media("short", "completed", "Tides in 30 Seconds",
           prompt="A punchy 30-second short: why tides happen twice a day.",
           style_id="punchy", target_duration_seconds=30, seed_render_seconds=15, orientation="PORTRAIT",
           host=0, background_music=True, created_days_ago=10),
    _media("short", "generating", "Turbines Under the Sea",
           prompt="A captioned short about underwater tidal turbines.",
           style_id="captioned", target_duration_seconds=60, host=1, background_music=False,
           phase="writing_script", created_days_ago=0.01),
    _media("short", "failed", "Three Facts About Kelp",
           prompt="A listicle short with three surprising facts about kelp.",
           style_id="listicle", target_duration_seconds=30, host=2, background_music=True,
           error="Rendering failed: the video encoder stopped unexpectedly.", created_days_ago=4),
    _media("short", "idle", "The Rance Story",
           prompt="A story short about the Rance tidal power station in Brittany.",
           style_id="story", target_duration_seconds=60, host=3, created_days_ago=0.1),
    # Voiceovers
    _media("voiceover", "completed", "Tidal Array Diagram Walkthrough",
           direction="Walk through the diagram calmly, pointing out the turbines and the channel.",
           target_duration_seconds=180, seed_render_seconds=20, host=3, sources=[5],
           captions_enabled=True, visual_motion="static", created_days_ago=8),
    _media("voiceover", "generating", "Diagram Narration, Dynamic",
           direction="An energetic narration for the diagram, suitable for social media.",
           target_duration_seconds=None, host=1, sources=[5], captions_enabled=False,
           visual_motion="dynamic", phase="synthesizing_narration", created_days_ago=0.02),
    _media("voiceover", "failed", "Board Meeting Narration",
           direction="Summarise the diagram for the board in under three minutes.",
           target_duration_seconds=180, host=0, sources=[5],
           error="The visual source is no longer available.", created_days_ago=6),
    _media("voiceover", "idle", "Diagram for the Open Day",
           direction="Explain the diagram for visitors at the harbour open day.",
           target_duration_seconds=300, host=2, sources=[5], visual_motion="static", created_days_ago=0.3),
]  # fmt: skip

_APPS: list[tuple[str, float]] = [
    ("Apple Podcasts", 0.36),
    ("Spotify", 0.30),
    ("Overcast", 0.09),
    ("Pocket Casts", 0.08),
    ("Web", 0.10),
    ("Other", 0.07),
]


def _unit(key: str, salt: str) -> float:
    """A deterministic number in [0, 1) derived from ``key`` and ``salt``."""
    digest = hashlib.sha256(f"{salt}:{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


DEGRADED_LAG_DAYS = 2.0
"""Days of figures a degraded analytics provider has not delivered yet (its figures are floors)."""


def analytics_numbers(key: str, days_since_publish: float) -> dict[str, Any]:
    """Plausible, deterministic analytics for an episode published ``days_since_publish`` ago.

    Returns ``{"downloads": {first_7_days, first_30_days, total}, "video_views": {last_7_days,
    last_30_days, total}, "plays_by_app": {app: downloads}}`` with integers, where
    first_7_days <= first_30_days <= total, last_7_days <= last_30_days <= total (total covers the
    last 90 days), and plays_by_app sums to downloads.total. All zero before publication.
    """
    t = max(0.0, float(days_since_publish))
    peak = 300 + 2700 * _unit(key, "downloads")  # audience size
    decay = 4.0 + 6.0 * _unit(key, "decay")  # days until the launch burst fades

    def cumulative(days: float) -> float:
        # launch burst plus a slow long tail
        return peak * (1.0 - math.exp(-days / decay)) + peak * 0.006 * days

    total = int(cumulative(t))
    first_7 = min(int(cumulative(min(t, 7.0))), total)
    first_30 = min(max(int(cumulative(min(t, 30.0))), first_7), total)

    views_peak = 20 + 400 * _unit(key, "views")

    def views_between(start: float, end: float) -> float:
        # daily views: an early burst that decays, plus a steady floor
        start, end = max(0.0, start), max(0.0, end)
        if end <= start:
            return 0.0
        burst = views_peak * 12.0 * (math.exp(-start / 12.0) - math.exp(-end / 12.0))
        return burst + views_peak * 0.05 * (end - start)

    last_7 = int(views_between(t - 7.0, t))
    last_30 = max(int(views_between(t - 30.0, t)), last_7)
    views_total = max(int(views_between(t - 90.0, t)), last_30)

    weights = [share * (0.75 + 0.5 * _unit(key, app)) for app, share in _APPS]
    scale = total / sum(weights)
    by_app = {app: int(w * scale) for (app, _share), w in zip(_APPS, weights, strict=True)}
    by_app["Apple Podcasts"] += total - sum(by_app.values())

    return {
        "downloads": {"first_7_days": first_7, "first_30_days": first_30, "total": total},
        "video_views": {"last_7_days": last_7, "last_30_days": last_30, "total": views_total},
        "plays_by_app": by_app,
    }
