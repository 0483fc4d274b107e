"""Plugins: the hook specs, the typed facade the core calls, and how plugins are found.

Owns every hook spec and the public ``hookimpl`` marker (``specs``), the plugin manager
facade with its allow/block knobs and ``check_pending`` (``manager``: the rest of the core
calls this, never ``pm.hook``) and the ``holon`` entry-point group read cheaply from
dist-info files (``entry_points``). It may import ``errors`` and ``engine``; the built-in
plugins (``holon_core.builtin``) register through it like any third-party one.
"""
