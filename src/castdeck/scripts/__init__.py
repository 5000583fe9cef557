"""Castdeck scripts layer (see GUIDE section 1)."""
