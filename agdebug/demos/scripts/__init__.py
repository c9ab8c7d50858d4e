"""Classroom demos: short numbered-step scripts that run with plain Python (and with torch)."""
