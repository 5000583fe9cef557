"""Create and edit dialogs of the desktop app, one module per resource."""
