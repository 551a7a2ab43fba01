"""Friendly challenges and rematch offers: a member's open invitation to a game, and a
second game with the seats swapped after a finished friendly (docs/RULES.md, section 17)."""
