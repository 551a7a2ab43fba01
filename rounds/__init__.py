"""Word Skill rounds (seed 002): every player plays the same tray, the best play is placed."""
