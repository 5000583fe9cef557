"""Castdeck store layer (see GUIDE section 1)."""
