"""Tools: manifests, the registry, and dispatch (the seven steps)."""
