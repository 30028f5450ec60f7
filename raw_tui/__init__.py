"""raw-tui: run AI coding agents under the Raw runtime's contracts."""

__version__ = "0.1.0"
