"""Errors a user of the app can cause.

Core functions raise :class:`InputError` (a ``ValueError``) with a message that
says what to change; pages catch it and show the message, never a traceback.
"""


class InputError(ValueError):
    """Bad input that the user can fix (data, a parameter out of range, ...)."""


class InputTypeError(InputError, TypeError):
    """An :class:`InputError` about the type of a value.

    Text where numbers are needed, a sparse matrix where dense points are needed; also
    a ``TypeError``, as Python and scikit-learn report wrong types.
    """
