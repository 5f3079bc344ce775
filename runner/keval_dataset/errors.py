"""The one error type of the dataset tools: its message is one line naming the file and field."""


class DatasetError(Exception):
    def __init__(self, path, message: str):
        super().__init__(f"{path}: {message}" if path else message)
