"""The client's resources, one module each."""

from .account import AccountResource
from .base import Accepted
from .episodes import EpisodesResource
from .hosts import HostsResource, VoicesResource
from .media import ShortsResource, VideosResource, VoiceoversResource
from .podcasts import PodcastsResource
from .sources import SourcesResource

__all__ = [
    "Accepted",
    "AccountResource",
    "EpisodesResource",
    "HostsResource",
    "PodcastsResource",
    "ShortsResource",
    "SourcesResource",
    "VideosResource",
    "VoiceoversResource",
    "VoicesResource",
]
