class ReportError(Exception):
    """A bad input, as one line naming the file (and the line or field)."""
