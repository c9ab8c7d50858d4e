"""Special functions (placeholder, filled below)."""
FUNCTIONS = {}
METHODS = {}
