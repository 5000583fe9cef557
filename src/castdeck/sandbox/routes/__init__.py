"""Route modules: importing this package registers every endpoint in ``routing.ROUTES``."""

from . import episodes, files, generation, hosts, media, meta, podcasts, sources

__all__ = ["episodes", "files", "generation", "hosts", "media", "meta", "podcasts", "sources"]
