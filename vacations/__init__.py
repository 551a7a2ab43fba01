"""Vacation: a member's declared days away, which pause their turn deadlines (RULES.md 6)."""
