"""Listening to an episode: the audio player and the word-by-word transcript that follows it
(:mod:`.listen_window`). Nothing is imported here: a module that needs a colour or the player's
controls does not load the window."""
