"""holon-adapter-acp: drive any Agent Client Protocol agent as a holon engine."""
