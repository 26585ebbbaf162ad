"""One runner per plugin type behind the Runner protocol (see base.py)."""
