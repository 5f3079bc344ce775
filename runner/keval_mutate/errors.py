"""The one error type of the mutation tools: its message is one line naming the file or field."""


class MutateError(Exception):
    def __init__(self, where, message: str):
        super().__init__(f"{where}: {message}" if where else message)
