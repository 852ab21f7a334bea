"""The run-time helpers of migrated code, as ordinary modules: each one imported and tested as it is.

A migration never imports this package from the user's code (migrated code does not depend on dali-migrate).
It copies the definitions the migrated code uses, with what they need, into the project's own helper module
(``dali_dynamic_compat.py`` by default; ``transforms/unroll/helpers.py`` writes it), so each definition here is
the text users receive. That sets the rules for these modules:

* one helper per module, defined at top level; what a definition needs from another module of this package is
  imported at the top (the copy brings that definition along, and leaves the import out);
* nothing else at top level: imports of DALI, numpy, torch, TensorFlow or JAX sit inside the functions, so the
  helper module imports without them and a PyTorch project never needs TensorFlow;
* each class says "Written by dali-migrate." in its docstring (``helpers.is_tool_written_class``).
"""
