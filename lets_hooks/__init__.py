"""lets-hooks: an honest per-branch record of where a work session started."""

__version__ = "0.2.0"
