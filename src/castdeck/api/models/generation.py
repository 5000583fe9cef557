"""Episode generation and import inputs (spec 2.4 and 2.5)."""

from __future__ import annotations

import uuid
from typing import Annotated, Any, Literal, Self

from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StringConstraints,
    field_validator,
    model_validator,
)

from ._base import WHOLE_NUMBER, InputModel, check_unique, field_error
from .limits import (
    MAX_CHAPTER_TITLE_CHARS,
    MAX_EPISODE_LENGTH_MINUTES,
    MAX_EPISODE_PROMPT_CHARS,
    MAX_IMPORT_SCRIPT_CHARS,
    MAX_SCRIPT_CHAPTERS,
    MAX_SCRIPT_CHARS,
    MAX_SCRIPT_SEGMENTS,
    MAX_SEGMENT_CHARS,
    MAX_SEGMENTS_PER_CHAPTER,
    MAX_SPEAKER_CHARACTERS,
    MAX_SPEAKER_LABEL_CHARS,
    MIN_EPISODE_LENGTH_MINUTES,
    MIN_EPISODE_PROMPT_CHARS,
)

__all__ = [
    "Chapter",
    "EpisodeGenerateInput",
    "EpisodeImportInput",
    "GenerateOptions",
    "GenerationMode",
    "Script",
    "Segment",
    "SpeakerCharacter",
]

GenerationMode = Literal["prompt", "script"]


class Segment(InputModel):
    """One spoken segment. ``speed`` (one reference) is not part of the strict schema and is rejected."""

    host_id: Annotated[str, StringConstraints(min_length=1)]
    text: Annotated[str, StringConstraints(min_length=1, max_length=MAX_SEGMENT_CHARS)]


class Chapter(InputModel):
    segments: Annotated[list[Segment], Field(min_length=1, max_length=MAX_SEGMENTS_PER_CHAPTER)]
    title: Annotated[str, StringConstraints(min_length=1, max_length=MAX_CHAPTER_TITLE_CHARS)] | None = None


class Script(InputModel):
    """A structured script: at most 50 chapters, 600 segments and 75,000 text characters in total."""

    chapters: Annotated[list[Chapter], Field(min_length=1, max_length=MAX_SCRIPT_CHAPTERS)]

    @property
    def segment_count(self) -> int:
        return sum(len(c.segments) for c in self.chapters)

    @property
    def text_chars(self) -> int:
        return sum(len(s.text) for c in self.chapters for s in c.segments)

    @property
    def host_ids(self) -> list[str]:
        """Distinct segment host IDs in order of first appearance."""
        return list(dict.fromkeys(s.host_id for c in self.chapters for s in c.segments))

    @model_validator(mode="after")
    def _totals(self) -> Self:
        if self.segment_count > MAX_SCRIPT_SEGMENTS:
            raise field_error(
                "too_many_segments",
                f"a script may hold at most {MAX_SCRIPT_SEGMENTS} segments in total; "
                f"this one has {self.segment_count}",
                "chapters",
            )
        if self.text_chars > MAX_SCRIPT_CHARS:
            raise field_error(
                "script_too_long",
                f"a script may hold at most {MAX_SCRIPT_CHARS:,} characters of text in total; "
                f"this one has {self.text_chars:,}",
                "",
            )
        return self


class GenerateOptions(InputModel):
    """Prompt-mode options; ``episode_length`` and ``web_search`` are retired (accepted, without effect)."""

    episode_length_minutes: (
        Annotated[
            StrictInt, Field(ge=MIN_EPISODE_LENGTH_MINUTES, le=MAX_EPISODE_LENGTH_MINUTES), WHOLE_NUMBER
        ]
        | None
    ) = None
    episode_length: Literal["extra_short", "short", "medium", "long", "extra_long"] | None = None
    web_search: StrictBool | None = None


UuidList = Annotated[list[uuid.UUID], AfterValidator(check_unique)]
UniqueStrList = Annotated[list[str], AfterValidator(check_unique)]


