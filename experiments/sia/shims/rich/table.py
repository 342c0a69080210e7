"""rich.table stand-in: rows are dropped (see rich/__init__.py)."""


class Table:
    def __init__(self, *args, **kwargs):
        pass

    def add_column(self, *args, **kwargs):
        pass

    def add_row(self, *args, **kwargs):
        pass
