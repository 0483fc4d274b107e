"""The host-side ``holon`` command; one module per subcommand."""
