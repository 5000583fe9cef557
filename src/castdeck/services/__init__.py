"""Castdeck services layer (see GUIDE section 1)."""
