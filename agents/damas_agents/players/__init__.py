"""Players and search: the Agent protocol, the classical and learned players, the tree search
and alpha-beta, external engines, and agent spec strings."""
