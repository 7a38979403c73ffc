"""Renderers: turn a run's results into tables, stories, graph files and JSON."""
