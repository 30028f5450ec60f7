"""Manifests and documents of the contract, with their validation."""
