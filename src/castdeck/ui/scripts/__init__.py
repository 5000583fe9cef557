"""The Scripts workspace: drafts, the script editor, its panels and dialogs (issue 11)."""
