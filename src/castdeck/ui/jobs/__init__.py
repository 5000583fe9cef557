"""The Jobs dock: live job cards (``card``, ``panel``) and desktop notifications (``notifier``)."""
