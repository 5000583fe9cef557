"""Titles quoted in sentences are cut at a word boundary, never mid-word."""

from __future__ import annotations

from castdeck.services.messages import quoted, shortened


def test_a_long_title_is_cut_at_a_word_with_an_ellipsis() -> None:
    title = "Welcome back to The Curious Current. Today we talk about floodplains and rivers"
    cut = shortened(title, 40)
    assert cut == "Welcome back to The Curious Current…"
    assert len(cut) <= 40 and title.startswith(cut[:-1])


def test_a_short_title_is_kept_on_one_line() -> None:
    assert shortened("Why rivers\n bend") == "Why rivers bend"
    assert quoted("Why rivers bend") == "“Why rivers bend”"


def test_one_very_long_word_is_cut_where_it_must_be() -> None:
    assert shortened("x" * 100, 20) == "x" * 19 + "…"
