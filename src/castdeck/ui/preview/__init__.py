"""Previews of finished Videos, Shorts and Voiceovers: their stills and an in-app player. Nothing
is imported here: see :mod:`.preview` and :mod:`.stills`."""