def _describe_generate_modes(schema: dict[str, Any]) -> None:
    """Exactly one of ``prompt`` or ``script`` (``null`` counts as absent); a script takes no sources or
    options. That every speaking host is in ``host_ids`` is checked by the server alone."""
    schema["oneOf"] = [
        {
            "title": "Prompt mode",
            "required": ["prompt"],
            "properties": {"prompt": {"type": "string"}, "script": {"type": "null"}},
        },
        {
            "title": "Script mode",
            "required": ["script"],
            "properties": {
                "script": {"type": "object"},
                "prompt": {"type": "null"},
                "source_ids": {"anyOf": [{"type": "null"}, {"type": "array", "maxItems": 0}]},
                "options": {"anyOf": [{"type": "null"}, {"type": "object", "maxProperties": 0}]},
            },
        },
    ]


class EpisodeGenerateInput(InputModel):
    """Generate an episode from a ``prompt`` or from a structured ``script`` (exactly one of them)."""

    model_config = ConfigDict(json_schema_extra=_describe_generate_modes)

    podcast_id: uuid.UUID
    prompt: (
        Annotated[
            str, StringConstraints(min_length=MIN_EPISODE_PROMPT_CHARS, max_length=MAX_EPISODE_PROMPT_CHARS)
        ]
        | None
    ) = None
    script: Script | None = None
    source_ids: UuidList | None = None
    host_ids: UniqueStrList | None = None
    options: GenerateOptions | None = None
    render: StrictBool = False

    @property
    def mode(self) -> GenerationMode:
        return "script" if self.script is not None else "prompt"

    @model_validator(mode="after")
    def _mode_rules(self) -> Self:
        if (self.prompt is None) == (self.script is None):
            raise field_error(
                "prompt_or_script",
                "give exactly one of prompt or script"
                if self.prompt is not None
                else "either prompt or script is required",
                "prompt",
            )
        if self.script is None:
            return self
        if self.source_ids:
            raise field_error(
                "not_in_script_mode",
                "source_ids are only supported with a prompt, not with a script",
                "source_ids",
            )
        if self.options is not None and self.options.model_fields_set:
            raise field_error(
                "not_in_script_mode",
                "options (episode length, web search) only apply to prompt mode, not to a script",
                "options",
            )
        if self.host_ids is not None:
            allowed = set(self.host_ids)
            for i, chapter in enumerate(self.script.chapters):
                for j, segment in enumerate(chapter.segments):
                    if segment.host_id not in allowed:
                        raise field_error(
                            "host_not_listed",
                            f"host {segment.host_id} speaks in the script but is not in host_ids",
                            f"script.chapters.{i}.segments.{j}.host_id",
                        )
        return self


class SpeakerCharacter(InputModel):
    character_id: Annotated[str, StringConstraints(min_length=1)]
    label: Annotated[str, StringConstraints(min_length=1, max_length=MAX_SPEAKER_LABEL_CHARS)]


class EpisodeImportInput(InputModel):
    """Import script text with bracketed speaker labels; ``speaker_characters`` overrides name matching."""

    podcast_id: uuid.UUID
    script: Annotated[str, StringConstraints(min_length=1, max_length=MAX_IMPORT_SCRIPT_CHARS)]
    speaker_characters: (
        Annotated[list[SpeakerCharacter], Field(min_length=1, max_length=MAX_SPEAKER_CHARACTERS)] | None
    ) = None
    render: StrictBool = False

    @field_validator("speaker_characters")
    @classmethod
    def _labels_unique(cls, value: list[SpeakerCharacter] | None) -> list[SpeakerCharacter] | None:
        if value is None:
            return value
        seen: set[str] = set()
        for i, item in enumerate(value):
            key = item.label.casefold()
            if key in seen:
                raise field_error(
                    "duplicate_label",
                    f"the label {item.label!r} is assigned more than once (labels ignore case)",
                    f"{i}.label",
                )
            seen.add(key)
        return value
