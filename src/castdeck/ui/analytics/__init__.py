"""Analytics views: figure cards, the bar chart, the episode table and an episode's figures."""
