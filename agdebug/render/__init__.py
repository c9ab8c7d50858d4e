"""Drawing: DOT text from a GraphState (``dot``), rendered files and frames (``export``)."""
