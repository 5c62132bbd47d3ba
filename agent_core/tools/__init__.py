"""Tools the model can call; one per module, assembled into toolsets explicitly."""
