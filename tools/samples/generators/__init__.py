"""One module per generator; samples/registry.py lists them."""
