"""Built-in plugins, registered through the ``holon`` entry points like any third party."""
