"""Exact solving: normal play by nimbers, misère play by canonical trees, a table of solved positions."""
