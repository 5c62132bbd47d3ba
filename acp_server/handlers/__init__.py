"""ACP method handlers, one module per method family, routed by an explicit table."""
