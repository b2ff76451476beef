"""Pure statistics over arrays: no files, no plots (ARCHITECTURE.md, statistics section)."""
