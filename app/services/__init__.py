"""Service functions: the only code that writes (load, apply a rule, save, commit, then publish)."""
