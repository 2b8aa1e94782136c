"""Errors a user of the app can cause.

Core functions raise :class:`InputError` (a ``ValueError``) with a message that
says what to change; pages catch it and show the message, never a traceback.
"""


class InputError(ValueError):
    """Bad input that the user can fix (data, a parameter out of range, ...)."""
