"""After the game: the highest-scoring play the engine finds from each turn's rack."""
