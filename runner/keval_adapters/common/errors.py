"""The one error type an adapter raises for a problem with the user's input."""


class AdapterError(Exception):
    """A problem with the user's input (a checkout, a submissions file, an option): printed as the
    one-line reason, the last stderr line, which keval shows."""
