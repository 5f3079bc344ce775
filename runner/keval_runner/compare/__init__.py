"""Raw facts about a call's outputs against the reference's, and what lower precision does to
the reference's own."""
