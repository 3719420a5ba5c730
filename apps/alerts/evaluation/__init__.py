"""The evaluators: each reads its data as of a moment and raises each alert once."""
