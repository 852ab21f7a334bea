"""A registry of operators that another package keeps (not migrated with this program): whatever it holds may be
called later by pipelines the migration never sees."""

OPERATORS = {}


def register(name, operator):
    OPERATORS[name] = operator
    return operator
