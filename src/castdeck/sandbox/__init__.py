"""The embedded local service that implements the whole interface (castdeck-sandbox)."""
