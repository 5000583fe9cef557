"""Castdeck ui layer (see GUIDE section 1)."""
