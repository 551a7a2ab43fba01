"""Word lists: ENABLE by default, any one-word-a-line list by name."""
