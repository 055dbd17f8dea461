"""frontend."""
