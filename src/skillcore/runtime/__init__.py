"""What adapters share at run time: configuration and profiles."""
