from . import dataloader  # noqa: F401
